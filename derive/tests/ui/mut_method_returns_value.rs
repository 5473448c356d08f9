pub struct Counter {
    n: i64,
}

#[wireplan_runtime::class("App\\Counter")]
impl Counter {
    #[constructor]
    pub fn new() -> Self {
        Counter { n: 0 }
    }

    #[method]
    pub fn bump(&mut self) -> i64 {
        self.n += 1;
        self.n
    }
}

fn main() {}
