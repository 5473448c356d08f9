pub struct Mailer {
    from: String,
}

#[wireplan_runtime::class("App\\Mailer")]
impl Mailer {
    #[constructor]
    pub fn new(from: &str) -> Self {
        Mailer { from: from.to_string() }
    }
}

fn main() {}
