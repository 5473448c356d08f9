pub struct Borrowing<'a> {
    name: &'a str,
}

#[wireplan_runtime::class("App\\Borrowing")]
impl<'a> Borrowing<'a> {
    #[constructor]
    pub fn new() -> Self {
        Borrowing { name: "x" }
    }
}

fn main() {}
