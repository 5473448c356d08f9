//! The services of the application: one trait, two implementations, and the app that uses it.

use std::sync::Arc;
use wireplan_runtime::Registry;

/// Says hello; `App\Greeter` in the configuration.
#[wireplan_runtime::interface("App\\Greeter")]
pub trait Greeter: Send + Sync {
    fn greet(&self, name: &str) -> String;
}

pub struct English;

#[wireplan_runtime::class("App\\English", implements(dyn Greeter))]
impl English {
    #[constructor]
    fn new() -> Self {
        English
    }
}

impl Greeter for English {
    fn greet(&self, name: &str) -> String {
        format!("Hello, {name}!")
    }
}

pub struct Pirate {
    times: usize,
}

#[wireplan_runtime::class("App\\Pirate", implements(dyn Greeter))]
impl Pirate {
    #[constructor]
    fn new(#[default(1)] times: usize) -> Self {
        Pirate { times }
    }
}

impl Greeter for Pirate {
    fn greet(&self, name: &str) -> String {
        format!("{}, {name}!", vec!["Ahoy"; self.times].join(", "))
    }
}

/// The application: gets whichever greeter the configuration chose.
pub struct App {
    greeter: Arc<dyn Greeter>,
    name: String,
}

#[wireplan_runtime::class("App\\App")]
impl App {
    #[constructor]
    fn new(greeter: Arc<dyn Greeter>, name: String) -> Self {
        App { greeter, name }
    }
}

impl App {
    pub fn run(&self) -> String {
        self.greeter.greet(&self.name)
    }
}

/// Every class the configuration may mention.
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    registry
        .register::<English>()
        .register::<Pirate>()
        .register::<App>();
    registry
}
