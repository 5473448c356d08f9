//! What a Nette application has without declaring it, and wireplan does not: the parameters
//! nette/bootstrap's `Configurator` adds (`%appDir%`, `%debugMode%`, …) and the `container`
//! service nette/di registers for the container itself. A configuration moved from Nette
//! that uses them gets a note saying so, and what to write instead.

/// The parameters nette/bootstrap's `Configurator` defines before loading the configuration.
const BOOTSTRAP_PARAMETERS: &[&str] = &[
    "appDir",
    "wwwDir",
    "tempDir",
    "vendorDir",
    "rootDir",
    "debugMode",
    "productionMode",
    "consoleMode",
];

/// The note for `%name%` (its top-level name) when no parameter of that name exists and Nette's
/// bootstrap would have defined it; `None` for any other name.
pub(crate) fn parameter_note(path: &str) -> Option<String> {
    let top = path.split('.').next().unwrap_or(path);
    BOOTSTRAP_PARAMETERS.contains(&top).then(|| {
        format!(
            "Nette's bootstrap (Configurator) defines %{top}%; wireplan has no bootstrap: \
             declare it under parameters:, give it with -p {top}=VALUE, or read it at start-up \
             with --dynamic {top}"
        )
    })
}

/// The note for a reference to the missing service `name` when it is Nette's `@container`;
/// `None` for any other name.
pub(crate) fn service_note(name: &str) -> Option<&'static str> {
    (name == "container").then_some(
        "Nette registers the container itself as service 'container'; a wireplan container is \
         not a service: inject the services themselves, or a locator or accessor for lazy \
         access (docs/configuration.md)",
    )
}

/// The note for a call of a global function (`::strtoupper(x)`): Nette calls PHP's functions,
/// a plan calls only what the Rust registry provides.
pub(crate) const GLOBAL_FUNCTION_NOTE: &str = "a plan has no global functions (Nette calls PHP's): \
register a static method (Registry::static_method, `static: true` in the catalog) and call \
App\\Util::name(...), or use a built-in: not(), bool(), int(), float(), string(), typed(), tagged()";

#[cfg(test)]
mod tests {
    #[test]
    fn only_nette_predefined_names_get_notes() {
        let note = super::parameter_note("debugMode").expect("a bootstrap parameter");
        assert!(note.contains("--dynamic debugMode"), "{note}");
        assert!(super::parameter_note("appDir.sub").is_some());
        assert_eq!(super::parameter_note("debug"), None);
        assert!(super::service_note("container").is_some());
        assert_eq!(super::service_note("containers"), None);
    }
}
