pub struct Mailer;

#[wireplan_runtime::class("App\\Mailer")]
impl Mailer {
    #[constructor]
    pub fn new() -> Self {
        Mailer
    }

    #[method]
    pub fn send(&self, to: Option<&str>) -> bool {
        to.is_some()
    }
}

fn main() {}
