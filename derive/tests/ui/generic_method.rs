pub struct Mailer;

#[wireplan_runtime::class("App\\Mailer")]
impl Mailer {
    #[constructor]
    pub fn new() -> Self {
        Mailer
    }

    #[method]
    pub fn send<T: Into<String>>(&self, to: T) -> String {
        to.into()
    }
}

fn main() {}
