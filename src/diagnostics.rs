//! One diagnostic type for the whole compiler, and its rendering.
//!
//! Every error or warning wireplan reports is a [`Diagnostic`]: a stable kebab-case [`Code`], a
//! [`Severity`], a message, labels pointing at source [`Span`]s, and notes. Phases push
//! diagnostics into a [`Diagnostics`] sink and keep going where they can, so one run reports all
//! independent errors. Rendering happens only here: as codespan snippets for people
//! ([`render`]) or as the JSON records of `wireplan check --format json` ([`to_json`]).

mod excerpt;

pub use excerpt::{shorten_text, visible_text, MAX_LINE, MAX_TEXT};

/// `n` services as a summary line says it: `1 service`, `0 services`, `9 services`.
pub fn services(n: usize) -> String {
    if n == 1 {
        "1 service".to_string()
    } else {
        format!("{n} services")
    }
}

use crate::source::{SourceMap, Span};
use codespan_reporting::term;
use serde::Serialize;

pub mod sarif;

macro_rules! codes {
    ($($variant:ident => $text:literal, $doc:literal;)*) => {
        /// Stable diagnostic codes. The text form (`Code::as_str`) is what users see and what
        /// `docs/errors.md` lists.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $(#[doc = $doc] $variant,)*
        }

        impl Code {
            /// Every code, in documentation order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The kebab-case code, e.g. `"missing-service"`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $text,)* }
            }

            /// One sentence saying when the code is reported.
            pub fn description(self) -> &'static str {
                match self { $(Code::$variant => $doc,)* }
            }
        }
    };
}

codes! {
    NeonSyntax => "neon-syntax", "The NEON text cannot be parsed.";
    FileNotFound => "file-not-found", "An included file, extension script or input file does not exist or cannot be read.";
    CircularInclude => "circular-include", "A file includes itself, directly or through other files.";
    UnknownOption => "unknown-option", "A key that the section or definition does not know (typos get a \"did you mean\" hint).";
    InvalidValue => "invalid-value", "A value of the wrong type or shape for where it is used: an argument, property or section item that does not fit its declared type (wireplan has no separate type-mismatch code; this is it).";
    MissingParameter => "missing-parameter", "`%name%` refers to a parameter that does not exist. As a warning: Symfony's `%env(NAME)%`, which is text in Nette and here (the environment is read as `%env.NAME%`).";
    CircularParameter => "circular-parameter", "Parameters that refer to each other.";
    ClassNotFound => "class-not-found", "A type that the catalog does not contain.";
    MissingService => "missing-service", "A service needed by name or by type does not exist (or is not autowired for that type).";
    AmbiguousService => "ambiguous-service", "More than one autowired service fits a type.";
    MissingArgument => "missing-argument", "A parameter that cannot be autowired, has no default and was not given.";
    UnknownArgument => "unknown-argument", "An argument that no parameter of the signature accepts (an error), or a positional argument dropped because the same parameter is also given by name (a warning).";
    CircularReference => "circular-reference", "Services that need each other to be created: through constructor arguments, setup statements, or an accessor's `get()` or a factory's `create()` called while creating (an accessor or factory merely passed on is a lazy handle and ends the path). A service named by its own name in its setup is `@self`, as in Nette.";
    InvalidAutowired => "invalid-autowired", "An `autowired:` type that the service's type does not extend or implement.";
    InvalidDefinition => "invalid-definition", "A definition that cannot work as written (abstract class or interface in `create`, unknown service type, ...).";
    DuplicateService => "duplicate-service", "A service added under a name already taken (an extension's `addDefinition(\"x\")` twice), or two services whose names differ only in letter case.";
    MethodNotFound => "method-not-found", "A method the catalog does not list for that type.";
    PropertyNotFound => "property-not-found", "A property the catalog does not list for that type (read as `@service::prop`, or written in a setup).";
    ConstantNotFound => "constant-not-found", "A class constant (`@service::NAME`) the catalog does not list for that service's type.";
    UnknownExtension => "unknown-extension", "A configuration section that no extension handles.";
    ScriptError => "script-error", "An extension script failed to compile or raised an error.";
    NotAllowedDuringResolving => "not-allowed-during-resolving", "A lookup by type while types are being resolved.";
    PartialGraph => "partial-graph", "Warning: a lookup by type in `loadConfiguration()` sees only the services registered so far.";
    EmptySearch => "empty-search", "Warning: a `search:` batch finds no class (a namespace or mask that matches nothing).";
    CaptiveDependency => "captive-dependency", "A longer-lived service holds a shorter-lived one.";
    AsyncRequired => "async-required", "A service declared `sync: true` needs an async constructor to be created (its own or a dependency's).";
    ExtensionWarning => "extension-warning", "Warning: an extension script called `this.warn(...)`.";
    LifecycleSignature => "lifecycle-signature", "Warning: an extension script defines a function with a lifecycle function's name (`getConfigSchema`, `loadConfiguration`, `beforeCompile`, `afterCompile`) in another letter case or with other parameters, so the compiler never calls it.";
    ExtensionOrder => "extension-order", "Warning: an extension's `beforeCompile()` looked services up by tag or type before a later extension added matching ones; error: the `before:`/`after:` order of extensions names an unknown extension or cannot be met.";
    EmptyConfiguration => "empty-configuration", "Warning: the configuration defines no service, so the plan would be empty.";
    ModifiesAnonymous => "modifies-anonymous", "Warning: a `services:` key is the generated name of an anonymous service (`01`, `02`, … in the order anonymous services are added), so the entry modifies that service instead of adding one (Nette's rule for a name that exists).";
    UnknownTag => "unknown-tag", "Warning: `tagged(name)` names a tag that no service has while one with a close name exists (a likely typo), so it gives an empty list.";
    DuplicateTagValue => "duplicate-tag-value", "Warning: a locator's `tagged:` finds two services with the same tag value; the later one wins (as in Nette).";
    Io => "io-error", "Writing an output file failed.";
    InvalidPlan => "invalid-plan", "A file given to `wireplan show`, `diff` or `graph` as a plan is not a wireplan plan (another format, damaged or truncated) or is a plan of another version. A plan that is missing or cannot be read is `file-not-found`. As a warning: a plan that reads but names what it does not define (references, providers, aliases, autowiring and tag entries), which the runtime refuses, or has a `create` that constructs nothing or a construction cycle, which fail when the service is first created.";
    UnknownParameter => "unknown-parameter", "Warning: `-p NAME=VALUE` or `--dynamic NAME` names no parameter that the configuration declares or uses (a typo gets a \"did you mean\" hint; a `-p` parameter is added, as Nette allows).";
    UnusedParameterValue => "unused-parameter-value", "Warning: a value given for a parameter is not used because the parameter is read at start-up: a `-p` value for a parameter that `--dynamic` or `wireplan › sensitive` makes so, or the value the files give a `--dynamic` parameter (it is no default: the container does not start without one supplied).";
    DuplicateClass => "duplicate-class", "A class declared twice: in the `types:` section under two spellings (class names are case-insensitive, a leading `\\` is not part of them), or across catalogs: in the `types:` section and a `--catalog` file (or the registry's catalog in dev mode), or in two catalog files. Each class is declared once.";
    DeepDependencyChain => "deep-dependency-chain", "Warning: creating a service creates more services inside one another than the runtime allows (4,096); its first `get` from the top of the chain would fail with a too-deep error.";
    MemoryLimit => "memory-limit", "The compilation's heap grew past the memory ceiling (`--max-memory`, default 3/4 of the machine's memory); it stops with this error instead of being killed, and no plan is written.";
    Usage => "usage", "The command line itself is wrong: an unknown command or option, a missing or extra argument, a value out of range, a `-p` without `NAME=VALUE` or a `--dynamic` that is no parameter name (exit code 2; `check` and `compile` still report the configuration's own diagnostics beside it).";
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How serious a diagnostic is. Any `Error` makes the run fail and no plan is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The run fails.
    Error,
    /// Reported, the run goes on.
    Warning,
}

/// A message attached to a source span.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What to say there (may be empty).
    pub message: String,
    /// The primary label gives the diagnostic's location; secondary ones add context.
    pub primary: bool,
}

/// One error or warning.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// Stable code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// One-line message, e.g. `Service 'repo' (type of App\Repo): Service of type App\Db not found.`
    pub message: String,
    /// Source locations; the first primary label is the diagnostic's position.
    pub labels: Vec<Label>,
    /// Extra lines ("Did you add it to configuration file?", "did you mean 'x'?").
    pub notes: Vec<String>,
    /// A name to point at inside the primary span once the source text is at hand (a class
    /// name reported where only the whole definition's span is known): see
    /// [`Diagnostics::narrow_to_focus`], which takes it.
    pub focus: Option<String>,
}

impl Diagnostic {
    /// An error with `code` and `message`, no location yet.
    pub fn error(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            focus: None,
        }
    }

    /// A warning with `code` and `message`.
    pub fn warning(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    /// Adds the primary label (the diagnostic's position).
    pub fn with_primary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    /// Adds the primary label when a span is known.
    pub fn at(self, span: Option<Span>) -> Diagnostic {
        match span {
            Some(s) => self.with_primary(s, ""),
            None => self,
        }
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    /// Asks for the primary span to be narrowed to where `name` is written inside it
    /// ([`Diagnostics::narrow_to_focus`]).
    pub fn with_focus(mut self, name: impl Into<String>) -> Diagnostic {
        self.focus = Some(name.into());
        self
    }

    /// Adds a note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Adds Nette's "did you mean 'x'?" note when one of `candidates` is close enough to
    /// `word` (the rule of [`suggest`]); otherwise returns the diagnostic unchanged.
    pub fn with_suggestion<'a>(
        self,
        word: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Diagnostic {
        match suggest(word, candidates) {
            Some(s) => self.with_note(format!("did you mean '{s}'?")),
            None => self,
        }
    }

    /// The span of the first primary label, if any.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    /// Is this an error (as opposed to a warning)?
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A sink that phases push diagnostics into.
#[derive(Debug, Default, Clone)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// An empty sink.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds one diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// Adds many.
    pub fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        self.items.extend(ds);
    }

    /// Was any error (not warning) reported?
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }

    /// Whether an error was reported at a place inside `span` (same file, within its range):
    /// a later check on the same text would only repeat it.
    pub fn has_error_within(&self, span: Option<Span>) -> bool {
        span.is_some_and(|s| {
            self.items.iter().any(|d| {
                d.is_error()
                    && d.primary_span()
                        .is_some_and(|p| p.file == s.file && p.start >= s.start && p.end <= s.end)
            })
        })
    }

    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }

    /// All diagnostics in the order they were reported.
    pub fn items(&self) -> &[Diagnostic] {
        &self.items
    }

    /// Number of diagnostics reported so far (errors and warnings): a mark for
    /// [`Diagnostics::since_mut`].
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The diagnostics reported since `mark` (an earlier [`Diagnostics::len`]), to add notes.
    pub fn since_mut(&mut self, mark: usize) -> &mut [Diagnostic] {
        let start = mark.min(self.items.len());
        &mut self.items[start..]
    }

    /// Narrows the primary span of each diagnostic from the `from`-th on that asked for it
    /// ([`Diagnostic::with_focus`]) to the first place inside it where the name is written
    /// as a whole word (not inside a longer name; a leading `\` goes with it), and takes the
    /// request. A span whose text does not contain the name (a name that came from a
    /// parameter or a script) stays as it was.
    pub fn narrow_to_focus(&mut self, from: usize, sources: &SourceMap) {
        for d in self.items.iter_mut().skip(from) {
            let Some(name) = d.focus.take() else {
                continue;
            };
            if let Some(label) = d.labels.iter_mut().find(|l| l.primary) {
                if let Some(at) = find_name(sources, label.span, &name) {
                    label.span = at;
                }
            }
        }
    }

    /// Takes the diagnostics out.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.items
    }

    /// Is the sink empty?
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// At most this many diagnostics of one code are rendered for people; the rest are counted
/// ("… and 12 more [missing-service]"). JSON output keeps every diagnostic.
pub const MAX_PER_CODE: usize = 50;

/// The diagnostics to render (at most [`MAX_PER_CODE`] of each code, in order) and, per code
/// in order of first appearance, how many were left out.
fn select(diags: &[Diagnostic]) -> (Vec<&Diagnostic>, Vec<(Code, usize)>) {
    let mut counts: Vec<(Code, usize)> = Vec::new();
    let mut shown = Vec::new();
    for d in diags {
        let i = match counts.iter().position(|(c, _)| *c == d.code) {
            Some(i) => i,
            None => {
                counts.push((d.code, 0));
                counts.len() - 1
            }
        };
        counts[i].1 += 1;
        if counts[i].1 <= MAX_PER_CODE {
            shown.push(d);
        }
    }
    let omitted = counts
        .into_iter()
        .filter(|(_, n)| *n > MAX_PER_CODE)
        .map(|(c, n)| (c, n - MAX_PER_CODE))
        .collect();
    (shown, omitted)
}

fn omitted_line(code: Code, n: usize) -> String {
    format!("… and {n} more [{code}]")
}

/// The one-line form, for when a snippet cannot be drawn.
fn one_line(d: &Diagnostic) -> String {
    format!(
        "{}[{}]: {}",
        severity_word(d),
        d.code,
        visible_text(&shorten_text(&d.message))
    )
}

/// Renders diagnostics as codespan snippets into a string (no colour). Used by tests and by
/// callers that log. Locations read `FILE:LINE:COLUMN` with the column in characters, where an
/// editor puts the cursor (the JSON forms count bytes). Long source
/// lines are cut around the label, long texts shortened, and at most [`MAX_PER_CODE`]
/// diagnostics of one code are shown, then a count.
pub fn render_to_string(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    let config = term::Config::default();
    let mut out = String::new();
    let (shown, omitted) = select(diags);
    for d in shown {
        let drawn = excerpt::emit_shortened(sources, d, &mut |s| match s {
            excerpt::Shown::Sources(files, cd) => term::emit_into_string(&config, files, cd),
            excerpt::Shown::View(files, cd) => term::emit_into_string(&config, files, cd),
        });
        match drawn {
            Ok(s) => out.push_str(&s),
            Err(_) => {
                out.push_str(&one_line(d));
                out.push('\n');
            }
        }
    }
    for (code, n) in omitted {
        out.push_str(&omitted_line(code, n));
        out.push('\n');
    }
    out
}

fn severity_word(d: &Diagnostic) -> &'static str {
    match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Whether the environment lets a terminal's output be coloured: not when `NO_COLOR` is set to
/// a non-empty value, as <https://no-color.org> defines it (set but empty, it asks for
/// nothing), nor when `TERM` is `dumb` (or, outside Windows, unset), as `termcolor` decides.
/// The `wireplan` binaries colour their output only on a terminal and only then.
pub fn colour_allowed() -> bool {
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    match std::env::var_os("TERM") {
        Some(term) => term != "dumb",
        None => cfg!(windows),
    }
}

/// Renders diagnostics to standard error, coloured when `color` is true, shortened as
/// [`render_to_string`] says. Write errors (a closed pipe) end the rendering quietly.
pub fn render(sources: &SourceMap, diags: &[Diagnostic], color: bool) {
    use std::io::Write;
    use term::termcolor::{ColorChoice, StandardStream};
    // The caller decided ([`colour_allowed`] on a terminal): termcolor's own test would
    // refuse colour whenever `NO_COLOR` is set, even to nothing.
    let choice = if color {
        ColorChoice::Always
    } else {
        ColorChoice::Never
    };
    let stream = StandardStream::stderr(choice);
    let mut lock = stream.lock();
    let config = term::Config::default();
    let (shown, omitted) = select(diags);
    for d in shown {
        let drawn = excerpt::emit_shortened(sources, d, &mut |s| match s {
            excerpt::Shown::Sources(files, cd) => {
                term::emit_to_write_style(&mut lock, &config, files, cd)
            }
            excerpt::Shown::View(files, cd) => {
                term::emit_to_write_style(&mut lock, &config, files, cd)
            }
        });
        if drawn.is_err() {
            // The snippet could not be drawn (or standard error is closed, as in
            // `wireplan check … 2>&1 | head`): the one-line form, and nothing more once even
            // that cannot be written. A closed stream is never a panic.
            if writeln!(lock, "{}", one_line(d)).is_err() {
                return;
            }
        }
    }
    for (code, n) in omitted {
        if writeln!(lock, "{}", omitted_line(code, n)).is_err() {
            return;
        }
    }
}

/// A position in a source file, as the JSON records give it.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct JsonPosition {
    /// 1-based line.
    pub line: usize,
    /// 1-based column in bytes.
    pub column: usize,
}

/// A secondary label of a JSON record: more context at another place.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JsonLabel {
    /// Display name of the file.
    pub file: String,
    /// 1-based line of the label's start.
    pub line: usize,
    /// 1-based column in bytes of the label's start.
    pub column: usize,
    /// Where the label ends (one past its last byte; equal to the start for an empty span).
    pub end: JsonPosition,
    /// What the label says (may be empty).
    pub message: String,
}

/// The JSON record of one diagnostic, as printed by `wireplan check --format json` (an array
/// of these; the shape is documented in `docs/tools.md`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JsonDiagnostic {
    /// Kebab-case code.
    pub code: &'static str,
    /// `"error"` or `"warning"`.
    pub severity: Severity,
    /// The one-line message (the notes are in `notes`).
    pub message: String,
    /// Display name of the file of the primary label, or `null`.
    pub file: Option<String>,
    /// 1-based line, or `null` without a location.
    pub line: Option<usize>,
    /// 1-based column in bytes, or `null` without a location.
    pub column: Option<usize>,
    /// Where the primary label ends (one past its last byte), or `null` without a location.
    pub end: Option<JsonPosition>,
    /// The notes ("did you mean 'x'?", hints), in order.
    pub notes: Vec<String>,
    /// The secondary labels, in order.
    pub labels: Vec<JsonLabel>,
}

/// The 1-based line and byte column of the start and of the end of `span`.
pub fn span_positions(sources: &SourceMap, span: Span) -> (JsonPosition, JsonPosition) {
    let f = sources.get(span.file);
    let (line, column) = f.line_col(span.start as usize);
    let (end_line, end_column) = f.line_col(span.end as usize);
    (
        JsonPosition { line, column },
        JsonPosition {
            line: end_line,
            column: end_column,
        },
    )
}

/// Converts diagnostics to their JSON records.
pub fn to_json(sources: &SourceMap, diags: &[Diagnostic]) -> Vec<JsonDiagnostic> {
    diags
        .iter()
        .map(|d| {
            let (file, start, end) = match d.primary_span() {
                Some(span) => {
                    let (start, end) = span_positions(sources, span);
                    (
                        Some(sources.get(span.file).name.clone()),
                        Some(start),
                        Some(end),
                    )
                }
                None => (None, None, None),
            };
            let labels = d
                .labels
                .iter()
                .filter(|l| !l.primary)
                .map(|l| {
                    let (start, end) = span_positions(sources, l.span);
                    JsonLabel {
                        file: sources.get(l.span.file).name.clone(),
                        line: start.line,
                        column: start.column,
                        end,
                        message: l.message.clone(),
                    }
                })
                .collect();
            JsonDiagnostic {
                code: d.code.as_str(),
                severity: d.severity,
                message: d.message.clone(),
                file,
                line: start.map(|p| p.line),
                column: start.map(|p| p.column),
                end,
                notes: d.notes.clone(),
                labels,
            }
        })
        .collect()
}

/// "did you mean": the one suggestion rule of the whole project (Nette's
/// `Helpers::getSuggestion`, weighted edit distance), shared with the runtime's messages;
/// see [`wireplan_runtime::suggest`].
pub use wireplan_runtime::suggest::{suggest, MAX_SUGGESTED_LEN};

/// Where `name` is written as a whole word inside `span` (see
/// [`Diagnostics::narrow_to_focus`]).
fn find_name(sources: &SourceMap, span: Span, name: &str) -> Option<Span> {
    if name.is_empty() {
        return None;
    }
    // (an id from another map gets an empty text: no match)
    let text = sources.get(span.file).text.get(span.range())?;
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'\\' || b >= 0x80;
    for (i, _) in text.match_indices(name) {
        let end = i + name.len();
        if bytes.get(end).is_some_and(|&b| is_word(b)) {
            continue;
        }
        let mut start = i;
        if start > 0 && bytes[start - 1] == b'\\' && !name.starts_with('\\') {
            start -= 1;
        }
        if start > 0 && is_word(bytes[start - 1]) {
            continue;
        }
        return Some(Span::new(
            span.file,
            span.start as usize + start,
            span.start as usize + end,
        ));
    }
    None
}

/// The note for a number given where an int is expected but read as text: a whole number
/// past the 64-bit range is a string in NEON (as in nette/neon), which the quoted value in a
/// message does not make plain. `None` for any other text.
pub fn past_int_range_note(text: &str) -> Option<String> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    (!digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && text.parse::<i64>().is_err())
    .then(|| {
        format!(
            "{text} is past the range of a whole number ({} to {}), so NEON reads it as text",
            i64::MIN,
            i64::MAX
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_record_has_byte_column() {
        let mut sm = SourceMap::new();
        let f = sm.add("a.neon", "é: [\n");
        let d = Diagnostic::error(Code::NeonSyntax, "Unexpected end")
            .with_primary(Span::new(f, 4, 5), "");
        let j = to_json(&sm, &[d]);
        assert_eq!(j[0].line, Some(1));
        assert_eq!(j[0].column, Some(5));
        assert_eq!(j[0].file.as_deref(), Some("a.neon"));
    }

    /// A focus narrows the primary span to the name written as a whole word: not inside a
    /// longer name, with its leading backslash, the first of several; a name the span does
    /// not contain (it came from a parameter or a script) leaves the span as it was.
    #[test]
    fn a_focus_narrows_the_span_to_the_name_as_written() {
        let mut sm = SourceMap::new();
        let text = "svc:\n\ttype: App\\FooBar\n\tcreate: \\App\\Foo(App\\Foo)\n";
        let f = sm.add("a.neon", text);
        let whole = Span::new(f, 5, text.len());
        let narrowed = |name: &str| {
            let mut diags = Diagnostics::new();
            diags.push(Diagnostic::error(Code::ClassNotFound, "x").at(Some(whole)));
            diags.push(
                Diagnostic::error(Code::ClassNotFound, "y")
                    .at(Some(whole))
                    .with_focus(name),
            );
            diags.narrow_to_focus(1, &sm);
            assert_eq!(
                diags.items()[0].primary_span(),
                Some(whole),
                "before `from`"
            );
            assert_eq!(diags.items()[1].focus, None, "the request is taken");
            let at = diags.items()[1].primary_span().expect("a span");
            sm.get(f).text[at.range()].to_string()
        };
        assert_eq!(narrowed("App\\Foo"), "\\App\\Foo");
        assert_eq!(narrowed("App\\FooBar"), "App\\FooBar");
        assert_eq!(narrowed("Foo"), &text[5..]);
        assert_eq!(narrowed("App\\Missing"), &text[5..]);
    }
}
