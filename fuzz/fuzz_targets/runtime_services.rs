//! Fuzzes the runtime: a fuzzed plan (JSON or binary) is loaded against a fixed registry and
//! every service is created, in and out of a scope. Anything may fail with an error; nothing
//! may panic, overflow the stack or hang. Input that is neither JSON nor starts with the binary
//! magic is taken as a binary payload and given a valid header (version, length, checksum),
//! so mutations reach the payload reader (the load that reads straight into the container's
//! tables) instead of stopping at the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};
use wireplan_runtime::encoding::{checksum, BINARY_HEADER_LEN, BINARY_MAGIC};
use wireplan_runtime::{Container, Registry};

trait Logger: Send + Sync {
    fn level(&self) -> i64;
}

struct FileLogger {
    path: String,
    level: i64,
}

impl Logger for FileLogger {
    fn level(&self) -> i64 {
        self.level
    }
}

struct Db {
    dsn: String,
    logger: Option<Arc<dyn Logger>>,
}

struct Clock;

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::new();
        r.interface::<dyn Logger>("App\\Logger");
        r.class::<FileLogger>("App\\FileLogger")
            .constructor(|a| {
                Ok(FileLogger {
                    path: a.str(0)?.to_string(),
                    level: 0,
                })
            })
            .implements::<dyn Logger>("App\\Logger", |l| l)
            .method_mut("setLevel", |l, a| {
                l.level = a.int(0)?;
                Ok(())
            })
            .getter("path", |l| l.path.clone());
        r.class::<Db>("App\\Db").constructor(|a| {
            Ok(Db {
                dsn: a.str(0)?.to_string(),
                logger: a.opt_service::<dyn Logger>(1)?,
            })
        });
        r.class::<Clock>("App\\Clock")
            .constructor(|_| Ok(Clock))
            .static_method("now", |_| Ok(0i64))
            .constant("EPOCH", 1970i64);
        r
    })
}

fuzz_target!(|data: &[u8]| {
    let registry = registry();
    let loaded = match std::str::from_utf8(data) {
        Ok(text) if text.trim_start().starts_with('{') => Container::builder(registry)
            .read_environment(false)
            .from_json_str(text),
        _ if data.starts_with(BINARY_MAGIC) => Container::builder(registry)
            .read_environment(false)
            .from_bytes(data),
        _ => {
            let mut bytes = Vec::with_capacity(BINARY_HEADER_LEN + data.len());
            bytes.extend_from_slice(BINARY_MAGIC);
            bytes.extend_from_slice(&wireplan_runtime::plan::VERSION.to_le_bytes());
            bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
            bytes.extend_from_slice(&checksum(data).to_le_bytes());
            bytes.extend_from_slice(data);
            Container::builder(registry)
                .read_environment(false)
                .from_bytes(&bytes)
        }
    };
    let Ok(container) = loaded else {
        return;
    };
    let names: Vec<String> = container.service_names().map(str::to_string).collect();
    for name in &names {
        let _ = container.get_instance(name);
    }
    let scope = container.scope();
    for name in &names {
        let _ = scope.get_instance(name);
    }
    drop(scope);
    let _ = container.initialize();
    if let Ok(db) = container.get::<Db>("db") {
        let _ = (db.dsn.len(), db.logger.as_ref().map(|l| l.level()));
    }
});
