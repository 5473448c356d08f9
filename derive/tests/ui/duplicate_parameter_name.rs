pub struct Pager(i64, i64);

#[wireplan_runtime::class("App\\Pager")]
impl Pager {
    #[constructor]
    #[allow(non_snake_case)]
    pub fn new(per_page: i64, perPage: i64) -> Self {
        Pager(per_page, perPage)
    }

    #[method]
    pub fn resize(&mut self, x_: i64, x: i64) {
        self.0 = x_ + x;
    }
}

fn main() {}
