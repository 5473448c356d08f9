//! A small application of 23 classes and 4 interfaces registered with `#[class]` and
//! `#[interface]` only, covering every kind of item the derive offers. `manual.rs` registers
//! the same types with `register!`, for the catalog comparison in `tests/derive.rs`.

#![allow(dead_code)]

pub mod manual;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use wireplan_runtime::{BoxError, Callable, Registry, Value};

/// Registers every type of this module through the derive.
pub fn derived_registry() -> Registry {
    let mut r = Registry::new();
    r.register::<Clock>()
        .register::<FileLogger>()
        .register::<NullLogger>()
        .register::<Database>()
        .register::<Config>()
        .register::<Cache>()
        .register::<MemoryStorage>()
        .register::<DiskStorage>()
        .register::<Mailer>()
        .register::<EmailNotifier>()
        .register::<LogNotifier>()
        .register::<SmsNotifier>()
        .register::<NotifierHub>()
        .register::<Router>()
        .register::<HomeHandler>()
        .register::<ApiHandler>()
        .register::<BaseHandler>()
        .register::<LoggerFactory>()
        .register::<Scheduler>()
        .register::<Metrics>()
        .register::<Session>()
        .register::<Settings>()
        .register::<AppKernel>();
    r
}

#[wireplan_runtime::interface("App\\Logger")]
pub trait Logger: Send + Sync {
    fn log(&self, message: &str);
    fn name(&self) -> String;
}

#[wireplan_runtime::interface("App\\Notifier")]
pub trait Notifier: Send + Sync {
    fn notify(&self, message: &str) -> String;
}

/// Named by default: `Storage`.
#[wireplan_runtime::interface]
pub trait Storage: Send + Sync {
    fn capacity(&self) -> i64;
}

#[wireplan_runtime::interface("App\\Handler")]
pub trait Handler: Send + Sync {
    fn path(&self) -> String;
}

pub struct Clock {
    pub now: i64,
}

#[wireplan_runtime::class("App\\Clock")]
impl Clock {
    #[constructor]
    pub fn new() -> Self {
        Clock { now: 1_700_000_000 }
    }

    #[getter]
    pub fn now(&self) -> i64 {
        self.now
    }

    #[constant]
    pub const EPOCH: i64 = 0;
}

pub struct FileLogger {
    pub path: String,
    pub level: i64,
    pub verbose: bool,
    pub lines: Mutex<Vec<String>>,
}

impl Logger for FileLogger {
    fn log(&self, message: &str) {
        self.lines.lock().unwrap().push(message.to_string());
    }
    fn name(&self) -> String {
        self.path.clone()
    }
}

/// Counts `FileLogger` dispose hook calls (tests read it after dropping a container).
pub static FILE_LOGGERS_CLOSED: AtomicI64 = AtomicI64::new(0);

#[wireplan_runtime::class("App\\FileLogger", implements(dyn Logger))]
impl FileLogger {
    #[constructor]
    pub fn new(path: String, #[default(3)] level: i64) -> Self {
        FileLogger {
            path,
            level,
            verbose: false,
            lines: Mutex::default(),
        }
    }

    #[method]
    pub fn set_level(&mut self, level: i64) {
        self.level = level;
    }

    #[method]
    pub fn line_count(&self) -> i64 {
        self.lines.lock().unwrap().len() as i64
    }

    #[getter]
    pub fn path(&self) -> String {
        self.path.clone()
    }

    #[property]
    pub fn set_verbose(&mut self, on: bool) {
        self.verbose = on;
    }

    #[dispose]
    pub fn close(&self) {
        FILE_LOGGERS_CLOSED.fetch_add(1, Ordering::SeqCst);
    }

    #[constant]
    pub const MAX_LEVEL: i64 = 9;

    /// Not registered: plain Rust stays as it is.
    pub fn helper(&self, prefix: &str) -> String {
        format!("{prefix}{}", self.path)
    }
}

pub struct NullLogger;

impl Logger for NullLogger {
    fn log(&self, _message: &str) {}
    fn name(&self) -> String {
        "null".into()
    }
}

/// No catalog name: registered as `NullLogger`; its constructor hands out an `Arc`.
#[wireplan_runtime::class(implements(dyn Logger))]
impl NullLogger {
    #[constructor]
    pub fn shared() -> Arc<Self> {
        Arc::new(NullLogger)
    }
}

pub struct Database {
    pub dsn: String,
}

#[wireplan_runtime::class("App\\Database")]
impl Database {
    #[constructor]
    pub fn open(dsn: String) -> Result<Self, String> {
        if dsn.is_empty() {
            return Err("the DSN is empty".into());
        }
        Ok(Database { dsn })
    }

    #[method]
    pub fn query(&self, sql: String) -> Result<i64, String> {
        if sql.starts_with("SELECT") {
            Ok(sql.len() as i64)
        } else {
            Err(format!("not a query: {sql}"))
        }
    }
}

pub struct Config {
    pub values: IndexMap<String, Value>,
    pub list: Vec<Value>,
}

#[wireplan_runtime::class("App\\Config")]
impl Config {
    #[constructor]
    pub fn new(values: IndexMap<String, Value>, list: Vec<Value>) -> Self {
        Config { values, list }
    }

    #[getter]
    pub fn get_size(&self) -> i64 {
        (self.values.len() + self.list.len()) as i64
    }
}

pub struct Cache {
    pub storage: Arc<dyn Storage>,
    pub ttl: Option<i64>,
}

#[wireplan_runtime::class("App\\Cache")]
impl Cache {
    #[constructor]
    pub fn new(storage: Arc<dyn Storage>, #[default(None)] ttl: Option<i64>) -> Self {
        Cache { storage, ttl }
    }
}

pub struct MemoryStorage {
    pub capacity: usize,
}

impl Storage for MemoryStorage {
    fn capacity(&self) -> i64 {
        self.capacity as i64
    }
}

#[wireplan_runtime::class("App\\MemoryStorage", implements(dyn Storage))]
impl MemoryStorage {
    #[constructor]
    pub fn new(capacity: usize) -> Self {
        MemoryStorage { capacity }
    }
}

pub struct DiskStorage {
    pub root: String,
    pub quota: u32,
}

impl Storage for DiskStorage {
    fn capacity(&self) -> i64 {
        i64::from(self.quota)
    }
}

#[wireplan_runtime::class("App\\DiskStorage", implements(dyn Storage))]
impl DiskStorage {
    #[constructor]
    pub fn mount(root: String, quota: u32) -> Result<Arc<Self>, BoxError> {
        if !root.starts_with('/') {
            return Err(format!("'{root}' is not an absolute path").into());
        }
        Ok(Arc::new(DiskStorage { root, quota }))
    }
}

pub struct Mailer {
    pub logger: Arc<dyn Logger>,
    pub from: String,
}

#[wireplan_runtime::class("App\\Mailer")]
impl Mailer {
    #[constructor]
    pub fn new(logger: Arc<dyn Logger>, #[default("noreply@example.com")] from: String) -> Self {
        Mailer { logger, from }
    }

    #[method]
    pub fn send(&self, to: String) -> bool {
        self.logger.log(&format!("mail from {} to {to}", self.from));
        to.contains('@')
    }
}

pub struct EmailNotifier {
    pub mailer: Arc<Mailer>,
}

impl Notifier for EmailNotifier {
    fn notify(&self, message: &str) -> String {
        format!("email from {}: {message}", self.mailer.from)
    }
}

#[wireplan_runtime::class("App\\EmailNotifier", implements(dyn Notifier))]
impl EmailNotifier {
    #[constructor]
    pub fn new(mailer: Arc<Mailer>) -> Self {
        EmailNotifier { mailer }
    }
}

pub struct LogNotifier {
    pub logger: Arc<dyn Logger>,
}

impl Notifier for LogNotifier {
    fn notify(&self, message: &str) -> String {
        format!("log {}: {message}", self.logger.name())
    }
}

#[wireplan_runtime::class("App\\LogNotifier", implements(dyn Notifier))]
impl LogNotifier {
    #[constructor]
    pub fn new(logger: Arc<dyn Logger>) -> Self {
        LogNotifier { logger }
    }
}

pub struct SmsNotifier {
    pub number: String,
    pub retries: i32,
}

impl Notifier for SmsNotifier {
    fn notify(&self, message: &str) -> String {
        format!("sms {} (x{}): {message}", self.number, self.retries)
    }
}

#[wireplan_runtime::class("App\\SmsNotifier", implements(dyn Notifier))]
impl SmsNotifier {
    #[constructor]
    pub fn new(number: String, #[default(2)] retries: i32) -> Self {
        SmsNotifier { number, retries }
    }
}

pub struct NotifierHub {
    pub notifiers: Vec<Arc<dyn Notifier>>,
}

#[wireplan_runtime::class("App\\NotifierHub")]
impl NotifierHub {
    #[constructor]
    pub fn new(notifiers: Vec<Arc<dyn Notifier>>) -> Self {
        NotifierHub { notifiers }
    }

    #[method(name = "broadcast")]
    pub fn notify_all(&self, message: String) -> Value {
        Value::List(
            self.notifiers
                .iter()
                .map(|n| Value::from(n.notify(&message)))
                .collect(),
        )
    }
}

pub struct Router {
    pub handlers: Vec<Arc<dyn Handler>>,
    pub fallback: Option<Arc<dyn Handler>>,
}

#[wireplan_runtime::class("App\\Router")]
impl Router {
    #[constructor]
    pub fn new(handlers: Vec<Arc<dyn Handler>>, fallback: Option<Arc<dyn Handler>>) -> Self {
        Router { handlers, fallback }
    }

    #[method]
    pub fn paths(&self) -> String {
        let v: Vec<String> = self.handlers.iter().map(|h| h.path()).collect();
        v.join(",")
    }
}

pub struct HomeHandler;

impl Handler for HomeHandler {
    fn path(&self) -> String {
        "/".into()
    }
}

#[wireplan_runtime::class("App\\HomeHandler", implements(dyn Handler))]
impl HomeHandler {
    #[constructor]
    pub fn new() -> Self {
        HomeHandler
    }
}

pub struct ApiHandler {
    pub version: f64,
}

impl Handler for ApiHandler {
    fn path(&self) -> String {
        format!("/api/v{}", self.version)
    }
}

#[wireplan_runtime::class("App\\ApiHandler", implements(dyn Handler), extends = "App\\BaseHandler")]
impl ApiHandler {
    #[constructor]
    pub fn new(#[default(1.5)] version: f64) -> Self {
        ApiHandler { version }
    }
}

pub struct BaseHandler {
    pub version: f64,
}

impl Handler for BaseHandler {
    fn path(&self) -> String {
        format!("/base/{}", self.version)
    }
}

/// Created only by its static factory.
#[wireplan_runtime::class("App\\BaseHandler", implements(dyn Handler), no_constructor)]
impl BaseHandler {
    #[static_method]
    pub fn create(version: f64) -> Self {
        BaseHandler { version }
    }

    #[constant(name = "API")]
    pub const API_NAME: &'static str = "base";
}

pub struct LoggerFactory;

#[wireplan_runtime::class("App\\LoggerFactory", no_constructor)]
impl LoggerFactory {
    #[static_method]
    pub fn create(path: String) -> Arc<FileLogger> {
        let mut logger = FileLogger::new(path, 3);
        logger.verbose = true;
        Arc::new(logger)
    }

    #[static_method]
    pub fn default_level() -> i64 {
        3
    }
}

pub struct Scheduler {
    pub clock: Arc<Clock>,
    pub job: Callable,
    pub jobs: Vec<String>,
}

#[wireplan_runtime::class("App\\Scheduler")]
impl Scheduler {
    #[constructor]
    pub fn new(clock: Arc<Clock>, job: Callable) -> Self {
        Scheduler {
            clock,
            job,
            jobs: Vec::new(),
        }
    }

    #[method(name = "addJob")]
    pub fn push_job(&mut self, name: String) -> Result<(), String> {
        if self.jobs.contains(&name) {
            return Err(format!("job '{name}' is already scheduled"));
        }
        self.jobs.push(name);
        Ok(())
    }

    #[method]
    pub fn fire(&self, amount: i64) -> Result<Value, BoxError> {
        self.job
            .call(vec![Value::from("tick"), Value::from(amount)])
    }
}

pub struct Metrics {
    pub total: AtomicI64,
}

#[wireplan_runtime::class("App\\Metrics")]
impl Metrics {
    #[constructor]
    pub fn new() -> Self {
        Metrics {
            total: AtomicI64::new(0),
        }
    }

    #[method]
    pub fn record(&self, name: String, #[default(1)] amount: i64) -> i64 {
        let _ = name;
        self.total.fetch_add(amount, Ordering::SeqCst) + amount
    }

    #[method]
    pub fn reset(&self) {
        self.total.store(0, Ordering::SeqCst);
    }

    #[method]
    pub fn check(&self, limit: i64) -> Result<(), String> {
        match self.total.load(Ordering::SeqCst) {
            t if t > limit => Err(format!("total {t} is over {limit}")),
            _ => Ok(()),
        }
    }

    #[getter]
    pub fn total(&self) -> i64 {
        self.total.load(Ordering::SeqCst)
    }
}

pub struct Session {
    pub user: Option<String>,
    pub admin: bool,
    pub data: Value,
    /// Filled by the inject step (`#[property(inject)]`).
    pub clock: Option<Arc<Clock>>,
}

#[wireplan_runtime::class("App\\Session")]
impl Session {
    #[constructor]
    pub fn start(user: Option<String>, #[default(false)] admin: bool) -> Self {
        Session {
            user,
            admin,
            data: Value::Null,
            clock: None,
        }
    }

    #[property(inject)]
    pub fn set_clock(&mut self, clock: Arc<Clock>) {
        self.clock = Some(clock);
    }

    #[property]
    pub fn set_user(&mut self, user: Option<String>) {
        self.user = user;
    }

    #[property(name = "payload")]
    pub fn store(&mut self, data: Value) {
        self.data = data;
    }

    #[getter]
    pub fn get_user(&self) -> String {
        self.user.clone().unwrap_or_default()
    }
}

pub struct Settings {
    pub max_ratio: f64,
    pub name: String,
}

#[wireplan_runtime::class("App\\Settings")]
impl Settings {
    #[constructor]
    pub fn new(#[default(0.5)] max_ratio: f64, #[default(Settings::DEFAULT)] name: String) -> Self {
        Settings { max_ratio, name }
    }

    #[constant(name = "DEFAULT_NAME")]
    pub const DEFAULT: &'static str = "app";

    #[constant]
    pub const ENABLED: bool = true;
}

pub struct AppKernel {
    pub router: Arc<Router>,
    pub hub: Arc<NotifierHub>,
    pub cache: Arc<Cache>,
    pub metrics: Arc<Metrics>,
    pub scheduler: Arc<Scheduler>,
}

#[wireplan_runtime::class("App\\Kernel")]
impl AppKernel {
    #[constructor]
    pub fn new(
        router: Arc<Router>,
        hub: Arc<NotifierHub>,
        cache: Arc<Cache>,
        metrics: Arc<Metrics>,
        scheduler: Arc<Scheduler>,
    ) -> Self {
        AppKernel {
            router,
            hub,
            cache,
            metrics,
            scheduler,
        }
    }

    #[static_method]
    pub fn version() -> String {
        "1.0".into()
    }
}
