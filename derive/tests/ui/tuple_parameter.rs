pub struct Point;

#[wireplan_runtime::class("App\\Point")]
impl Point {
    #[constructor]
    pub fn new(xy: (i64, i64)) -> Self {
        let _ = xy;
        Point
    }
}

fn main() {}
