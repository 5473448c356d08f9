pub struct Spaced;

#[wireplan_runtime::class("App\\With Space")]
impl Spaced {
    #[constructor]
    pub fn new() -> Self {
        Spaced
    }
}

pub struct Builtin;

#[wireplan_runtime::class("int")]
impl Builtin {
    #[constructor]
    pub fn new() -> Self {
        Builtin
    }
}

pub struct Member {
    level: i64,
}

#[wireplan_runtime::class("App\\Member")]
impl Member {
    #[constructor]
    pub fn new() -> Self {
        Member { level: 0 }
    }

    #[method(name = "set level")]
    pub fn set_level(&mut self, level: i64) {
        self.level = level;
    }
}

#[wireplan_runtime::interface("App\\1Logger")]
pub trait Logger: Send + Sync {
    fn log(&self);
}

fn main() {}
