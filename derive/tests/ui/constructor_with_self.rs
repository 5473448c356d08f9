pub struct Logger;

#[wireplan_runtime::class("App\\Logger")]
impl Logger {
    #[constructor]
    pub fn reset(&self) -> Self {
        Logger
    }
}

fn main() {}
