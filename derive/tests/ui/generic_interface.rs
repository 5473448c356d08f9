#[wireplan_runtime::interface("App\\Handler")]
pub trait Handler<T>: Send + Sync {
    fn handle(&self, input: T);
}

fn main() {}
