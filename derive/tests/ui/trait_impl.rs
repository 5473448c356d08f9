pub struct Logger;

#[wireplan_runtime::class("App\\Logger")]
impl Default for Logger {
    fn default() -> Self {
        Logger
    }
}

fn main() {}
