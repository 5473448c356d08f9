pub struct Wrapper<T>(T);

#[wireplan_runtime::class("App\\Wrapper")]
impl<T: Send + Sync + 'static> Wrapper<T> {
    #[constructor]
    pub fn new(value: T) -> Self {
        Wrapper(value)
    }
}

fn main() {}
