//! [`ContainerBuilder`]: reading a plan and checking it before anything is created.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::check::Checker;
use super::lock::BuildLock;
use super::{Container, Inner};
use crate::error::Error;
use crate::plan::{Lifespan, Plan, ServiceKind, FORMAT, VERSION};
use crate::registry::Registry;
use crate::value::{Instance, Value};
use rustc_hash::FxHashMap;

/// Options for loading a plan; start with [`Container::builder`].
///
/// ```no_run
/// # use std::sync::Arc;
/// # use wireplan_runtime::{Container, Registry};
/// # struct Clock;
/// # let registry = Registry::new();
/// let container = Container::builder(&registry)
///     .parameter("tempDir", "/var/tmp/app")
///     .import("clock", Arc::new(Clock))
///     .load("app.plan.bin")?;
/// # Ok::<(), wireplan_runtime::Error>(())
/// ```
pub struct ContainerBuilder<'r> {
    registry: &'r Registry,
    dynamic: HashMap<String, Value>,
    read_env: bool,
    imports: Vec<(String, Instance)>,
}

impl<'r> ContainerBuilder<'r> {
    pub(crate) fn new(registry: &'r Registry) -> ContainerBuilder<'r> {
        ContainerBuilder {
            registry,
            dynamic: HashMap::new(),
            read_env: true,
            imports: Vec::new(),
        }
    }

    /// Sets the dynamic parameter `name`, read by `{"$param": name}`. A value given here also
    /// wins over the environment for `env.X` names. When the plan declares the parameter's
    /// type (its `dynamic` section), the value is converted at load (`"8080"` becomes the int
    /// 8080) and a value that does not convert is an [`Error::DynamicParameters`], as is an
    /// int outside the range of a parameter that reads it (`-3` for a `usize`).
    pub fn parameter(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.dynamic.insert(name.to_string(), value.into());
        self
    }

    /// Sets several dynamic parameters at once (e.g. from a `HashMap<String, String>` read from
    /// the command line); as [`ContainerBuilder::parameter`] for each pair.
    pub fn parameters<K, V>(mut self, values: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<Value>,
    {
        for (k, v) in values {
            self.dynamic.insert(k.into(), v.into());
        }
        self
    }

    /// Whether `{"$param": "env.X"}` may read the environment variable `X` (default `true`).
    pub fn read_environment(mut self, yes: bool) -> Self {
        self.read_env = yes;
        self
    }

    /// Supplies the object of the imported service `name` (`imported: true` in the
    /// configuration). Every imported service of the plan must be supplied, and only those.
    pub fn import<T: Any + Send + Sync>(self, name: &str, object: Arc<T>) -> Self {
        self.import_instance(name, Instance::new(object))
    }

    /// As [`ContainerBuilder::import`], with an erased object.
    pub fn import_instance(mut self, name: &str, object: Instance) -> Self {
        self.imports.push((name.to_string(), object));
        self
    }

    /// Reads and loads a plan file, JSON or binary (recognised by content). Errors as
    /// [`Container::load`]; all name the file.
    pub fn load(self, path: impl AsRef<Path>) -> Result<Container, Error> {
        let (bytes, origin) = crate::encoding::read_plan_file(path.as_ref())?;
        self.load_bytes(std::borrow::Cow::Owned(bytes), &origin)
    }

    /// Loads a JSON plan from a string; errors call it `<string>`.
    pub fn from_json_str(self, json: &str) -> Result<Container, Error> {
        self.from_json_str_named(json, "<string>")
    }

    /// Loads a JSON plan from a string; errors call it `origin` (e.g. the file it came from).
    pub fn from_json_str_named(self, json: &str, origin: &str) -> Result<Container, Error> {
        let plan = Plan::from_json_str(json, origin)?;
        self.build(plan, origin)
    }

    /// Loads a plan in either form from bytes; errors call it `<bytes>`.
    pub fn from_bytes(self, bytes: &[u8]) -> Result<Container, Error> {
        self.from_bytes_named(bytes, "<bytes>")
    }

    /// Loads a plan in either form from bytes; errors call it `origin`.
    pub fn from_bytes_named(self, bytes: &[u8], origin: &str) -> Result<Container, Error> {
        self.load_bytes(std::borrow::Cow::Borrowed(bytes), origin)
    }

    /// [`Self::from_bytes_named`] over bytes it may own (a file it read): a container read
    /// straight into its tables keeps them for its model instead of a copy.
    fn load_bytes(
        self,
        bytes: std::borrow::Cow<'_, [u8]>,
        origin: &str,
    ) -> Result<Container, Error> {
        // A binary plan is read straight into the container's tables when it has the shape
        // `stream` takes (an application's ordinary plan); anything else, and every plan with
        // a problem, goes through the plan model and its checks.
        if bytes.starts_with(crate::encoding::BINARY_MAGIC) && self.imports.is_empty() {
            let (payload, version) = crate::encoding::binary_payload(&bytes, origin)?;
            let streamed = super::stream::read(
                payload,
                version,
                self.registry,
                &self.dynamic,
                self.read_env,
            );
            if let Some(streamed) = streamed {
                // The payload is everything after the header (`binary_payload`).
                let range = crate::encoding::BINARY_HEADER_LEN..bytes.len();
                let model = super::Model::deferred(bytes, range, version);
                return Ok(self.assemble(streamed, model, origin));
            }
        }
        let plan = Plan::from_bytes(&bytes, origin)?;
        self.build(plan, origin)
    }

    /// The container of a plan read straight into its tables (see `stream`).
    fn assemble(self, s: super::stream::Streamed, model: super::Model, origin: &str) -> Container {
        let n = s.names.len();
        let inner = Arc::new_cyclic(|me| Inner {
            model,
            own: Some(super::OwnTables {
                names: s.names,
                aliases: s.aliases,
                types: s.types,
                parameters: s.parameters,
            }),
            has_initialization: false,
            program: s.program,
            registry: self.registry.clone(),
            origin: origin.to_string(),
            slots: (0..n).map(|_| OnceLock::new()).collect(),
            scoped_slot: s.scoped_slot,
            slot_types: vec![None; s.scoped_count],
            scoped_count: s.scoped_count,
            tags: s.tags,
            dynamic: {
                let mut dynamic = self.dynamic;
                dynamic.extend(s.resolved);
                dynamic
            },
            read_env: self.read_env,
            lock: BuildLock::for_container(),
            gates: super::async_resolve::Gates::default(),
            created: super::order::CreationOrder::new(n),
            by_type: OnceLock::new(),
            me: me.clone(),
        });
        Container { inner }
    }

    /// Uses a plan already in memory; errors call it `<plan>`.
    pub fn from_plan(self, plan: Plan) -> Result<Container, Error> {
        self.build(plan, "<plan>")
    }

    /// Uses a plan already in memory; errors call it `origin`.
    pub fn from_plan_named(self, plan: Plan, origin: &str) -> Result<Container, Error> {
        self.build(plan, origin)
    }

    fn build(self, plan: Plan, origin: &str) -> Result<Container, Error> {
        let bad = |reason: String| Error::BadPlan {
            origin: origin.to_string(),
            reason,
        };
        if plan.format != FORMAT {
            return Err(bad(format!(
                "format is '{}', expected '{FORMAT}' (not a wireplan plan)",
                plan.format
            )));
        }
        if !crate::encoding::readable(plan.version.into()) {
            return Err(Error::VersionMismatch {
                origin: origin.to_string(),
                found: plan.version.into(),
                expected: VERSION,
            });
        }
        // One pass over the services for what the set-up needs of their kinds and lifespans
        // (each later step that only concerns slots or imported services is skipped when the
        // plan has none: a pass over 10,000 entries of ~400 bytes is not free).
        let (mut scoped_count, mut any_slot, mut any_import) = (0usize, false, false);
        let scoped_slot: Vec<Option<u32>> = plan
            .services
            .values()
            .map(|sp| {
                any_slot |= sp.kind == ServiceKind::Slot;
                any_import |= sp.kind == ServiceKind::Imported;
                (sp.lifespan == Lifespan::Scoped && sp.kind != ServiceKind::Imported).then(|| {
                    scoped_count += 1;
                    (scoped_count - 1) as u32
                })
            })
            .collect();
        // Every declared dynamic parameter is resolved (given, from the environment, or its
        // default) and converted to its type now, so the program compiled during the check can
        // fold them; their problems are reported after the plan's own, all together.
        let (resolved, mut dynamic_problems) =
            crate::dynamic::resolve(&plan, &self.dynamic, self.read_env);
        if plan.version >= 3 {
            dynamic_problems.extend(crate::dynamic::static_given(
                &plan.parameters,
                &plan.dynamic,
                &self.dynamic,
            ));
        }
        let mut dynamic = self.dynamic;
        // Only values converted to a declared type are checked against the constructors'
        // parameters: one that failed its conversion is reported as that, once.
        let declared_values = resolved.clone();
        dynamic.extend(resolved);

        // One pass over the services: each is checked, then compiled while its plan is in
        // cache (nothing is compiled once a problem is found; the plan is refused then).
        let mut compiler = super::program::Compiler::new(&plan, self.registry, &dynamic);
        let mut check = Checker::new(&plan, self.registry).with_dynamic(&declared_values);
        check.run(|(i, sp, entry, refs)| compiler.service(i, sp, entry, refs));
        check
            .problems
            .extend(crate::dynamic::section_problems(&plan.dynamic));
        if any_slot {
            check.problems.extend(crate::plan::slot_problems(&plan));
        }
        // A singleton that holds a scoped service (a plan edited after compiling: the
        // compiler refuses to write one) would fail when first created, outside any scope.
        if scoped_count > 0 {
            check.problems.extend(crate::plan::captives(&plan));
        }
        let tags = check.tag_values();
        // Every kind of problem is gathered before any is reported (one run shows them all).
        let mut errors = Vec::new();
        if !check.problems.is_empty() {
            let list: String = check
                .problems
                .iter()
                .map(|p| format!("\n  - {p}"))
                .collect();
            errors.push(bad(format!("{} problem(s):{list}", check.problems.len())));
        }
        if !check.missing.is_empty() {
            let registered = self.registry.t.classes.len();
            errors.push(match check.used {
                (used, 0) if used > 0 && registered > 0 => Error::ForeignPlan {
                    origin: origin.to_string(),
                    used,
                    registered,
                    missing: std::mem::take(&mut check.missing),
                },
                _ => Error::MissingRegistrations {
                    origin: origin.to_string(),
                    missing: std::mem::take(&mut check.missing),
                },
            });
        }

        let slots: Vec<OnceLock<Instance>> =
            (0..plan.services.len()).map(|_| OnceLock::new()).collect();
        let mut unknown = Vec::new();
        for (name, inst) in self.imports {
            match plan.services.get_full(name.as_str()) {
                Some((i, _, sp)) if sp.kind == ServiceKind::Imported => {
                    let _ = slots[i].set(inst);
                }
                _ => unknown.push(name),
            }
        }
        let missing: Vec<String> = if any_import {
            plan.services
                .iter()
                .enumerate()
                .filter(|(i, (_, sp))| {
                    sp.kind == ServiceKind::Imported && slots[*i].get().is_none()
                })
                .map(|(_, (n, _))| n.to_string())
                .collect()
        } else {
            Vec::new()
        };
        if !missing.is_empty() || !unknown.is_empty() {
            errors.push(Error::Imports {
                origin: origin.to_string(),
                missing,
                unknown,
            });
        }

        dynamic_problems.append(&mut check.out_of_range);
        if !dynamic_problems.is_empty() {
            errors.push(Error::DynamicParameters {
                origin: origin.to_string(),
                problems: dynamic_problems,
            });
        }
        match errors.len() {
            0 => {}
            1 => return Err(errors.remove(0)),
            _ => {
                return Err(Error::Several {
                    origin: origin.to_string(),
                    errors,
                })
            }
        }
        drop(check);
        let program = compiler.finish();
        let created = super::order::CreationOrder::new(slots.len());
        let slot_types = if any_slot {
            super::slots::slot_types(&plan, self.registry, &scoped_slot, scoped_count)
        } else {
            vec![None; scoped_count]
        };
        let inner = Arc::new_cyclic(|me| Inner {
            own: None,
            has_initialization: !plan.initialization.is_empty(),
            program,
            registry: self.registry.clone(),
            origin: origin.to_string(),
            slots,
            scoped_slot,
            slot_types,
            scoped_count,
            tags,
            dynamic,
            read_env: self.read_env,
            lock: BuildLock::for_container(),
            gates: super::async_resolve::Gates::default(),
            created,
            by_type: OnceLock::new(),
            me: me.clone(),
            model: super::Model::kept(plan),
        });
        Ok(Container { inner })
    }
}

/// The container's by-type table (see `Inner::by_type`): each registered Rust type whose
/// catalog name the plan autowires exactly one service for → that service's index. Built on
/// the first by-type request, not at load (a container asked only by name never needs it),
/// in one pass over the registry's type names, sized once (no rehash while it fills).
pub(super) fn by_type_table(inner: &Inner) -> FxHashMap<TypeId, super::ByType> {
    let (types, registry) = (inner.types(), &inner.registry);
    let mut by_type = FxHashMap::with_capacity_and_hasher(
        registry.t.names.len().min(types.len()),
        Default::default(),
    );
    for (tid, name) in registry.t.names.iter() {
        if let Some([one]) = types.get(name.as_str()).map(|names| names.as_slice()) {
            if let Some(i) = inner.service_index(one.as_str()) {
                by_type.insert(
                    *tid,
                    super::ByType {
                        idx: i,
                        cast: OnceLock::new(),
                    },
                );
            }
        }
    }
    by_type
}
