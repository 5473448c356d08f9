//! Checking the parameters given from outside (`wireplan compile -p NAME=VALUE`) against the
//! configuration, so that a typo (`-p postPerPage=10`) is not silently a new parameter.

use crate::diagnostics::{suggest, Code, Diagnostic, Diagnostics};
use crate::neon::{Array, Key, Kind, Value};
use indexmap::IndexMap;

/// Pushes an `unknown-parameter` warning for each name of `overrides` that the configuration
/// neither declares nor uses, with "did you mean 'x'?" when a declared parameter is close.
///
/// A name (dotted for nested parameters: `db.host`) is known when
/// - the `parameters:` section of `sections` (merged, not yet expanded) declares it, or
/// - a configuration text of `config_texts` uses it as `%name%` or `%name.key%`, or uses a
///   map it is part of (`%db%` for `db.host`; Nette's parameters given from outside may be
///   used without being declared), or
/// - an extension script of `script_texts` mentions its first part as a word (scripts read
///   parameters through `getParameters()`), or
/// - it is under `env.` (the environment, always available).
///
/// It stays a warning: Nette lets the application add parameters.
///
/// The names of `dynamic` (`--dynamic NAME`) are checked the same way (a typo there would make
/// nothing dynamic, silently); a name given both with `-p` and `--dynamic` gets a warning that
/// the `-p` value is not used (the parameter is read at start-up), and so does a `-p` name at
/// or below a parameter `wireplan › sensitive` lists (read at start-up too).
pub fn check_overrides<'a>(
    sections: &Array,
    config_texts: &[&'a str],
    script_texts: &[&'a str],
    overrides: &IndexMap<String, Value>,
    dynamic: &[String],
    diags: &mut Diagnostics,
) {
    let mut declared = Vec::new();
    let parameters = sections
        .get_entry(&Key::Str("parameters".into()))
        .map(|e| &e.value);
    if let Some(p) = parameters {
        declared_names(p, "", &mut declared);
    }
    // A dotted name below a declared value that is not a map would silently replace that
    // value with a map (Nette merges so): an error instead.
    let options = dynamic
        .iter()
        .map(|n| ("--dynamic", n.as_str()))
        .chain(overrides.keys().map(|n| ("-p", n.as_str())));
    let mut refused: Vec<&str> = Vec::new();
    for (option, name) in options {
        if let Some((above, kind)) = parameters.and_then(|p| value_above(p, name)) {
            refused.push(name);
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "{option} {name}: the parameter '{above}' is {kind}, not a map, so it has no key '{}'.",
                        &name[above.len() + 1..]
                    ),
                )
                .with_note(format!(
                    "give '{above}' itself ({option} {above}{}), or declare it as a map in parameters:",
                    if option == "-p" { "=VALUE" } else { "" }
                )),
            );
        }
    }
    // `dynamicParameters:` declares a dynamic parameter's type: a name made dynamic with
    // `--dynamic` and declared only there is known (the documented `tempDir: string` form),
    // and a close one is suggested.
    if let Some(typed) = sections
        .get_entry(&Key::Str(super::dynamic::SECTION.into()))
        .and_then(|e| e.value.as_array())
    {
        declared.extend(typed.iter().map(|(k, _)| k.as_string()));
    }
    let known = |name: &str| {
        let top = name.split('.').next().unwrap_or_default();
        // A name refused above gets its error only.
        refused.contains(&name)
            || top == "env"
            || declared.iter().any(|d| d == name)
            || used_in_config(name, config_texts)
            || script_texts.iter().any(|t| contains_word(t, top))
    };
    // The warning for a name the configuration does not know, with a close declared name.
    let unknown = |message: String, name: &str| {
        let d = Diagnostic::warning(Code::UnknownParameter, message);
        match suggest(name, declared.iter().map(String::as_str)) {
            Some(close) => d.with_note(format!("did you mean '{close}'?")),
            None => d,
        }
    };
    // A sensitive parameter is read at start-up like a dynamic one: a value given for it (or
    // for a key below it) never reaches the plan, so it would be dropped without a word.
    let sensitive: Vec<String> = crate::project::sensitive_parameters(sections)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    for name in overrides.keys() {
        let covering = sensitive.iter().find(|s| {
            name == *s
                || name
                    .strip_prefix(s.as_str())
                    .is_some_and(|r| r.starts_with('.'))
        });
        if let (Some(s), false) = (covering, dynamic.contains(name)) {
            diags.push(
                Diagnostic::warning(
                    Code::UnusedParameterValue,
                    format!(
                        "-p {name}: the value is not used, because '{s}' is sensitive (wireplan › sensitive): it is read at start-up, never written into the plan."
                    ),
                )
                .with_note(format!(
                    "supply it when the container starts: ContainerBuilder::parameter(\"{name}\", …)"
                )),
            );
        }
    }
    let mut seen = std::collections::HashSet::new();
    // `--dynamic x --dynamic x` is said once.
    for name in dynamic.iter().filter(|n| seen.insert(n.as_str())) {
        // The files' value of a dynamic parameter is not its default: the container does not
        // start without one supplied. Said, without the value (a parameter is often made
        // dynamic to keep a secret out of the plan).
        let written = parameters
            .and_then(|p| declared_value(p, name))
            .filter(|v| !matches!(v.kind, Kind::Null));
        if written.is_some() && !overrides.contains_key(name) {
            diags.push(
                Diagnostic::warning(
                    Code::UnusedParameterValue,
                    format!(
                        "--dynamic {name}: the value the files give '{name}' is not used; the application supplies it at start-up, and the container does not start without it."
                    ),
                )
                .with_note(format!(
                    "supply it with ContainerBuilder::parameter(\"{name}\", …); to keep it listed in the files, declare it without a value (`{}:`)",
                    name.rsplit('.').next().unwrap_or(name)
                )),
            );
        }
        if overrides.contains_key(name) {
            diags.push(Diagnostic::warning(
                Code::UnusedParameterValue,
                format!(
                    "-p {name}: the value is not used, because --dynamic {name} makes the parameter read at start-up."
                ),
            ));
        } else if !known(name) {
            diags.push(unknown(
                format!(
                    "--dynamic {name}: the configuration has no parameter '{name}', so nothing is made dynamic by it."
                ),
                name,
            ));
        }
    }
    for name in overrides.keys().filter(|n| !known(n)) {
        diags.push(unknown(
            format!(
                "-p {name}: the configuration has no parameter '{name}'; it is added as a new one."
            ),
            name,
        ));
    }
}

/// The `-p` values that are applied: all but those [`check_overrides`] refuses (a dotted name
/// below a declared value that is not a map), which are dropped as if they were not given, so
/// the refusal is their only error. Borrowed when none is refused.
pub fn applicable_overrides<'a>(
    sections: &Array,
    overrides: &'a IndexMap<String, Value>,
) -> std::borrow::Cow<'a, IndexMap<String, Value>> {
    let parameters = sections
        .get_entry(&Key::Str("parameters".into()))
        .map(|e| &e.value);
    let refused = |name: &str| parameters.is_some_and(|p| value_above(p, name).is_some());
    if !overrides.keys().any(|n| refused(n)) {
        return std::borrow::Cow::Borrowed(overrides);
    }
    std::borrow::Cow::Owned(
        overrides
            .iter()
            .filter(|(n, _)| !refused(n))
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect(),
    )
}

/// For a dotted `name` (`dsn.sub`): the first part of it that the `parameters:` section
/// `value` declares as a value other than a map or `null` (`("dsn", "a string")`), or `None`
/// when every declared part is a map (or the name leaves the declared ones).
fn value_above(value: &Value, name: &str) -> Option<(String, &'static str)> {
    let mut current = value;
    let mut end = 0;
    let parts: Vec<&str> = name.split('.').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        let Kind::Array(a) = &current.kind else {
            return None;
        };
        current = a.get(part)?;
        // The length of the name up to this part, with the dots between parts.
        end += part.len() + usize::from(end > 0);
        let kind = match &current.kind {
            Kind::Array(_) | Kind::Null => continue,
            Kind::Int(_) => "an int",
            Kind::Entity(_) | Kind::Chain(_) => "a statement",
            Kind::Bool(_) => "a bool",
            Kind::Float(_) => "a float",
            Kind::Date(_) => "a date",
            Kind::Str(_) => "a string",
        };
        return Some((name[..end].to_string(), kind));
    }
    None
}

/// Every parameter name the `parameters:` section `value` declares, nested ones dotted
/// (`db`, `db.host`), each prefixed by `prefix`.
fn declared_names(value: &Value, prefix: &str, out: &mut Vec<String>) {
    let Kind::Array(a) = &value.kind else {
        return;
    };
    for (k, v) in a.iter() {
        let name = format!("{prefix}{}", k.as_string());
        declared_names(v, &format!("{name}."), out);
        out.push(name);
    }
}

/// The value the `parameters:` section `value` declares for the dotted name `name`, if any.
fn declared_value<'v>(value: &'v Value, name: &str) -> Option<&'v Value> {
    let mut current = value;
    for part in name.split('.') {
        let Kind::Array(a) = &current.kind else {
            return None;
        };
        current = a
            .iter()
            .find(|(k, _)| k.as_string() == part)
            .map(|(_, v)| v)?;
    }
    Some(current)
}

/// Whether a configuration text uses `name`, a part under it, or a map it belongs to.
fn used_in_config(name: &str, texts: &[&str]) -> bool {
    let mut patterns = vec![format!("%{name}%"), format!("%{name}.")];
    let mut prefix = String::new();
    for part in name.split('.') {
        if !prefix.is_empty() {
            patterns.push(format!("%{prefix}%"));
            prefix.push('.');
        }
        prefix.push_str(part);
    }
    texts
        .iter()
        .any(|t| patterns.iter().any(|p| t.contains(p.as_str())))
}

/// Whether `word` occurs in `text` not as part of a longer identifier.
fn contains_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The `-p` values a compilation applied, and where the configuration writes each parameter,
/// which [`note_overrides`] follows from a `%pp%` in an error to a `-p` value that its value
/// uses (`pp: %per%` with `-p per=[1]`).
#[derive(Debug, Default)]
pub struct CommandLineParameters {
    /// The applied `-p` values by name (see [`applicable_overrides`]).
    pub values: IndexMap<String, Value>,
    /// Each parameter the `parameters:` section writes, by dotted name (`db`, `db.host`), with
    /// the span of its value.
    written: Vec<(String, crate::source::Span)>,
    /// The parameters `wireplan: sensitive:` lists: a note never shows their `-p` values.
    sensitive: Vec<String>,
}

impl CommandLineParameters {
    /// The `values` applied to the configuration `sections` (raw, as decoded); `sensitive`:
    /// the names `wireplan: sensitive:` lists ([`crate::project::sensitive_parameters`]).
    pub fn new(
        values: IndexMap<String, Value>,
        sections: &Array,
        sensitive: Vec<String>,
    ) -> CommandLineParameters {
        let mut written = Vec::new();
        if let Some(e) = sections.get_entry(&Key::Str("parameters".into())) {
            if let Kind::Array(a) = &e.value.kind {
                collect_written(a, "", &mut written);
            }
        }
        // Sorted by name, so a name's entries and those below it are one range.
        written.sort_by(|a, b| a.0.cmp(&b.0));
        CommandLineParameters {
            values,
            written,
            sensitive,
        }
    }

    /// The written values of `name`, of the parameters below it (`db.host` for `db`) and of
    /// the maps it lies in (`db` for `db.host`): binary searches in the sorted list.
    fn written_around<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a crate::source::Span> + 'a {
        let from = self.written.partition_point(|(n, _)| n.as_str() < name);
        let below = self.written[from..]
            .iter()
            .take_while(move |(n, _)| n.starts_with(name))
            .filter(move |(n, _)| relation(n, name).is_some())
            .map(|(_, s)| s);
        let above = name.match_indices('.').filter_map(move |(i, _)| {
            let outer = &name[..i];
            let at = self.written.partition_point(|(n, _)| n.as_str() < outer);
            self.written
                .get(at)
                .filter(|(n, _)| n == outer)
                .map(|(_, s)| s)
        });
        below.chain(above)
    }
}

/// The parameters `a` writes below `prefix` (depth-first), each with its value's span.
fn collect_written(a: &Array, prefix: &str, out: &mut Vec<(String, crate::source::Span)>) {
    for (k, v) in a.iter() {
        let name = format!("{prefix}{}", k.as_string());
        out.push((name.clone(), v.span));
        if let Kind::Array(inner) = &v.kind {
            collect_written(inner, &format!("{name}."), out);
        }
    }
}

/// How the parameter `reference` relates to the `-p` name `name`: the same, lying in it
/// (`%db.host%`, `-p db=…`), or holding it (`%db%`, `-p db.host=…`); `None` when unrelated.
#[derive(Clone, Copy, PartialEq)]
enum Relation {
    Same,
    Below,
    Part,
}

fn relation(reference: &str, name: &str) -> Option<Relation> {
    let under = |inner: &str, outer: &str| {
        inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with('.'))
    };
    if reference == name {
        Some(Relation::Same)
    } else if under(reference, name) {
        Some(Relation::Below)
    } else if under(name, reference) {
        Some(Relation::Part)
    } else {
        None
    }
}

/// At most this many parameters are followed from one reference to the `-p` values its value
/// uses.
const FOLLOW_MAX: usize = 64;

/// Only the first this many diagnostics of a run are followed through written values.
const FOLLOWED_DIAGNOSTICS: usize = 1000;

/// Adds a note to each diagnostic from the `from`-th on whose primary span's text refers to a
/// parameter that a `-p` value set (`given.values`, those applied): `%maxItems%` set by
/// `-p maxItems=abc` is otherwise reported at the configuration's `%maxItems%` with the
/// command line's value and no word of where that value came from. A reference matches a
/// `-p` name when it is the name, lies below it (`%db.host%` and `-p db=…`: "lies in 'db'")
/// or above it (`%db%` and `-p db.host=…`: "part of the value"). A reference that matches
/// none is followed through the values `parameters:` writes (`pp: %per%`), up to
/// `FOLLOW_MAX` parameters: "%pp% uses %per%, which the command line sets". One note per
/// parameter and diagnostic; nothing when no `-p` value was applied. A value error at a whole
/// `%name%` whose value the `parameters:` section writes gets that value labelled
/// (`config::origins`), with or without `-p` values.
pub fn note_overrides(
    diags: &mut Diagnostics,
    from: usize,
    sources: &crate::source::SourceMap,
    given: &CommandLineParameters,
) {
    let by_command_line = |name: &str| given.values.keys().any(|k| relation(name, k).is_some());
    super::origins::label_parameter_values(diags, from, sources, &given.written, &by_command_line);
    if given.values.is_empty() {
        return;
    }
    let shown = |name: &str, value: &Value| {
        if crate::project::covers_sensitive(&given.sensitive, name) {
            return format!("-p {name}=… (a sensitive value, not shown)");
        }
        let mut shown = crate::neon::encode_inline(value).unwrap_or_default();
        if shown.chars().count() > 60 {
            shown = shown.chars().take(57).collect::<String>() + "...";
        }
        format!("-p {name}={shown}")
    };
    // Following written values costs a few searches per parameter; a run with thousands of
    // errors follows them for the first FOLLOWED_DIAGNOSTICS only.
    for (i, d) in diags.since_mut(from).iter_mut().enumerate() {
        // Errors about how services depend on each other are reported at a whole definition,
        // which may contain a `%name%` the command line set; they say nothing about its value.
        if matches!(
            d.code,
            Code::CaptiveDependency
                | Code::CircularReference
                | Code::DeepDependencyChain
                | Code::AsyncRequired
        ) {
            continue;
        }
        let Some(span) = d.primary_span() else {
            continue;
        };
        let Some(text) = sources.get(span.file).text.get(span.range()) else {
            continue;
        };
        let mut notes = Vec::new();
        for reference in parameter_references(text) {
            let mut direct = false;
            for (name, value) in &given.values {
                let given = shown(name, value);
                let note = match relation(reference, name) {
                    None => continue,
                    Some(Relation::Below) => {
                        format!(
                            "%{reference}% lies in '{name}', which the command line sets: {given}"
                        )
                    }
                    Some(Relation::Part) => format!(
                        "part of the value of %{reference}% comes from the command line: {given}"
                    ),
                    Some(Relation::Same) => {
                        format!("the value of %{reference}% comes from the command line: {given}")
                    }
                };
                direct = true;
                notes.push(note);
            }
            if !direct && i < FOLLOWED_DIAGNOSTICS {
                follow(reference, given, sources, &shown, &mut notes);
            }
        }
        for note in notes {
            if !d.notes.contains(&note) {
                d.notes.push(note);
            }
        }
    }
}

/// The notes for `reference`, which no `-p` name matches, whose written value uses (directly
/// or through other parameters) one that a `-p` value sets.
fn follow(
    reference: &str,
    given: &CommandLineParameters,
    sources: &crate::source::SourceMap,
    shown: &dyn Fn(&str, &Value) -> String,
    notes: &mut Vec<String>,
) {
    let mut seen: Vec<String> = vec![reference.to_string()];
    let mut queue: Vec<String> = vec![reference.to_string()];
    while let Some(current) = queue.pop() {
        for span in given.written_around(&current) {
            let Some(text) = sources.get(span.file).text.get(span.range()) else {
                continue;
            };
            for used in parameter_references(text) {
                if seen.iter().any(|s| s == used) || seen.len() >= FOLLOW_MAX {
                    continue;
                }
                seen.push(used.to_string());
                let mut set = false;
                for (name, value) in &given.values {
                    let given = shown(name, value);
                    let note = match relation(used, name) {
                        None => continue,
                        Some(Relation::Same) => format!(
                            "%{reference}% uses %{used}%, which the command line sets: {given}"
                        ),
                        Some(Relation::Below) => format!(
                            "%{reference}% uses %{used}%, which lies in '{name}', set by the command line: {given}"
                        ),
                        Some(Relation::Part) => format!(
                            "%{reference}% uses %{used}%, part of whose value the command line sets: {given}"
                        ),
                    };
                    set = set || relation(used, name) == Some(Relation::Same);
                    notes.push(note);
                }
                // A parameter the command line replaces whole: what its file writes is not used.
                if !set {
                    queue.push(used.to_string());
                }
            }
        }
    }
}

/// The names of the `%name%` references in `text` (`%%` is an escaped percent sign, not a
/// reference).
pub(super) fn parameter_references(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('%') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('%') else {
            break;
        };
        let name = &after[..close];
        if !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        {
            out.push(name);
            rest = &after[close + 1..];
        } else {
            // `%%` or a `%` that opens no reference: go on from the second `%`.
            rest = &after[close..];
            if name.is_empty() {
                rest = &rest[1..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceMap;

    fn warnings(config: &str, scripts: &[&str], names: &[&str]) -> Vec<(String, Vec<String>)> {
        warnings_with_dynamic(config, scripts, names, &[])
    }

    /// The diagnostics of [`check_overrides`] for `-p` names `names` and `--dynamic` names
    /// `dynamic` over `config`.
    fn diagnostics(
        config: &str,
        scripts: &[&str],
        names: &[&str],
        dynamic: &[&str],
    ) -> Vec<Diagnostic> {
        let dynamic: Vec<String> = dynamic.iter().map(|s| s.to_string()).collect();
        let mut sources = SourceMap::new();
        let mut diags = Diagnostics::new();
        let raw = crate::config::load_str("app.neon", config, &mut sources, &mut diags);
        let overrides: IndexMap<String, Value> = names
            .iter()
            .map(|n| (n.to_string(), Value::new(Kind::Null, Default::default())))
            .collect();
        check_overrides(
            &raw.sections,
            &[config],
            scripts,
            &overrides,
            &dynamic,
            &mut diags,
        );
        diags.items().to_vec()
    }

    /// The warnings for `-p` names `names` and `--dynamic` names `dynamic`.
    fn warnings_with_dynamic(
        config: &str,
        scripts: &[&str],
        names: &[&str],
        dynamic: &[&str],
    ) -> Vec<(String, Vec<String>)> {
        diagnostics(config, scripts, names, dynamic)
            .into_iter()
            .map(|d| {
                // A value given and dropped has its own code; a name nothing declares or uses
                // is unknown.
                let unused = d.message.contains(" is not used");
                let code = if unused {
                    Code::UnusedParameterValue
                } else {
                    Code::UnknownParameter
                };
                assert_eq!(d.code, code, "{}", d.message);
                assert!(!d.is_error());
                (d.message, d.notes)
            })
            .collect()
    }

    #[test]
    fn a_dotted_name_below_a_value_that_is_not_a_map_is_an_error() {
        let config = "parameters:\n\tdsn: 'sqlite:'\n\tport: 80\n\tdb:\n\t\thost: x\n\tnone: null\nservices:\n\ta: App\\A(%dsn%, %port%, %db%)\n";
        let all = diagnostics(
            config,
            &[],
            &["dsn.sub", "port.x.y", "db.host.deep", "db.port", "none.x"],
            &["dsn.x"],
        );
        let errors: Vec<(String, Vec<String>)> = all
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                assert_eq!(d.code, Code::InvalidValue);
                (d.message.clone(), d.notes.clone())
            })
            .collect();
        let e = |m: &str, n: &str| (m.to_string(), vec![n.to_string()]);
        assert_eq!(
            errors,
            [
                e(
                    "--dynamic dsn.x: the parameter 'dsn' is a string, not a map, so it has no key 'x'.",
                    "give 'dsn' itself (--dynamic dsn), or declare it as a map in parameters:"
                ),
                e(
                    "-p dsn.sub: the parameter 'dsn' is a string, not a map, so it has no key 'sub'.",
                    "give 'dsn' itself (-p dsn=VALUE), or declare it as a map in parameters:"
                ),
                e(
                    "-p port.x.y: the parameter 'port' is an int, not a map, so it has no key 'x.y'.",
                    "give 'port' itself (-p port=VALUE), or declare it as a map in parameters:"
                ),
                e(
                    "-p db.host.deep: the parameter 'db.host' is a string, not a map, so it has no key 'deep'.",
                    "give 'db.host' itself (-p db.host=VALUE), or declare it as a map in parameters:"
                ),
            ]
        );
    }

    #[test]
    fn a_typo_gets_a_warning_with_the_declared_name() {
        let config = "parameters:\n\tpostsPerPage: 5\n\tdb:\n\t\thost: x\n";
        assert_eq!(
            warnings(config, &[], &["postPerPage", "db.hots"]),
            [
                (
                    "-p postPerPage: the configuration has no parameter 'postPerPage'; it is added as a new one.".to_string(),
                    vec!["did you mean 'postsPerPage'?".to_string()]
                ),
                (
                    "-p db.hots: the configuration has no parameter 'db.hots'; it is added as a new one.".to_string(),
                    vec!["did you mean 'db.host'?".to_string()]
                ),
            ]
        );
    }

    #[test]
    fn declared_used_and_environment_names_are_known() {
        let config = "parameters:\n\tpostsPerPage: 5\n\tdb:\n\t\thost: x\nservices:\n\ta: App\\A(%appDir%, %mail.from%, %cache%)\n";
        let script = "fn loadConfiguration() { let p = this.getParameters(); p.tempDir }";
        let names = [
            "postsPerPage",
            "db",
            "db.host",
            "appDir",
            "mail",
            "mail.from",
            "cache.dir",
            "env.HOME",
            "tempDir",
        ];
        assert_eq!(warnings(config, &[script], &names), []);
        // A word inside a longer identifier is not a use.
        assert_eq!(
            warnings(config, &["let tempDirs = 1;"], &["tempDir"]).len(),
            1
        );
    }

    /// configuration.md's `tempDir: string  # declared with --dynamic tempDir`: a name declared
    /// only in `dynamicParameters:` is made dynamic by `--dynamic`, so no warning says that
    /// nothing is (a new user's trial of the docs); a misspelt one is told the declared name.
    #[test]
    fn a_dynamic_name_declared_in_dynamic_parameters_is_known() {
        let config = "dynamicParameters:\n\ttempDir: string\nservices:\n\ts: App\\S\n";
        assert_eq!(warnings_with_dynamic(config, &[], &[], &["tempDir"]), []);
        assert_eq!(
            warnings_with_dynamic(config, &[], &[], &["tmpDir"]),
            [(
                "--dynamic tmpDir: the configuration has no parameter 'tmpDir', so nothing is made dynamic by it.".to_string(),
                vec!["did you mean 'tempDir'?".to_string()]
            )]
        );
    }

    #[test]
    fn a_dynamic_typo_and_a_value_made_dynamic_get_warnings() {
        let config = "parameters:\n\tsecret: x\nservices:\n\ts: App\\S(%secret%, %used%)\n";
        assert_eq!(
            warnings_with_dynamic(config, &[], &[], &["secert", "secret", "used", "env.HOME"]),
            [
                (
                    "--dynamic secert: the configuration has no parameter 'secert', so nothing is made dynamic by it.".to_string(),
                    vec!["did you mean 'secret'?".to_string()]
                ),
                (
                    "--dynamic secret: the value the files give 'secret' is not used; the application supplies it at start-up, and the container does not start without it.".to_string(),
                    vec!["supply it with ContainerBuilder::parameter(\"secret\", …); to keep it listed in the files, declare it without a value (`secret:`)".to_string()]
                )
            ]
        );
        // Declared without a value (or as null), or below a map: said only for a value.
        let declared = "parameters:\n\tpool:\n\tdb:\n\t\tpassword: x\n\t\tuser: null\nservices:\n\ts: App\\S(%pool%, %db%)\n";
        assert_eq!(
            warnings_with_dynamic(declared, &[], &[], &["pool", "db.user", "db.password"]),
            [(
                "--dynamic db.password: the value the files give 'db.password' is not used; the application supplies it at start-up, and the container does not start without it.".to_string(),
                vec!["supply it with ContainerBuilder::parameter(\"db.password\", …); to keep it listed in the files, declare it without a value (`password:`)".to_string()]
            )]
        );
        assert_eq!(
            warnings_with_dynamic(config, &[], &["secret"], &["secret"]),
            [(
                "-p secret: the value is not used, because --dynamic secret makes the parameter read at start-up.".to_string(),
                vec![]
            )]
        );
        // A name given twice is said once (a new user's trial).
        let twice =
            warnings_with_dynamic(config, &[], &[], &["secret", "secert", "secret", "secert"]);
        assert_eq!(twice.len(), 2, "{twice:?}");
    }

    /// A `-p` value for a sensitive parameter (or a key below one) is dropped, as the parameter
    /// is read at start-up: said (found by a new user's trial, who expected it in the plan).
    #[test]
    fn a_value_given_for_a_sensitive_parameter_gets_a_warning() {
        let config = "wireplan:\n\tsensitive: [pw, db.password]\nparameters:\n\tpw: x\n\tdb: {password: y, host: h}\n\tother: 1\nservices:\n\ts: App\\S(%pw%, %db%, %other%)\n";
        let warned =
            warnings_with_dynamic(config, &[], &["pw", "db.password", "db.host", "other"], &[]);
        assert_eq!(
            warned,
            [
                (
                    "-p pw: the value is not used, because 'pw' is sensitive (wireplan › sensitive): it is read at start-up, never written into the plan.".to_string(),
                    vec!["supply it when the container starts: ContainerBuilder::parameter(\"pw\", …)".to_string()]
                ),
                (
                    "-p db.password: the value is not used, because 'db.password' is sensitive (wireplan › sensitive): it is read at start-up, never written into the plan.".to_string(),
                    vec!["supply it when the container starts: ContainerBuilder::parameter(\"db.password\", …)".to_string()]
                ),
            ]
        );
    }

    /// The written values around a name: its own, those below it and those of the maps it
    /// lies in; not a sibling that merely starts with the same letters (`db-x`, `db2`).
    #[test]
    fn written_values_around_a_name_are_found_by_search() {
        let mut sources = SourceMap::default();
        let text =
            "parameters:\n\tdb:\n\t\thost: %h%\n\t\tport: 1\n\tdb-x: 2\n\tdb2: 3\n\tother: 4\n";
        let file = sources.add("app.neon", text);
        let raw = crate::neon::decode(text, file).expect("decodes");
        let crate::neon::Kind::Array(sections) = &raw.kind else {
            panic!("a map")
        };
        let values: IndexMap<String, Value> = [("x".to_string(), raw.clone())].into();
        let given = CommandLineParameters::new(values, sections, Vec::new());
        let around = |name: &str| -> Vec<String> {
            let mut found: Vec<String> = given
                .written_around(name)
                .map(|s| text[s.range()].trim().to_string())
                .collect();
            found.sort();
            found
        };
        assert_eq!(around("db.host"), ["%h%", "host: %h%\n\t\tport: 1"]);
        assert_eq!(around("db").len(), 3, "{:?}", around("db"));
        assert_eq!(around("db2"), ["3"]);
        assert!(around("nope").is_empty());
    }

    #[test]
    fn parameter_references_skip_escaped_percent_signs() {
        assert_eq!(
            super::parameter_references("a%b%c %d.e-f% 100%% %%x%% %g%"),
            ["b", "d.e-f", "g"]
        );
        assert!(super::parameter_references("50% off, not %a name%").is_empty());
    }
}
