pub struct Pool;

#[wireplan_runtime::class("App\\Pool")]
impl Pool {
    #[constructor]
    pub fn new() -> Self {
        Pool
    }

    #[method]
    pub fn sizes(&self) -> Vec<i64> {
        vec![1, 2]
    }
}

fn main() {}
