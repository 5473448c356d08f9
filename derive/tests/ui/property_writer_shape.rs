pub struct Form {
    a: i64,
}

#[wireplan_runtime::class("App\\Form")]
impl Form {
    #[constructor]
    pub fn new() -> Self {
        Form { a: 0 }
    }

    #[property]
    pub fn set_pair(&mut self, a: i64, b: i64) {
        self.a = a + b;
    }

    #[property]
    pub fn set_a(&mut self, a: i64) {
        self.a = a;
    }

    #[property(name = "a")]
    pub fn replace_a(&mut self, a: i64) {
        self.a = a;
    }
}

fn main() {}
