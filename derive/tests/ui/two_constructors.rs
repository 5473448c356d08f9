pub struct Logger {
    path: String,
}

#[wireplan_runtime::class("App\\Logger")]
impl Logger {
    #[constructor]
    pub fn new(path: String) -> Self {
        Logger { path }
    }

    #[constructor]
    pub fn stderr() -> Self {
        Logger { path: "-".into() }
    }
}

fn main() {}
