//! Which parameter references are read at start-up rather than expanded at compile time:
//! `%env.*%` (see [`EnvSource`]) and the names declared dynamic, with the paths inside them.

use std::collections::HashSet;

/// Where `%env.NAME%` takes its value from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EnvSource {
    /// The process environment at start-up: every `%env.*%` is a dynamic parameter.
    #[default]
    Environment,
    /// A parameter `env` the files (or `-p env=…`) define: `%env.*%` is an ordinary static
    /// parameter, and a name it lacks is a missing parameter (as in Nette).
    Defined,
    /// Only `-p env.NAME=…` values: those names are fixed at compile time, every other
    /// `%env.*%` is still read from the environment at start-up.
    Overridden,
}

/// `a`, `a.b`, `a.b.c` for `a.b.c`.
pub(super) fn prefixes(name: &str) -> impl Iterator<Item = &str> {
    name.match_indices('.')
        .map(|(i, _)| &name[..i])
        .chain([name])
}

/// See [`super::Parameters::is_dynamic`]; `env` is where `%env.*%` reads from, `given(path)` whether
/// a `-p` value gives the dotted `path` (asked for [`EnvSource::Overridden`] only).
pub(super) fn is_dynamic_name(
    name: &str,
    dynamic: &HashSet<String>,
    env: EnvSource,
    given: impl Fn(&str) -> bool,
) -> bool {
    let top = name.split('.').next().unwrap_or(name);
    let env_dynamic = top == "env"
        && match env {
            EnvSource::Environment => true,
            EnvSource::Defined => false,
            EnvSource::Overridden => name == "env" || !given(name),
        };
    env_dynamic || prefixes(name).any(|p| dynamic.contains(p))
}

/// Whether the dotted `path` names a value: its first segment found by `top`, each further
/// one by `child` in the value before it (a map's key).
pub(super) fn path_exists<'a, T: 'a>(
    path: &str,
    top: impl Fn(&str) -> Option<&'a T>,
    child: impl Fn(&'a T, &str) -> Option<&'a T>,
) -> bool {
    let mut segs = path.split('.');
    let first = segs.next().and_then(top);
    segs.try_fold(first, |v, seg| Some(v.and_then(|v| child(v, seg))))
        .flatten()
        .is_some()
}
