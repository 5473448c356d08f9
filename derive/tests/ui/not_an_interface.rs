pub trait Logger: Send + Sync {}

pub struct FileLogger;

impl Logger for FileLogger {}

#[wireplan_runtime::class("App\\FileLogger", implements(dyn Logger))]
impl FileLogger {
    #[constructor]
    pub fn new() -> Self {
        FileLogger
    }
}

fn main() {}
