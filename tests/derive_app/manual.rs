//! The same types as `mod.rs`, registered by hand with `register!` (the manual way); the
//! bodies call the types' own functions. `register!` takes parameter names as the catalog
//! writes them (`maxRatio`), so they are not snake case here.

#![allow(non_snake_case)]

use std::sync::Arc;

use indexmap::IndexMap;
use wireplan_runtime::{register, Callable, Registry, Value};

use super::*;

/// Registers every type of the parent module through `register!`.
pub fn manual_registry() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Clock" => Clock {
        new() { Clock::new() }
        get now(&this) -> i64 { this.now() }
        const EPOCH = Clock::EPOCH;
    });
    register!(r, "App\\FileLogger" => FileLogger {
        new(path: String, level: i64 = 3) { FileLogger::new(path, level) }
        implements "App\\Logger" => dyn Logger;
        fn setLevel(&mut this, level: i64) { this.set_level(level); }
        fn lineCount(&this) -> i64 { this.line_count() }
        get path(&this) -> String { this.path() }
        property verbose(&mut this, on: bool) { this.set_verbose(on); }
        dispose(&this) { this.close(); }
        const MAX_LEVEL = FileLogger::MAX_LEVEL;
    });
    register!(r, "NullLogger" => NullLogger {
        new() { NullLogger }
        implements "App\\Logger" => dyn Logger;
    });
    register!(r, "App\\Database" => Database {
        new(dsn: String) { Database::open(dsn)? }
        fn query(&this, sql: String) -> i64 { this.query(sql)? }
    });
    register!(r, "App\\Config" => Config {
        new(values: IndexMap<String, Value>, list: Vec<Value>) { Config::new(values, list) }
        get size(&this) -> i64 { this.get_size() }
    });
    register!(r, "App\\Cache" => Cache {
        new(storage: Arc<dyn Storage>, ttl: Option<i64> = Value::Null) { Cache::new(storage, ttl) }
    });
    register!(r, "App\\MemoryStorage" => MemoryStorage {
        new(capacity: usize) { MemoryStorage::new(capacity) }
        implements "Storage" => dyn Storage;
    });
    register!(r, "App\\DiskStorage" => DiskStorage {
        new(root: String, quota: u32) { DiskStorage { root, quota } }
        implements "Storage" => dyn Storage;
    });
    register!(r, "App\\Mailer" => Mailer {
        new(logger: Arc<dyn Logger>, from: String = "noreply@example.com") { Mailer::new(logger, from) }
        fn send(&this, to: String) -> bool { this.send(to) }
    });
    register!(r, "App\\EmailNotifier" => EmailNotifier {
        new(mailer: Arc<Mailer>) { EmailNotifier::new(mailer) }
        implements "App\\Notifier" => dyn Notifier;
    });
    register!(r, "App\\LogNotifier" => LogNotifier {
        new(logger: Arc<dyn Logger>) { LogNotifier::new(logger) }
        implements "App\\Notifier" => dyn Notifier;
    });
    register!(r, "App\\SmsNotifier" => SmsNotifier {
        new(number: String, retries: i32 = 2) { SmsNotifier::new(number, retries) }
        implements "App\\Notifier" => dyn Notifier;
    });
    register!(r, "App\\NotifierHub" => NotifierHub {
        new(notifiers: Vec<Arc<dyn Notifier>>) { NotifierHub::new(notifiers) }
        fn broadcast(&this, message: String) -> Value { this.notify_all(message) }
    });
    register!(r, "App\\Router" => Router {
        new(handlers: Vec<Arc<dyn Handler>>, fallback: Option<Arc<dyn Handler>>) {
            Router::new(handlers, fallback)
        }
        fn paths(&this) -> String { this.paths() }
    });
    register!(r, "App\\HomeHandler" => HomeHandler {
        new() { HomeHandler::new() }
        implements "App\\Handler" => dyn Handler;
    });
    register!(r, "App\\ApiHandler" => ApiHandler {
        new(version: f64 = 1.5) { ApiHandler::new(version) }
        implements "App\\Handler" => dyn Handler;
        extends "App\\BaseHandler";
    });
    register!(r, "App\\BaseHandler" => BaseHandler {
        implements "App\\Handler" => dyn Handler;
        static fn create(version: f64) -> Arc<BaseHandler> { Arc::new(BaseHandler::create(version)) }
        const API = BaseHandler::API_NAME;
    });
    register!(r, "App\\LoggerFactory" => LoggerFactory {
        static fn create(path: String) -> Arc<FileLogger> { LoggerFactory::create(path) }
        static fn defaultLevel() -> i64 { LoggerFactory::default_level() }
    });
    register!(r, "App\\Scheduler" => Scheduler {
        new(clock: Arc<Clock>, job: Callable) { Scheduler::new(clock, job) }
        fn addJob(&mut this, name: String) { this.push_job(name)?; }
        fn fire(&this, amount: i64) -> Value { this.fire(amount)? }
    });
    register!(r, "App\\Metrics" => Metrics {
        new() { Metrics::new() }
        fn record(&this, name: String, amount: i64 = 1) -> i64 { this.record(name, amount) }
        fn reset(&this) { this.reset() }
        fn check(&this, limit: i64) { this.check(limit)? }
        get total(&this) -> i64 { this.total() }
    });
    register!(r, "App\\Session" => Session {
        new(user: Option<String>, admin: bool = false) { Session::start(user, admin) }
        property user(&mut this, user: Option<String>) { this.set_user(user); }
        inject property clock(&mut this, clock: Arc<Clock>) { this.set_clock(clock); }
        property payload(&mut this, data: Value) { this.store(data); }
        get user(&this) -> String { this.get_user() }
    });
    register!(r, "App\\Settings" => Settings {
        new(maxRatio: f64 = 0.5, name: String = Settings::DEFAULT) { Settings::new(maxRatio, name) }
        const DEFAULT_NAME = Settings::DEFAULT;
        const ENABLED = Settings::ENABLED;
    });
    register!(r, "App\\Kernel" => AppKernel {
        new(router: Arc<Router>, hub: Arc<NotifierHub>, cache: Arc<Cache>, metrics: Arc<Metrics>,
            scheduler: Arc<Scheduler>) {
            AppKernel::new(router, hub, cache, metrics, scheduler)
        }
        static fn version() -> String { AppKernel::version() }
    });
    r
}
