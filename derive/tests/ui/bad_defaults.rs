pub struct Pool;

#[wireplan_runtime::class("App\\Pool")]
impl Pool {
    #[constructor]
    pub fn new(
        #[default("abc")] size: i64,
        #[default(300)] level: u8,
        #[default(None)] name: String,
        #[default(1.5)] count: i64,
        #[default(-1)] port: u16,
        #[default(2)] ratio: f64,
        #[default(None)] label: Option<String>,
        #[default(-5)] offset: i32,
    ) -> Self {
        let _ = (size, level, name, count, port, ratio, label, offset);
        Pool
    }
}

fn main() {}
