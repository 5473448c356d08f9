pub struct Mailer;

#[wireplan_runtime::class("App\\Mailer", colour = "red")]
impl Mailer {
    #[constructor]
    pub fn new(#[default(3)] retries: i64) -> Self {
        let _ = retries;
        Mailer
    }

    #[getter]
    pub fn from(&self, prefix: String) -> String {
        prefix
    }

    #[property]
    pub fn set_to(&mut self, #[default("x")] to: String) {
        let _ = to;
    }

    #[static_method]
    pub fn create(&self) -> Self {
        Mailer
    }

    #[dispose]
    pub fn close(&self, now: bool) {
        let _ = now;
    }
}

fn main() {}
