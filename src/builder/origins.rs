//! What `complete` records about each argument it fills, for `explain`: the decision (written,
//! autowired, collection, default, factory parameter, unfilled) next to the value the plan
//! holds, so explanations never re-derive Nette's argument rules.

use crate::source::Span;
use wireplan_runtime::plan::Expr as P;

/// Where one argument's value came from, as decided by `complete` (Nette's
/// `Resolver::autowireArguments` order: written value, autowired class, `T[]` collection,
/// default, else an error).
#[derive(Debug, Clone, PartialEq)]
pub enum ArgumentSource {
    /// Written in the configuration or by a script, by name or position; `span` is where.
    Written {
        /// The written value's span (points into a NEON file or a script).
        span: Option<Span>,
    },
    /// Autowired by the parameter's class type: `service` is what `getByType(ty)` answered.
    Autowired {
        /// The class the parameter declares.
        ty: String,
        /// The chosen service.
        service: String,
    },
    /// A `T[]` parameter: every autowired service of `T` (both priorities), in definition
    /// order, the service itself left out.
    Collection {
        /// The item type `T`.
        ty: String,
        /// The collected services.
        services: Vec<String>,
    },
    /// The declared default, because nothing was written (and, for a class type `tried`, no
    /// autowired service of that class exists).
    Default {
        /// The class that autowiring looked for first, if the parameter has one.
        tried: Option<String>,
    },
    /// A factory's `create()` parameter, passed through when the factory is called.
    FactoryParameter,
    /// Nothing could fill the parameter (missing or ambiguous service, no default): an error
    /// was reported, and the plan holds `null`.
    Unfilled {
        /// The class autowiring looked for, if the parameter has one.
        tried: Option<String>,
    },
}

/// How one parameter of a call was filled.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgumentOrigin {
    /// The parameter's name (without `$`).
    pub parameter: String,
    /// The parameter's declared type, as written in the catalog (`App\Logger`, `?int`, …).
    pub declared: String,
    /// Where the value came from.
    pub source: ArgumentSource,
    /// The completed value (what the plan holds).
    pub value: P,
}

/// The arguments of one call of a definition (its constructor, a factory method, a setup
/// call, or a statement nested in an argument).
#[derive(Debug, Clone, PartialEq)]
pub struct CallOrigin {
    /// The function called, as messages name it (`App\Mailer::__construct()`).
    pub function: String,
    /// Is the call part of the setup (rather than of the creator)?
    pub in_setup: bool,
    /// Where the statement is written: the place of its values that have none of their own
    /// (those an extension script wrote: a setup it added is placed at its `addSetup()` call).
    pub at: Option<crate::source::Span>,
    /// Every parameter, in signature order (a variadic one once per value).
    pub arguments: Vec<ArgumentOrigin>,
}
