//! The blog example: registers its Rust types with `#[class]` / `#[interface]`, loads the plan
//! the compiler wrote, resolves the top-level `blog` service and shows what happened.
//!
//! The catalog the compiler checks the configuration against, `examples/blog/catalog.json`, is
//! generated from these types (never written by hand) and guarded by the golden test
//! `the_checked_in_catalog_is_current` in tests/example.rs:
//!
//! ```text
//! WIREPLAN_WRITE_CATALOG=examples/blog/catalog.json cargo run -p blog   # regenerate
//! cargo run -- compile examples/blog/config/app.neon --catalog examples/blog/catalog.json -o examples/blog/app.plan.json
//! cargo run -p blog -- examples/blog/app.plan.json
//! cargo run -p blog -- --dev examples/blog/config/app.neon target/wireplan-cache
//! ```
//!
//! `--dev CONFIG CACHE_DIR` is dev mode: the plan is compiled with the registry's catalog (in
//! process, no catalog file) into `CACHE_DIR` when a file it depends on or a Rust type changed,
//! and loaded from there otherwise.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use wireplan_runtime::{Container, Registry};

/// `App\Logger`: the interface; one implementation, `App\FileLogger`.
#[wireplan_runtime::interface("App\\Logger")]
trait Logger: Send + Sync {
    fn log(&self, message: &str);
    fn lines(&self) -> Vec<String>;
}

struct FileLogger {
    path: String,
    lines: Mutex<Vec<String>>,
}

#[wireplan_runtime::class("App\\FileLogger", implements(dyn Logger))]
impl FileLogger {
    #[constructor]
    fn new(path: String) -> Self {
        FileLogger {
            path,
            lines: Mutex::default(),
        }
    }
}

impl Logger for FileLogger {
    fn log(&self, message: &str) {
        let line = format!("[{}] {message}", self.path);
        say(format_args!("{line}"));
        self.lines.lock().expect("logger lock").push(line);
    }
    fn lines(&self) -> Vec<String> {
        self.lines.lock().expect("logger lock").clone()
    }
}

struct Clock;

#[wireplan_runtime::class("App\\Clock")]
impl Clock {
    #[constructor]
    fn new() -> Self {
        Clock
    }

    fn today(&self) -> &'static str {
        "2026-11-29"
    }
}

struct Database {
    dsn: String,
}

#[wireplan_runtime::class("App\\Database")]
impl Database {
    #[constructor]
    fn new(dsn: String) -> Self {
        Database { dsn }
    }
}

struct ArticleRepository {
    db: Arc<Database>,
    per_page: i64,
    logger: Option<Arc<dyn Logger>>,
}

#[wireplan_runtime::class("App\\ArticleRepository")]
impl ArticleRepository {
    /// `perPage` in the catalog, with its default.
    #[constructor]
    fn new(db: Arc<Database>, #[default(10)] per_page: i64) -> Self {
        ArticleRepository {
            db,
            per_page,
            logger: None,
        }
    }

    /// Called by the `logaware` extension's setup.
    #[method]
    fn set_logger(&mut self, logger: Arc<dyn Logger>) {
        self.logger = Some(logger);
    }

    fn latest(&self) -> Vec<String> {
        if let Some(l) = &self.logger {
            l.log(&format!(
                "articles: loading {} from {}",
                self.per_page, self.db.dsn
            ));
        }
        (1..=self.per_page)
            .map(|i| format!("Article #{i}"))
            .collect()
    }
}

struct CommentRepository {
    db: Arc<Database>,
    logger: Option<Arc<dyn Logger>>,
}

#[wireplan_runtime::class("App\\CommentRepository")]
impl CommentRepository {
    #[constructor]
    fn new(db: Arc<Database>) -> Self {
        CommentRepository { db, logger: None }
    }

    #[method]
    fn set_logger(&mut self, logger: Arc<dyn Logger>) {
        self.logger = Some(logger);
    }

    fn count(&self) -> usize {
        if let Some(l) = &self.logger {
            l.log(&format!("comments: counting in {}", self.db.dsn));
        }
        3
    }
}

struct Mailer {
    logger: Arc<dyn Logger>,
    from: String,
}

#[wireplan_runtime::class("App\\Mailer")]
impl Mailer {
    #[constructor]
    fn new(logger: Arc<dyn Logger>, from: String) -> Self {
        Mailer { logger, from }
    }
}

/// `App\Notifier`: the tagged group collected by `App\Notifier[]`.
#[wireplan_runtime::interface("App\\Notifier")]
trait Notifier: Send + Sync {
    fn notify(&self, what: &str);
}

struct EmailNotifier {
    mailer: Arc<Mailer>,
}

#[wireplan_runtime::class("App\\EmailNotifier", implements(dyn Notifier))]
impl EmailNotifier {
    #[constructor]
    fn new(mailer: Arc<Mailer>) -> Self {
        EmailNotifier { mailer }
    }
}

impl Notifier for EmailNotifier {
    fn notify(&self, what: &str) {
        self.mailer
            .logger
            .log(&format!("mail from {}: {what}", self.mailer.from));
    }
}

struct LogNotifier {
    logger: Arc<dyn Logger>,
}

#[wireplan_runtime::class("App\\LogNotifier", implements(dyn Notifier))]
impl LogNotifier {
    #[constructor]
    fn new(logger: Arc<dyn Logger>) -> Self {
        LogNotifier { logger }
    }
}

impl Notifier for LogNotifier {
    fn notify(&self, what: &str) {
        self.logger.log(&format!("notice: {what}"));
    }
}

struct BlogService {
    articles: Arc<ArticleRepository>,
    comments: Arc<CommentRepository>,
    notifiers: Vec<Arc<dyn Notifier>>,
    clock: Arc<Clock>,
}

#[wireplan_runtime::class("App\\BlogService")]
impl BlogService {
    #[constructor]
    fn new(
        articles: Arc<ArticleRepository>,
        comments: Arc<CommentRepository>,
        notifiers: Vec<Arc<dyn Notifier>>,
        clock: Arc<Clock>,
    ) -> Self {
        BlogService {
            articles,
            comments,
            notifiers,
            clock,
        }
    }

    fn publish_digest(&self) -> usize {
        let articles = self.articles.latest();
        let comments = self.comments.count();
        let summary = format!(
            "{} digest: {} articles, {} comments",
            self.clock.today(),
            articles.len(),
            comments
        );
        for n in &self.notifiers {
            n.notify(&summary);
        }
        articles.len()
    }
}

/// Registers every catalog class of the example, each from its `#[class]` impl block.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    r.register::<FileLogger>()
        .register::<Clock>()
        .register::<Database>()
        .register::<ArticleRepository>()
        .register::<CommentRepository>()
        .register::<Mailer>()
        .register::<EmailNotifier>()
        .register::<LogNotifier>()
        .register::<BlogService>();
    r
}

/// What one run of the example did, for the integration test.
pub struct Outcome {
    /// Articles the digest listed.
    pub published: usize,
    /// Lines the shared logger wrote.
    pub log_lines: Vec<String>,
    /// Whether the logger given by setup is the one `get_by_type::<dyn Logger>()` returns.
    pub logger_shared: bool,
    /// Whether asking for `blog` twice gives the same singleton.
    pub blog_shared: bool,
}

/// Loads `plan` (JSON or binary), resolves `blog`, publishes a digest and reports what
/// happened.
pub fn run(plan: &str) -> Result<Outcome, Box<dyn std::error::Error>> {
    let registry = registry();
    let container = Container::load(plan, &registry)?;
    say(format_args!("loaded {plan}"));
    run_container(&container)
}

/// Dev mode: compiles `config` into `cache_dir` when one of its files changed (or loads the
/// cached plan), then runs as [`run`]. Also returns whether it recompiled.
pub fn run_dev(
    config: &str,
    cache_dir: &str,
) -> Result<(Outcome, bool), Box<dyn std::error::Error>> {
    let registry = registry();
    let options = wireplan::compiler::Options {
        catalogs: vec![wireplan::dev::registry_catalog(&registry)],
        ..wireplan::compiler::Options::default()
    };
    let loaded = wireplan::dev::load_or_compile_with(
        std::path::Path::new(config),
        std::path::Path::new(cache_dir),
        &options,
        Container::builder(&registry),
    )?;
    say(format_args!(
        "{} {}",
        if loaded.recompiled {
            "compiled"
        } else {
            "loaded cached"
        },
        loaded.plan_path.display()
    ));
    Ok((run_container(&loaded.container)?, loaded.recompiled))
}

/// Prints a line to standard output; a closed output (`blog | head`) ends nothing and panics
/// nothing (`println!` panics on a broken pipe).
fn say(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

fn run_container(container: &Container) -> Result<Outcome, Box<dyn std::error::Error>> {
    let blog = container.get::<BlogService>("blog")?;
    let published = blog.publish_digest();

    // Singletons are shared: the logger the repositories got through the `logaware` extension
    // is the one the container hands out by type.
    let logger = container.get_by_type::<dyn Logger>()?;
    let via_setup = blog
        .articles
        .logger
        .clone()
        .ok_or("articles has no logger")?;
    let shared = Arc::ptr_eq(&logger, &via_setup);
    say(format_args!(
        "published {published} articles; {} log lines; logger shared: {shared}",
        logger.lines().len()
    ));
    if !shared {
        return Err("the logger singleton was not shared".into());
    }
    Ok(Outcome {
        published,
        log_lines: logger.lines(),
        logger_shared: shared,
        blog_shared: Arc::ptr_eq(&blog, &container.get::<BlogService>("blog")?),
    })
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Invocation<'a> {
    /// `blog PLAN`: load a compiled plan.
    Run(&'a str),
    /// `blog --dev CONFIG CACHE_DIR`: dev mode.
    Dev(&'a str, &'a str),
}

/// The invocation `args` (without the program name) asks for; `None` for anything else, such
/// as `--dev` without its two paths (which is not a plan file called `--dev`).
pub fn invocation(args: &[String]) -> Option<Invocation<'_>> {
    match args {
        [flag, config, cache] if flag == "--dev" => Some(Invocation::Dev(config, cache)),
        [plan] if !plan.starts_with("--") => Some(Invocation::Run(plan)),
        _ => None,
    }
}

fn main() -> ExitCode {
    // `WIREPLAN_WRITE_CATALOG=examples/blog/catalog.json` writes the catalog and exits.
    wireplan_runtime::catalog::write_if_requested(&registry());
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match invocation(&args) {
        Some(Invocation::Dev(config, cache)) => run_dev(config, cache).map(|(o, _)| o),
        Some(Invocation::Run(plan)) => run(plan),
        None => {
            eprintln!(
                "usage: blog PLAN | blog --dev CONFIG CACHE_DIR (compile a plan with \
                 `wireplan compile examples/blog/config/app.neon --catalog \
                 examples/blog/catalog.json -o PLAN`)"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
