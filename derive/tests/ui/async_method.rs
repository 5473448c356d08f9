use std::sync::Arc;

pub struct Pool;

#[wireplan_runtime::class("App\\Pool")]
impl Pool {
    // An async constructor is fine; an async method is not (methods run synchronously
    // during a creation), nor an async constructor returning an Arc.
    #[constructor]
    pub async fn connect() -> Self {
        Pool
    }

    #[method]
    pub async fn ping(&self) -> i64 {
        1
    }
}

pub struct Shared;

#[wireplan_runtime::class("App\\Shared")]
impl Shared {
    #[constructor]
    pub async fn new() -> Arc<Self> {
        Arc::new(Shared)
    }
}

fn main() {}
