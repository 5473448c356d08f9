pub struct Pool;

#[wireplan_runtime::class("App\\Pool", no_constructor)]
impl Pool {
    #[constructor]
    pub fn new() -> Self {
        Pool
    }
}

fn main() {}
