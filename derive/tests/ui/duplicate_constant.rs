pub struct Logger;

#[wireplan_runtime::class("App\\Logger")]
impl Logger {
    #[constructor]
    pub fn new() -> Self {
        Logger
    }

    #[constant]
    pub const LEVEL: i64 = 1;

    #[constant(name = "LEVEL")]
    pub const OTHER: i64 = 2;
}

fn main() {}
