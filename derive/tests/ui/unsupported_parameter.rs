use std::collections::HashMap;

pub struct Mailer;

#[wireplan_runtime::class("App\\Mailer")]
impl Mailer {
    #[constructor]
    pub fn new(headers: HashMap<String, String>) -> Self {
        let _ = headers;
        Mailer
    }
}

fn main() {}
