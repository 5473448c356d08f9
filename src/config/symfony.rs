//! Notes for Symfony's `services.yaml` idioms written in a configuration: what each one is
//! here (docs/configuration.md, "Coming from Symfony"). A function that is given any key,
//! name or text gives `None` for one that is no such idiom, so a caller adds the note only
//! where it applies; the others are called where the idiom was recognised.

/// The note for Symfony's `%env(NAME)%` written unquoted, which NEON reads as calls on a
/// class `%env`.
pub(crate) const SYMFONY_ENV_NOTE: &str = "Symfony's %env(NAME)% is written %env.NAME% here: \
a start-up parameter read from the environment variable NAME (docs/configuration.md, \
\"Dynamic parameters\")";

/// The note for a quoted `'@name'` where a reference was meant: Symfony's (and Nette 2's) way
/// to write one, which is text in Nette 3 and here. `example` is how the reference is written
/// in its place (`@repo`, `` `[@App\Pool, connect]` ``), after the plain `@name`.
pub(crate) fn quoted_reference_note(target: &str, example: Option<&str>) -> String {
    let mut note =
        format!("a quoted '@{target}' is text, not a reference: write @{target} without quotes");
    if let Some(e) = example {
        note.push_str(&format!(" ({e})"));
    }
    note
}

/// The note for Symfony's `{name: tag, …}` item in a `tags:` list: Nette writes a tag with
/// attributes as its name and its value.
pub(crate) fn tag_map_note(tag: &str) -> String {
    format!(
        "a tag with attributes is written as its name and its value: `tags: [{tag}: {{…}}]` \
         (Symfony's {{name: …}} form is not Nette's)"
    )
}

/// The note for a key of a service definition that Symfony has and Nette's definition schema
/// does not (`calls`, `bind`, `decorates`, `shared`, ...); `None` for any other key.
pub(crate) fn definition_key_note(key: &str) -> Option<&'static str> {
    Some(match key {
        "calls" => {
            "Symfony's `calls:` is `setup:` here: a list of method calls (`- setLogger(@logger)`) \
             and property writes (`- $level = 3`)"
        }
        "bind" => {
            "Symfony's `bind:` has no counterpart: give the argument by name in `arguments:` \
             (`arguments: [limit: %limit%]`); a parameter of a class type is autowired"
        }
        "decorates" | "decoration_inner_name" | "decoration_priority" | "decoration_on_invalid" => {
            "Symfony's `decorates:` has no counterpart: pass the inner service to the wrapper by \
             name (`App\\CachingRepo(@dbRepo)`) and write `autowired: false` on the inner one \
             (docs/configuration.md, \"Coming from Symfony\")"
        }
        "shared" => "Symfony's `shared: false` is `lifespan: transient` here",
        "public" => {
            "every service can be got by name here: there is no `public` or private service"
        }
        "autowire" => {
            "services are autowired by default here; `autowired: false` takes one out of \
             autowiring"
        }
        "autoconfigure" => {
            "there is no autoconfiguration here: the `decorator:` section gives every service \
             of a type the same tags, setup or inject"
        }
        "properties" => {
            "Symfony's `properties:` are setup entries here: `setup:` with `- $name = value`"
        }
        "configurator" => {
            "Symfony's `configurator:` is a setup call here: `setup:` with \
             `- @configurator::configure(@self)`"
        }
        "parent" | "abstract" => {
            "definitions do not inherit from each other here: the `decorator:` section gives \
             every service of a type the same tags, setup or inject"
        }
        "synthetic" => {
            "Symfony's `synthetic: true` is `imported: true` here (the application provides the \
             object), or `slot: true` for a value set per scope (docs/async.md)"
        }
        _ => return None,
    })
}

/// The note for a reference to the missing service `name` when it is Symfony's `.inner` (the
/// service a decorator replaces) or `service_container`; `None` for any other name.
pub(crate) fn service_note(name: &str) -> Option<&'static str> {
    match name {
        ".inner" => Some(
            "Symfony's @.inner (the service being decorated) has no counterpart: pass the inner \
             service by its name and write `autowired: false` on it, so the wrapper is the one \
             autowired (docs/configuration.md, \"Coming from Symfony\")",
        ),
        "service_container" => Some(
            "a wireplan container is not a service: inject the services themselves, or a \
             locator or accessor for lazy access (docs/configuration.md)",
        ),
        _ => None,
    }
}

/// The note for a string value that is Symfony's YAML tag for a collection of tagged services
/// (`!tagged_iterator app.handler`, `!tagged_locator …`, `!service_locator …`), which NEON
/// reads as text; `None` for any other text.
pub(crate) fn tagged_value_note(text: &str) -> Option<String> {
    let (tag, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let name = rest.trim();
    let name = if name.is_empty() { "name" } else { name };
    match tag {
        "!tagged_iterator" | "!tagged" => Some(format!(
            "Symfony's `{tag} {name}` is written `tagged({name})` here: the list of services \
             with that tag"
        )),
        "!tagged_locator" | "!service_locator" => Some(format!(
            "Symfony's `{tag}` is a locator here: a service with `implement:` an interface \
             whose methods get the services, and `tagged: {name}` or `references:` \
             (docs/configuration.md, \"Generated services\")"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_symfony_idioms_get_notes() {
        assert!(definition_key_note("shared").is_some_and(|n| n.contains("lifespan: transient")));
        assert!(definition_key_note("calls").is_some_and(|n| n.contains("setup:")));
        assert_eq!(definition_key_note("create"), None);
        assert_eq!(definition_key_note("sharedd"), None);
        assert!(service_note(".inner").is_some_and(|n| n.contains("autowired: false")));
        assert_eq!(service_note("inner"), None);
        assert_eq!(
            tagged_value_note("!tagged_iterator app.handler").as_deref(),
            Some(
                "Symfony's `!tagged_iterator app.handler` is written `tagged(app.handler)` here: \
                 the list of services with that tag"
            )
        );
        assert!(tagged_value_note("!tagged_locator x").is_some_and(|n| n.contains("tagged: x")));
        assert_eq!(tagged_value_note("tagged_iterator x"), None);
    }
}
