//! Collects independent errors so one expansion reports all of them.

/// Errors combined into one `syn::Error` (each keeps its own span).
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub(crate) fn finish(&mut self) -> Option<syn::Error> {
        self.0.take()
    }
}
