//! The binary payload read straight into the [`Plan`] model: one pass over the bytes, each
//! string allocated once where the model keeps it, every map and vector sized before it is
//! filled, no intermediate tree.
//!
//! The layout is the one [`super::mirror`] writes (postcard's encoding of the mirror types:
//! LEB128 varints for lengths, `u32` and enum variants, zigzag varints for `i64`, single bytes
//! for `u8`, `bool` and option tags, 8 little-endian bytes for `f64`). Decoding is strict, so a
//! damaged or crafted payload is an error rather than a different plan: expressions nest at
//! most [`MAX_DECODE_DEPTH`] levels, `kind` and `lifespan` codes must be known, no map has a
//! key twice, a length prefix cannot reserve more than the bytes left could hold, and nothing
//! may follow the plan.

use std::hash::BuildHasher;

use indexmap::map::Entry;
use indexmap::IndexMap;

use crate::dynamic::DynamicParam;
use crate::plan::{
    Autowired, CallTarget, Dependency, Expr, Lifespan, Name, NameHasher, NameMap, Plan,
    ServiceKind, ServicePlan, SourceLocation, TypeServices, MAX_EXPR_DEPTH,
};

/// How deeply expressions may nest in a binary payload. An expression's nesting counts one
/// level per expression (call targets included), at most one more than its JSON depth, which
/// the loader then checks against [`MAX_EXPR_DEPTH`] with its usual message; the slack only
/// keeps that message for the plans just over the limit. Anything deeper stops the decoder
/// before it recurses further.
pub(super) const MAX_DECODE_DEPTH: usize = MAX_EXPR_DEPTH + 8;

/// The bit of a service's `kind` byte that carries `requires_async` (version 3).
pub(super) const REQUIRES_ASYNC: u8 = 0x80;

/// Decodes a payload of plan version `version`: the plan and nothing after it. Errors say what
/// is wrong, without the "corrupt binary plan" prefix.
pub(crate) fn decode(payload: &[u8], version: u64) -> Result<Plan, String> {
    let mut r = Reader::new(payload);
    let plan = r.plan(version);
    if r.too_deep {
        // Reported as such wherever it happened (not as a problem of one service).
        return Err(format!(
            "an expression is nested more than {MAX_DECODE_DEPTH} levels deep (plans allow \
             {MAX_EXPR_DEPTH})"
        ));
    }
    let plan = plan?;
    let rest = payload.len() - r.at;
    if rest > 0 {
        return Err(format!("{rest} byte(s) after the end of the plan"));
    }
    Ok(plan)
}

/// A cursor over the payload.
pub(crate) struct Reader<'b> {
    pub(crate) buf: &'b [u8],
    pub(crate) at: usize,
    /// Set when an expression went past [`MAX_DECODE_DEPTH`]; the error then says so.
    pub(crate) too_deep: bool,
    /// The hasher of every empty `tags` and `references` map of a service, drawn once per
    /// plan (`IndexMap::new()` draws one from thread-local keys per map, twice per service).
    empty_hasher: std::hash::RandomState,
}

/// The smallest number of bytes one element of a sequence takes, per kind of element, so a
/// length prefix never reserves more than the rest of the payload could hold.
pub(crate) const MIN_PAIR: usize = 2; // a string (its length byte) and at least one more byte
pub(crate) const MIN_SERVICE: usize = 12;

impl<'b> Reader<'b> {
    /// A reader at the start of `payload`.
    pub(crate) fn new(payload: &'b [u8]) -> Reader<'b> {
        Reader {
            buf: payload,
            at: 0,
            too_deep: false,
            empty_hasher: std::hash::RandomState::new(),
        }
    }

    /// The next byte, not consumed.
    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.buf.get(self.at).copied()
    }

    fn end(&self, what: &str) -> String {
        format!(
            "the payload ends at byte {} in the middle of {what}",
            self.buf.len()
        )
    }

    #[inline]
    pub(crate) fn byte(&mut self, what: &str) -> Result<u8, String> {
        match self.buf.get(self.at) {
            Some(&b) => {
                self.at += 1;
                Ok(b)
            }
            None => Err(self.end(what)),
        }
    }

    /// A LEB128 varint of at most 64 bits.
    #[inline]
    pub(crate) fn varint(&mut self, what: &str) -> Result<u64, String> {
        // Most varints (lengths, variants, small numbers) are one byte.
        if let Some(&b) = self.buf.get(self.at) {
            if b < 0x80 {
                self.at += 1;
                return Ok(u64::from(b));
            }
        }
        self.varint_long(what)
    }

    /// [`Reader::varint`] past its one-byte case.
    #[inline(never)]
    fn varint_long(&mut self, what: &str) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte(what)?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(format!("a varint of {what} overflows 64 bits"));
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("a varint of {what} is longer than 10 bytes"))
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, String> {
        let v = self.varint(what)?;
        u32::try_from(v).map_err(|_| format!("{what} {v} does not fit in 32 bits"))
    }

    /// A sequence length, and how many elements of at least `min` bytes each may be reserved
    /// for it (never more than the rest of the payload could hold).
    pub(crate) fn len(&mut self, what: &str, min: usize) -> Result<(usize, usize), String> {
        let n = self.varint(what)?;
        let left = self.buf.len() - self.at;
        let n = usize::try_from(n).map_err(|_| format!("the length of {what} is too large"))?;
        Ok((n, n.min(left / min.max(1))))
    }

    pub(crate) fn bool(&mut self, what: &str) -> Result<bool, String> {
        match self.byte(what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(format!("{what}: {b} is not a boolean (0 or 1)")),
        }
    }

    /// An option tag: whether a value follows.
    pub(crate) fn some(&mut self, what: &str) -> Result<bool, String> {
        match self.byte(what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(format!("{what}: {b} is not an option tag (0 or 1)")),
        }
    }

    #[inline(always)]
    pub(crate) fn str(&mut self, what: &str) -> Result<&'b str, String> {
        let n = self.varint(what)?;
        let left = (self.buf.len() - self.at) as u64;
        if n > left {
            return Err(format!(
                "{what}: a string of {n} bytes, but only {left} byte(s) are left"
            ));
        }
        let bytes = &self.buf[self.at..self.at + n as usize];
        self.at += n as usize;
        // Nearly every string of a plan (names, classes, methods) is ASCII: checked inline,
        // without a call into the general UTF-8 validation.
        if bytes.is_ascii() {
            // SAFETY: ASCII bytes are valid UTF-8.
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        std::str::from_utf8(bytes).map_err(|e| format!("{what}: a string that is not UTF-8 ({e})"))
    }

    pub(crate) fn string(&mut self, what: &str) -> Result<String, String> {
        self.str(what).map(str::to_owned)
    }

    /// A name of the model: inline when it fits, no allocation.
    #[inline]
    pub(crate) fn name(&mut self, what: &str) -> Result<Name, String> {
        self.str(what).map(Name::from)
    }

    fn names(&mut self, what: &str) -> Result<TypeServices, String> {
        let (n, cap) = self.len(what, 1)?;
        let mut out = TypeServices::with_capacity(cap);
        for _ in 0..n {
            out.push(self.name(what)?);
        }
        Ok(out)
    }

    pub(crate) fn strings(&mut self, what: &str) -> Result<Vec<String>, String> {
        let (n, cap) = self.len(what, 1)?;
        let mut out = Vec::with_capacity(cap);
        for _ in 0..n {
            out.push(self.string(what)?);
        }
        Ok(out)
    }

    /// Whether an empty sequence follows (its length, a single 0 byte), consumed if so. Most
    /// services have no tags, setup, parameters or references: each is built empty in place,
    /// not through the general reader and a copy of what it returns.
    #[inline(always)]
    pub(crate) fn empty(&mut self) -> bool {
        let empty = self.buf.get(self.at) == Some(&0);
        self.at += usize::from(empty);
        empty
    }

    /// The `types` index: as [`Reader::map`] of [`Reader::names`], with the common entry that
    /// lists one service read in place (same checks, same errors).
    pub(crate) fn types(&mut self) -> Result<NameMap<TypeServices>, String> {
        const W: &str = "a type's services";
        let (n, cap) = self.len("type", MIN_PAIR)?;
        let mut out = NameMap::with_capacity_and_hasher(cap, NameHasher::default());
        for _ in 0..n {
            let key = self.str("type")?;
            let names = if self.buf.get(self.at) == Some(&1) {
                self.at += 1;
                TypeServices::from_buf([self.name(W)?])
            } else {
                self.names(W)?
            };
            match out.entry(Name::from(key)) {
                Entry::Vacant(e) => {
                    e.insert(names);
                }
                Entry::Occupied(_) => return Err(format!("type '{key}' appears twice")),
            }
        }
        Ok(out)
    }

    /// A sequence of `(name, T)` pairs as a map, refusing a name that comes twice (`what`
    /// names the entries in the error: "service 'db' appears twice").
    pub(crate) fn map<
        K: for<'s> From<&'s str> + std::hash::Hash + Eq,
        T,
        S: BuildHasher + Default,
    >(
        &mut self,
        what: &str,
        mut value: impl FnMut(&mut Self, &str) -> Result<T, String>,
    ) -> Result<IndexMap<K, T, S>, String> {
        let (n, cap) = self.len(what, MIN_PAIR)?;
        let mut out = IndexMap::with_capacity_and_hasher(cap, S::default());
        for _ in 0..n {
            let key = self.str(what)?;
            let v = value(self, key)?;
            match out.entry(K::from(key)) {
                Entry::Vacant(e) => {
                    e.insert(v);
                }
                Entry::Occupied(_) => return Err(format!("{what} '{key}' appears twice")),
            }
        }
        Ok(out)
    }

    pub(crate) fn exprs(&mut self, depth: usize) -> Result<Vec<Expr>, String> {
        const W: &str = "an expression";
        let (n, cap) = self.len("a list of expressions", 1)?;
        let mut out = Vec::with_capacity(cap);
        for _ in 0..n {
            // The common items (a reference, an integer, null) are read here and pushed
            // directly, not returned through `expr` (same codes, same checks).
            if depth < MAX_DECODE_DEPTH {
                match self.buf.get(self.at) {
                    Some(7) => {
                        self.at += 1;
                        out.push(Expr::Ref(self.name(W)?));
                        continue;
                    }
                    Some(2) => {
                        self.at += 1;
                        let z = self.varint(W)?;
                        out.push(Expr::Int(((z >> 1) as i64) ^ -((z & 1) as i64)));
                        continue;
                    }
                    Some(0) => {
                        self.at += 1;
                        out.push(Expr::Null);
                        continue;
                    }
                    _ => {}
                }
            }
            out.push(self.expr(depth)?);
        }
        Ok(out)
    }

    pub(crate) fn expr_map(
        &mut self,
        what: &str,
        depth: usize,
    ) -> Result<IndexMap<String, Expr>, String> {
        self.map(what, |r, _| r.expr(depth))
    }

    /// One expression at nesting level `depth` (0 for a top-level one).
    pub(crate) fn expr(&mut self, depth: usize) -> Result<Expr, String> {
        if depth >= MAX_DECODE_DEPTH {
            self.too_deep = true;
            return Err("expression nested too deep".into());
        }
        // The allowed depth takes some stack per level in a debug build: continue on a new
        // segment when a small thread stack runs low (checked every few levels only).
        if depth % 8 == 7 {
            return stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.expr_here(depth));
        }
        self.expr_here(depth)
    }

    fn expr_here(&mut self, depth: usize) -> Result<Expr, String> {
        const W: &str = "an expression";
        let inner = depth + 1;
        Ok(match self.varint(W)? {
            0 => Expr::Null,
            1 => Expr::Bool(self.bool(W)?),
            2 => {
                let z = self.varint(W)?;
                Expr::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
            }
            3 => {
                let Some(bytes) = self.buf.get(self.at..self.at + 8) else {
                    return Err(self.end("a float"));
                };
                self.at += 8;
                let mut w = [0u8; 8];
                w.copy_from_slice(bytes);
                Expr::Float(f64::from_le_bytes(w))
            }
            4 => Expr::Str(self.string(W)?),
            5 => Expr::List(self.exprs(inner)?),
            6 => Expr::Map(self.expr_map("map key", inner)?),
            7 => Expr::Ref(self.name(W)?),
            8 => Expr::New {
                class: self.name(W)?,
                args: self.exprs(inner)?,
            },
            9 => Expr::Call {
                target: self.target(inner)?,
                method: self.string(W)?,
                args: self.exprs(inner)?,
            },
            10 => Expr::Set {
                target: self.target(inner)?,
                property: self.string(W)?,
                value: Box::new(self.expr(inner)?),
            },
            11 => Expr::Param(self.string(W)?),
            12 => Expr::Concat(self.exprs(inner)?),
            13 => Expr::Arg(self.string(W)?),
            14 => Expr::Get {
                target: self.target(inner)?,
                property: self.string(W)?,
            },
            15 => Expr::Callable {
                target: self.target(inner)?,
                method: self.string(W)?,
            },
            16 => Expr::Func {
                name: self.string(W)?,
                arg: Box::new(self.expr(inner)?),
            },
            17 => Expr::ArgOr {
                name: self.string(W)?,
                default: Box::new(self.expr(inner)?),
            },
            18 => Expr::Provider(self.string(W)?),
            v => return Err(format!("unknown expression variant {v}")),
        })
    }

    /// A call target; an expression target is one level below the expression naming it.
    pub(crate) fn target(&mut self, depth: usize) -> Result<CallTarget, String> {
        Ok(match self.varint("a call target")? {
            0 => CallTarget::Class(self.string("a call target")?),
            1 => CallTarget::SelfObject,
            2 => CallTarget::Expr(Box::new(self.expr(depth)?)),
            v => return Err(format!("unknown call target variant {v}")),
        })
    }

    #[inline(always)]
    fn service(&mut self) -> Result<ServicePlan, String> {
        let code = self.byte("a service")?;
        let kind = match code & !REQUIRES_ASYNC {
            0 => ServiceKind::Service,
            1 => ServiceKind::Factory,
            2 => ServiceKind::Accessor,
            3 => ServiceKind::Locator,
            4 => ServiceKind::Imported,
            5 => ServiceKind::Slot,
            _ => {
                return Err(format!(
                    "unknown kind {code} (0 service, 1 factory, 2 accessor, 3 locator, 4 \
                     imported, 5 slot)"
                ))
            }
        };
        let type_ = self.name("a service type")?;
        let lifespan = match self.byte("a service")? {
            0 => Lifespan::Singleton,
            1 => Lifespan::Scoped,
            2 => Lifespan::Transient,
            l => {
                return Err(format!(
                    "unknown lifespan {l} (0 singleton, 1 scoped, 2 transient)"
                ))
            }
        };
        let autowired = match self.varint("autowired")? {
            0 => Autowired::All(self.bool("autowired")?),
            1 => Autowired::Types(self.strings("autowired types")?),
            v => return Err(format!("unknown autowired variant {v}")),
        };
        let tags = if self.empty() {
            IndexMap::with_hasher(self.empty_hasher.clone())
        } else {
            self.expr_map("tag", 0)?
        };
        // The common `create`, a `$new`, is read in place (as `expr` at depth 0 would).
        let create = if self.buf.get(self.at) == Some(&8) {
            self.at += 1;
            Expr::New {
                class: self.name("an expression")?,
                args: self.exprs(1)?,
            }
        } else {
            self.expr(0)?
        };
        let setup = if self.empty() {
            Vec::new()
        } else {
            self.exprs(0)?
        };
        let implement = if self.some("implement")? {
            Some(self.string("implement")?)
        } else {
            None
        };
        let parameters = if self.empty() {
            Vec::new()
        } else {
            self.strings("parameters")?
        };
        let references = if self.empty() {
            IndexMap::with_hasher(self.empty_hasher.clone())
        } else {
            self.expr_map("reference", 0)?
        };
        let source = if self.some("source")? {
            Some(SourceLocation {
                file: self.string("source")?,
                line: self.u32("a source line")?,
                column: self.u32("a source column")?,
            })
        } else {
            None
        };
        Ok(ServicePlan {
            kind,
            type_,
            lifespan,
            autowired,
            tags,
            create,
            setup,
            implement,
            parameters,
            references,
            source,
            requires_async: code & REQUIRES_ASYNC != 0,
        })
    }

    /// The `dynamic` section (plan version 3 and later): name → declared type, default,
    /// required, sensitive.
    pub(crate) fn dynamic_section(&mut self) -> Result<IndexMap<String, DynamicParam>, String> {
        self.map("dynamic parameter", |r, _| {
            let type_ = if r.some("a dynamic parameter")? {
                Some(r.string("a dynamic parameter type")?)
            } else {
                None
            };
            let default = if r.some("a dynamic parameter")? {
                Some(r.expr(0)?)
            } else {
                None
            };
            Ok(DynamicParam {
                type_,
                default,
                required: r.bool("required")?,
                sensitive: r.bool("sensitive")?,
            })
        })
    }

    /// The `signatures` section (plan version 4 and later): a constructor (`App\Repo`) or
    /// method (`App\Repo::connect`) → its parameter names joined by `", "`.
    pub(crate) fn signatures_section(&mut self) -> Result<NameMap<Name>, String> {
        self.map("signature", |r, _| r.name("a signature"))
    }

    fn plan(&mut self, version: u64) -> Result<Plan, String> {
        let format = self.string("format")?;
        let version_field = self.u32("version")?;
        // The header's copy is outside the checksum: one that differs from the plan's own was
        // changed after writing, and would read the payload as another version's (a new
        // user's trial got "N byte(s) after the end of the plan").
        if u64::from(version_field) != version {
            return Err(format!(
                "the header says version {version} and the plan inside version {version_field}: \
                 the file was altered after it was written"
            ));
        }
        let compiler = self.string("compiler")?;
        let inputs_hash = self.string("inputs_hash")?;
        let (n, cap) = self.len("dependencies", MIN_PAIR)?;
        let mut dependencies = Vec::with_capacity(cap);
        for _ in 0..n {
            dependencies.push(Dependency {
                path: self.string("a dependency")?,
                hash: self.string("a dependency")?,
            });
        }
        let parameters = self.expr_map("parameter", 0)?;
        let (n, cap) = self.len("services", MIN_SERVICE)?;
        let mut services = NameMap::with_capacity_and_hasher(cap, NameHasher::default());
        for _ in 0..n {
            let name = self.str("a service name")?;
            let sp = self
                .service()
                .map_err(|e| format!("service '{name}': {e}"))?;
            match services.entry(Name::from(name)) {
                Entry::Vacant(e) => {
                    e.insert(sp);
                }
                Entry::Occupied(_) => return Err(format!("service '{name}' appears twice")),
            }
        }
        let aliases = self.map("alias", |r, _| r.name("an alias target"))?;
        let types = self.types()?;
        let tags = self.map("tag", |r, tag| {
            r.expr_map("service", 0)
                .map_err(|e| format!("tag '{tag}': {e}"))
        })?;
        let initialization = self.exprs(0)?;
        // Plans before version 3 end without the `dynamic` section.
        let dynamic = if version >= 3 {
            self.dynamic_section()?
        } else {
            IndexMap::new()
        };
        // Plans before version 4 end without the `signatures` section.
        let signatures = if version >= 4 {
            self.signatures_section()?
        } else {
            NameMap::default()
        };
        Ok(Plan {
            format,
            version: version_field,
            compiler,
            inputs_hash,
            dependencies,
            parameters,
            services,
            aliases,
            types,
            tags,
            initialization,
            dynamic,
            signatures,
        })
    }
}
