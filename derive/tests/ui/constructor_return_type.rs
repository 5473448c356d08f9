pub struct Logger;

#[wireplan_runtime::class("App\\Logger")]
impl Logger {
    #[constructor]
    pub fn new() -> Option<Self> {
        Some(Logger)
    }
}

fn main() {}
