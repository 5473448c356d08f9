//! Compile-time checks of `Provider<T>` handles beyond autowiring: a singleton's handle is
//! made outside any scope, so one on a scoped service could never resolve (Clean IoC 2's
//! captive rule, applied to the handle's scope).

use super::{ContainerBuilder, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use wireplan_runtime::plan::Lifespan;

/// A singleton that takes a `Provider<T>` of a scoped service is a `captive-dependency`
/// error: at run time the handle has no scope and `get()` would fail with `ScopeRequired`.
pub(super) fn check_provider_scopes(b: &ContainerBuilder, diags: &mut Diagnostics) {
    // Only a handle of a scoped service is reported: without one there is nothing to look for.
    if !b.definitions().any(|d| d.lifespan == Lifespan::Scoped) {
        return;
    }
    for def in b.definitions() {
        if def.kind != DefinitionKind::Service || def.lifespan != Lifespan::Singleton {
            continue;
        }
        let Some(c) = &def.completed else { continue };
        let mut scoped: Vec<&str> = Vec::new();
        for e in std::iter::once(&c.create).chain(&c.setup) {
            e.for_each_provider(&mut |n| {
                let target = b.get_definition(n);
                if target.is_some_and(|t| t.lifespan == Lifespan::Scoped) && !scoped.contains(&n) {
                    scoped.push(n);
                }
            });
        }
        for target in scoped {
            diags.push(
                Diagnostic::error(
                    Code::CaptiveDependency,
                    format!(
                        "Service '{}' is a singleton and takes a Provider of scoped service \
                         '{target}', which it could never resolve: a singleton's provider is \
                         made outside any scope.",
                        def.name
                    ),
                )
                .at(def.span)
                .with_note(format!("path: {} -> provider -> {target}", def.name))
                .with_note(
                    "Make the service scoped (or transient, created in a scope), or get the \
                     scoped service from the scope where it is needed.",
                ),
            );
        }
    }
}
