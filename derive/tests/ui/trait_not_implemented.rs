#[wireplan_runtime::interface("App\\Logger")]
pub trait Logger: Send + Sync {}

pub struct Mailer;

#[wireplan_runtime::class("App\\Mailer", implements(dyn Logger))]
impl Mailer {
    #[constructor]
    pub fn new() -> Self {
        Mailer
    }
}

fn main() {}
