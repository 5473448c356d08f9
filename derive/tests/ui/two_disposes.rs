pub struct Pool;

#[wireplan_runtime::class("App\\Pool")]
impl Pool {
    #[constructor]
    pub fn new() -> Self {
        Pool
    }

    #[dispose]
    pub fn close(&self) {}

    #[dispose]
    pub fn flush(&self) {}
}

fn main() {}
