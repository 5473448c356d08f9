//! `explain --type T` and the REPL's `:type T`: which services provide a type, which one
//! `getByType` returns, and why the others are not it (Nette's autowiring rules,
//! `../shared/reference/nette-di.md` §5.1, as the [`AutowiringIndex`] implements them).
//!
//! [`AutowiringIndex`]: crate::builder::AutowiringIndex

use crate::builder::{Autowired, ContainerBuilder, Phase};
use crate::diagnostics::{Code, Diagnostic};
use serde::Serialize;
use std::fmt;

/// What `getByType(T)` answers. In JSON: `{"answer": "service" | "none" | "ambiguous",
/// "services": [names]}`, `services` always a list (one name, none, or the ambiguous ones), so
/// a reader needs no case for its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeAnswer {
    /// Exactly one preferred autowired service.
    Service(String),
    /// No autowired service (`getByType` returns null; an argument of this type needs a value
    /// or a default).
    None,
    /// Several preferred services: `getByType` fails with `ambiguous-service`. Their names are
    /// sorted, as in that error's message.
    Ambiguous(Vec<String>),
}

impl Serialize for TypeAnswer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let (answer, services): (&str, &[String]) = match self {
            TypeAnswer::Service(one) => ("service", std::slice::from_ref(one)),
            TypeAnswer::None => ("none", &[]),
            TypeAnswer::Ambiguous(many) => ("ambiguous", many),
        };
        let mut st = s.serialize_struct("TypeAnswer", 2)?;
        st.serialize_field("answer", answer)?;
        st.serialize_field("services", services)?;
        st.end()
    }
}

/// Why a service providing the type is (or is not) the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum CandidateStatus {
    /// The only preferred autowired service: `getByType` returns it.
    Chosen,
    /// One of several preferred autowired services: the request is ambiguous.
    Ambiguous,
    /// Autowired, but another service claimed the type as preferred with `autowired: [...]`:
    /// only collections (`T[]`, `typed()`) get it.
    Secondary {
        /// The services preferred for the type.
        preferred: Vec<String>,
    },
    /// `autowired: [...]` names types that do not cover this one: only collections get it.
    RestrictedTo {
        /// The types the service is autowired for.
        types: Vec<String>,
    },
    /// `autowired: false`.
    NotAutowired,
    /// The type is excluded from autowiring (`di › excluded`, `addExcludedClasses`).
    Excluded,
    /// The service whose constructor asks for the type: autowiring never passes a service to
    /// its own constructor (Nette excludes it from the candidates).
    Itself,
}

/// One service whose type is the requested type or a subtype.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// The service name.
    pub service: String,
    /// Its resolved type.
    #[serde(rename = "type")]
    pub type_: String,
    /// Why it is or is not the answer.
    #[serde(flatten)]
    pub status: CandidateStatus,
}

/// Everything about one type's autowiring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeExplanation {
    /// The type asked about, in the catalog's spelling.
    #[serde(rename = "type")]
    pub type_: String,
    /// Asked in phase A (before `resolve`): the answer covers only the services registered so
    /// far, and types are not reliable before `beforeCompile`.
    pub preliminary: bool,
    /// What `getByType` answers.
    #[serde(flatten)]
    pub answer: TypeAnswer,
    /// Every service of the type or a subtype, in definition order.
    pub candidates: Vec<Candidate>,
    /// What a collection of the type (`T[]`, `typed(T)`) receives: every autowired service,
    /// preferred ones first.
    pub collection: Vec<String>,
}

/// Explains `getByType(ty)` over the builder's current state (re-resolving types when
/// definitions changed, as a script's `getByType` would). Works in every phase but while types
/// are being resolved; in phase A the answer is marked preliminary.
///
/// Errors: `class-not-found` (with a "did you mean") for a type the catalog lacks;
/// `not-allowed-during-resolving` while `resolve` runs.
pub fn type_candidates(b: &mut ContainerBuilder, ty: &str) -> Result<TypeExplanation, Diagnostic> {
    let Some(class) = b.catalog.get(ty) else {
        let d = Diagnostic::error(
            Code::ClassNotFound,
            format!("Class or interface '{ty}' not found in the type catalog."),
        );
        // `int`, `string`, …: no service is autowired for a built-in type (a parameter of one
        // takes a value: an argument or a %parameter%).
        if crate::catalog::is_builtin(ty) {
            return Err(d.with_note(format!(
                "'{ty}' is a built-in type: autowiring answers for classes and interfaces only; a parameter of type {ty} takes a value (an argument or a %parameter%)"
            )));
        }
        let names: Vec<String> = b.catalog.classes().map(|c| c.name.to_string()).collect();
        return Err(d.with_suggestion(ty, names.iter().map(String::as_str)));
    };
    let ty = class.name.to_string();
    let answer = match b.get_by_type(&ty) {
        Ok(Some(n)) => TypeAnswer::Service(n),
        Ok(None) => TypeAnswer::None,
        Err(d) if d.code == Code::AmbiguousService => {
            // In the order of the `ambiguous-service` error's message (Nette's: sorted), so
            // the answer reads as the error `check` reports.
            let mut names: Vec<String> = b.autowiring().high(&ty).map(String::from).collect();
            names.sort();
            TypeAnswer::Ambiguous(names)
        }
        Err(d) => return Err(d),
    };
    let providers = b.find_by_type(&ty)?;
    let high: Vec<String> = b.autowiring().high(&ty).map(String::from).collect();
    let all = b.autowiring().all(&ty);
    let mut candidates = Vec::new();
    for name in providers {
        let Some(def) = b.get_definition(&name) else {
            continue;
        };
        let status = if high.contains(&name) {
            if high.len() == 1 {
                CandidateStatus::Chosen
            } else {
                CandidateStatus::Ambiguous
            }
        } else if all.contains(&name) {
            match &def.autowired {
                Autowired::Types(types) => CandidateStatus::RestrictedTo {
                    types: types.clone(),
                },
                Autowired::All(_) => CandidateStatus::Secondary {
                    preferred: high.clone(),
                },
            }
        } else if def.autowired == Autowired::All(false) {
            CandidateStatus::NotAutowired
        } else {
            CandidateStatus::Excluded
        };
        candidates.push(Candidate {
            service: name.clone(),
            type_: def.resolved_type.clone().unwrap_or_default(),
            status,
        });
    }
    Ok(TypeExplanation {
        type_: ty,
        preliminary: b.phase() == Phase::Loading,
        answer,
        candidates,
        collection: all,
    })
}

impl fmt::Display for CandidateStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CandidateStatus::Chosen => write!(f, "chosen: the only preferred autowired service"),
            CandidateStatus::Ambiguous => {
                write!(f, "ambiguous: one of several preferred autowired services")
            }
            CandidateStatus::Secondary { preferred } => write!(
                f,
                "not chosen: {} claimed this type with autowired: [...]; collections only",
                preferred.join(", ")
            ),
            CandidateStatus::RestrictedTo { types } => write!(
                f,
                "not chosen: autowired only for [{}]; collections only",
                types.join(", ")
            ),
            CandidateStatus::NotAutowired => write!(f, "not chosen: autowired: false"),
            CandidateStatus::Excluded => {
                write!(f, "not chosen: the type is excluded from autowiring")
            }
            CandidateStatus::Itself => write!(
                f,
                "not chosen: the service being created, which cannot be passed to its own constructor"
            ),
        }
    }
}

impl fmt::Display for TypeExplanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "type {}", self.type_)?;
        if self.preliminary {
            writeln!(
                f,
                "preliminary (phase A): types are not reliable before beforeCompile; this is what getByType() answers now, from the services registered so far"
            )?;
        }
        let answer = match &self.answer {
            TypeAnswer::Service(n) => n.clone(),
            TypeAnswer::None => "null (no autowired service)".into(),
            TypeAnswer::Ambiguous(ns) => {
                format!("error ambiguous-service: {}", joined(ns))
            }
        };
        writeln!(f, "getByType({}) → {answer}", self.type_)?;
        if self.candidates.is_empty() {
            writeln!(f, "providers: none")?;
        } else {
            writeln!(f, "providers ({}):", self.candidates.len())?;
            let w = self
                .candidates
                .iter()
                .map(|c| c.service.len())
                .max()
                .unwrap_or(0);
            let tw = self
                .candidates
                .iter()
                .map(|c| c.type_.len())
                .max()
                .unwrap_or(0);
            let (head, omitted, tail) = elided(&self.candidates);
            for c in head {
                writeln!(f, "  {:w$}  {:tw$}  {}", c.service, c.type_, c.status)?;
            }
            if omitted > 0 {
                writeln!(f, "  … {omitted} more (--format json lists them all) …")?;
            }
            for c in tail {
                writeln!(f, "  {:w$}  {:tw$}  {}", c.service, c.type_, c.status)?;
            }
        }
        let list = if self.collection.is_empty() {
            "nothing".to_string()
        } else {
            joined(&self.collection)
        };
        writeln!(f, "collections ({}[], typed()) receive: {list}", self.type_)
    }
}

/// Items a text answer shows whole; of a longer list it shows the first [`SHOWN_HEAD`] and
/// the last [`SHOWN_TAIL`] (the JSON answer has them all).
const SHOWN: usize = 40;
const SHOWN_HEAD: usize = 30;
const SHOWN_TAIL: usize = 10;

/// The head of `items` to show, how many are left out, and the tail to show.
fn elided<T>(items: &[T]) -> (&[T], usize, &[T]) {
    if items.len() <= SHOWN {
        return (items, 0, &[]);
    }
    let tail = items.len() - SHOWN_TAIL;
    (&items[..SHOWN_HEAD], tail - SHOWN_HEAD, &items[tail..])
}

/// Service names joined with `, `, a long list elided in the middle ([`elided`]).
fn joined(names: &[String]) -> String {
    let (head, omitted, tail) = elided(names);
    let mut out = head.join(", ");
    if omitted > 0 {
        out.push_str(&format!(", … {omitted} more …, {}", tail.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{elided, joined};

    /// A long list shows its first 30 and last 10 names around a count; 40 or fewer show whole.
    #[test]
    fn long_lists_of_services_are_elided_in_the_middle() {
        let names: Vec<String> = (0..100).map(|i| format!("s{i}")).collect();
        let text = joined(&names);
        assert!(text.starts_with("s0, s1, "), "{text}");
        assert!(text.contains(", s29, … 60 more …, s90, "), "{text}");
        assert!(text.ends_with(", s99"), "{text}");
        let (head, omitted, tail) = elided(&names[..40]);
        assert_eq!((head.len(), omitted, tail.len()), (40, 0, 0));
        assert_eq!(joined(&names[..3]), "s0, s1, s2");
    }
}
