//! The synthetic application of `../shared/bench/app-*` for any number of services: a
//! deterministic generator shared by `examples/gen.rs`, the stage benchmarks and the test that
//! checks its output compiles.
//!
//! Shape (the one `../shared/bench/README.md` describes): classes `App\S{i}` whose constructors
//! take 0–4 dependencies on lower-numbered classes (some typed by the interface their
//! autowired implementer provides); `N/20` interfaces `App\I{k}` (at least one), each with
//! one autowired first implementer and the others `autowired: false`; `N/50` abstract bases
//! `App\Base{k}`, every 50th class extending one; ~9% take an `int $limit` from `%limit%`;
//! ~10% are tagged with a priority; ~7% have a `setPeer(@sJ)` setup. Every service is named
//! `s{i}`.

#![allow(dead_code)]

use rand_core::{Rng, SeedableRng};
use rand_xorshift::XorShiftRng;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Seed of the generator: the same `N` always gives byte-identical files.
const SEED: u64 = 0x5749_5245_504c_414e;

/// What one generation wrote (counts, for checks and reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Services in `config.neon` (`s0` … `s{N-1}`), one class each.
    pub services: usize,
    /// Interfaces `App\I{k}` in the catalog.
    pub interfaces: usize,
    /// Abstract bases `App\Base{k}` in the catalog.
    pub bases: usize,
    /// Constructor dependencies across all classes.
    pub dependencies: usize,
    /// Services declared `autowired: false`.
    pub not_autowired: usize,
}

impl Summary {
    /// Entries of the `types:` section: every class, interface and base.
    pub fn types(&self) -> usize {
        self.services + self.interfaces + self.bases
    }
}

/// One class before it is written.
struct Class {
    extends: Option<usize>,
    implements: Option<usize>,
    /// `(slot, type)`: slots may skip numbers, as in the reference workloads.
    deps: Vec<(usize, Dep)>,
    limit: bool,
    peer: Option<usize>,
    tag: Option<u64>,
    autowired: bool,
}

enum Dep {
    Class(usize),
    Interface(usize),
}

/// A uniform draw in `0..n` (`n > 0`); the tiny modulo bias does not matter for a workload.
fn below(rng: &mut XorShiftRng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// `true` with probability `percent / 100`.
fn chance(rng: &mut XorShiftRng, percent: u64) -> bool {
    rng.next_u64() % 100 < percent
}

fn classes(n: usize) -> (Vec<Class>, usize, usize) {
    let interfaces = (n / 20).max(1);
    let bases = n / 50;
    let mut rng = XorShiftRng::seed_from_u64(SEED);
    let mut first_implementer: Vec<Option<usize>> = vec![None; interfaces];
    let mut out: Vec<Class> = Vec::with_capacity(n);
    for i in 0..n {
        let implements = chance(&mut rng, 25).then(|| below(&mut rng, interfaces));
        let autowired = match implements {
            Some(k) if first_implementer[k].is_some() => false,
            Some(k) => {
                first_implementer[k] = Some(i);
                true
            }
            None => true,
        };
        let extends = (i % 50 == 49 && i / 50 < bases).then_some(i / 50);
        let wanted = if i == 0 { 0 } else { below(&mut rng, 5) };
        let mut deps: Vec<(usize, Dep)> = Vec::with_capacity(wanted);
        for slot in 0..wanted {
            let j = below(&mut rng, i);
            let by_interface = chance(&mut rng, 30);
            // A service that is not autowired cannot be injected by type: the slot is left out.
            if !out[j].autowired
                || deps
                    .iter()
                    .any(|(_, d)| matches!(d, Dep::Class(x) if *x == j))
            {
                continue;
            }
            let dep = match out[j].implements {
                Some(k) if by_interface && first_implementer[k] == Some(j) => Dep::Interface(k),
                _ => Dep::Class(j),
            };
            deps.push((slot, dep));
        }
        let limit = chance(&mut rng, 9);
        let peer = (i > 0 && chance(&mut rng, 7)).then(|| below(&mut rng, i));
        let tag = chance(&mut rng, 10).then(|| rng.next_u64() % 5);
        out.push(Class {
            extends,
            implements,
            deps,
            limit,
            peer,
            tag,
            autowired,
        });
    }
    (out, interfaces, bases)
}

/// Writes the configuration (`config`, which includes `types.neon`) and the catalog (`types`)
/// of an application with `n` services (`n ≥ 1`).
pub fn write(n: usize, config: &mut impl Write, types: &mut impl Write) -> io::Result<Summary> {
    let (classes, interfaces, bases) = classes(n.max(1));
    writeln!(
        config,
        "includes:\n\t- types.neon\n\nparameters:\n\tlimit: 10\n\nservices:"
    )?;
    writeln!(types, "types:")?;
    for k in 0..interfaces {
        writeln!(
            types,
            "\tApp\\I{k}:\n\t\tinterface: true\n\t\tmethods:\n\t\t\tid: {{returns: string}}"
        )?;
    }
    for k in 0..bases {
        writeln!(types, "\tApp\\Base{k}:\n\t\tabstract: true")?;
    }
    let mut summary = Summary {
        services: classes.len(),
        interfaces,
        bases,
        dependencies: 0,
        not_autowired: 0,
    };
    for (i, c) in classes.iter().enumerate() {
        // catalog entry
        writeln!(types, "\tApp\\S{i}:")?;
        if let Some(b) = c.extends {
            writeln!(types, "\t\textends: App\\Base{b}")?;
        }
        if let Some(k) = c.implements {
            writeln!(types, "\t\timplements: [App\\I{k}]")?;
        }
        if !c.deps.is_empty() || c.limit {
            writeln!(types, "\t\tconstructor:")?;
            for (slot, dep) in &c.deps {
                match dep {
                    Dep::Class(j) => writeln!(types, "\t\t\td{slot}: App\\S{j}")?,
                    Dep::Interface(k) => writeln!(types, "\t\t\td{slot}: App\\I{k}")?,
                }
            }
            if c.limit {
                writeln!(types, "\t\t\tlimit: int")?;
            }
        }
        summary.dependencies += c.deps.len();
        if c.peer.is_some() || c.implements.is_some() {
            writeln!(types, "\t\tmethods:")?;
            if let Some(j) = c.peer {
                writeln!(
                    types,
                    "\t\t\tsetPeer: {{params: {{peer: App\\S{j}}}, returns: void}}"
                )?;
            }
            if c.implements.is_some() {
                writeln!(types, "\t\t\tid: {{returns: string}}")?;
            }
        }
        // service
        if !c.limit && c.peer.is_none() && c.autowired && c.tag.is_none() {
            writeln!(config, "\ts{i}: App\\S{i}")?;
            continue;
        }
        writeln!(config, "\ts{i}:\n\t\tcreate: App\\S{i}")?;
        if c.limit {
            writeln!(config, "\t\targuments: [limit: %limit%]")?;
        }
        if let Some(j) = c.peer {
            writeln!(config, "\t\tsetup:\n\t\t\t- setPeer(@s{j})")?;
        }
        if !c.autowired {
            summary.not_autowired += 1;
            writeln!(config, "\t\tautowired: false")?;
        }
        if let Some(t) = c.tag {
            writeln!(config, "\t\ttags: [tag{t}, priority: {i}]")?;
        }
    }
    Ok(summary)
}

/// Writes `dir/config.neon` and `dir/types.neon` for `n` services, creating `dir`.
pub fn generate(n: usize, dir: &Path) -> io::Result<Summary> {
    fs::create_dir_all(dir)?;
    let mut config = BufWriter::new(fs::File::create(dir.join("config.neon"))?);
    let mut types = BufWriter::new(fs::File::create(dir.join("types.neon"))?);
    let summary = write(n, &mut config, &mut types)?;
    config.flush()?;
    types.flush()?;
    Ok(summary)
}
