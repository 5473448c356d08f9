pub struct Logger {
    level: i64,
}

#[wireplan_runtime::class("App\\Logger")]
impl Logger {
    #[constructor]
    pub fn new() -> Self {
        Logger { level: 0 }
    }

    #[method]
    pub fn set_level(&mut self, level: i64) {
        self.level = level;
    }

    #[method(name = "setLevel")]
    pub fn change_level(&mut self, level: i64) {
        self.level = level;
    }
}

fn main() {}
