pub struct Logger;

#[wireplan_runtime::class("App\\Logger")]
impl Logger {
    #[method]
    pub fn flush(&self) {}
}

fn main() {}
