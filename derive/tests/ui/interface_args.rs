#[wireplan_runtime::interface(App::Logger)]
pub trait Logger: Send + Sync {}

fn main() {}
