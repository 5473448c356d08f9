pub struct Point {
    x: i64,
}

#[wireplan_runtime::class("App\\Point")]
impl Point {
    #[constructor]
    pub fn new(_: i64) -> Self {
        Point { x: 0 }
    }

    #[method]
    pub fn shift(&mut self, (dx, _dy): (i64, i64)) {
        self.x += dx;
    }
}

fn main() {}
