//! The completed statements of a definition ([`Completed`]): what `complete` produces and
//! the plan is built from.

use super::CallOrigin;
use indexmap::IndexMap;
use wireplan_runtime::plan;

/// Completed statements of a definition, ready for the plan.
///
/// The parts most services leave empty (tags, locator references, factory parameters, the
/// argument origins) sit in one box allocated only when one of them is set (issue #13: inline
/// they were 192 of the 296 bytes every completed definition holds).
#[derive(Debug, Clone, PartialEq)]
pub struct Completed {
    /// The creating statement.
    pub create: plan::Expr,
    /// Setup statements in order.
    pub setup: Vec<plan::Expr>,
    rest: Option<Box<CompletedRest>>,
}

/// The rarely set parts of a [`Completed`].
#[derive(Debug, Clone, PartialEq, Default)]
struct CompletedRest {
    tags: IndexMap<String, plan::Expr>,
    references: IndexMap<String, plan::Expr>,
    parameters: Vec<String>,
    calls: Vec<CallOrigin>,
}

/// What the accessors of a [`Completed`] without its rarely set parts read.
static NO_REST: std::sync::LazyLock<CompletedRest> =
    std::sync::LazyLock::new(CompletedRest::default);

/// The parts of a [`Completed`] by value: create, setup, tags, references, factory parameters.
pub type CompletedParts = (
    plan::Expr,
    Vec<plan::Expr>,
    IndexMap<String, plan::Expr>,
    IndexMap<String, plan::Expr>,
    Vec<String>,
);

impl Completed {
    /// Completed statements: `create`, `setup`, tag values, locator references (name → the
    /// service `get(name)` returns) and a factory's `create()` parameter names; no argument
    /// origins yet ([`Completed::set_calls`]).
    pub fn new(
        create: plan::Expr,
        setup: Vec<plan::Expr>,
        tags: IndexMap<String, plan::Expr>,
        references: IndexMap<String, plan::Expr>,
        parameters: Vec<String>,
    ) -> Completed {
        let rest =
            (!tags.is_empty() || !references.is_empty() || !parameters.is_empty()).then(|| {
                Box::new(CompletedRest {
                    tags,
                    references,
                    parameters,
                    calls: Vec::new(),
                })
            });
        Completed {
            create,
            setup,
            rest,
        }
    }

    fn rest(&self) -> &CompletedRest {
        self.rest.as_deref().unwrap_or(&NO_REST)
    }

    /// Tag values, converted.
    pub fn tags(&self) -> &IndexMap<String, plan::Expr> {
        &self.rest().tags
    }

    /// Locators: name → the service `get(name)` returns.
    pub fn references(&self) -> &IndexMap<String, plan::Expr> {
        &self.rest().references
    }

    /// Factories: the names of the `create()` parameters, in order.
    pub fn parameters(&self) -> &[String] {
        &self.rest().parameters
    }

    /// How every argument of every call in `create` and `setup` was filled, in completion
    /// order (what `explain` shows; a plain compilation keeps only the calls a dynamic
    /// parameter fills).
    pub fn calls(&self) -> &[CallOrigin] {
        &self.rest().calls
    }

    /// Replaces the argument origins ([`Completed::calls`]).
    pub fn set_calls(&mut self, calls: Vec<CallOrigin>) {
        if !calls.is_empty() || self.rest.is_some() {
            self.rest.get_or_insert_with(Box::default).calls = calls;
        }
    }

    /// The parts by value (the argument origins are dropped).
    pub fn into_parts(self) -> CompletedParts {
        let rest = self.rest.map(|r| *r).unwrap_or_default();
        (
            self.create,
            self.setup,
            rest.tags,
            rest.references,
            rest.parameters,
        )
    }

    /// Moves the parts out, leaving a `null` create, no setup and only the argument origins.
    pub fn take_parts(&mut self) -> Completed {
        let create = std::mem::replace(&mut self.create, plan::Expr::Null);
        let setup = std::mem::take(&mut self.setup);
        match self.rest.as_deref_mut() {
            Some(r) => Completed::new(
                create,
                setup,
                std::mem::take(&mut r.tags),
                std::mem::take(&mut r.references),
                std::mem::take(&mut r.parameters),
            ),
            None => Completed::new(create, setup, IndexMap::new(), IndexMap::new(), Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rarely_set_parts_are_boxed_only_when_set() {
        // Issue #13: every completed service holds one of these; the rare parts add a pointer.
        assert!(std::mem::size_of::<Completed>() <= 112);
        let plain = Completed::new(
            plan::Expr::Null,
            Vec::new(),
            IndexMap::new(),
            IndexMap::new(),
            Vec::new(),
        );
        assert!(plain.rest.is_none());
        assert!(plain.tags().is_empty() && plain.calls().is_empty());
        let mut tags = IndexMap::new();
        tags.insert("t".to_string(), plan::Expr::Int(5));
        let mut tagged = Completed::new(
            plan::Expr::Null,
            Vec::new(),
            tags,
            IndexMap::new(),
            vec!["x".into()],
        );
        assert_eq!(tagged.tags()["t"], plan::Expr::Int(5));
        assert_eq!(tagged.parameters(), ["x".to_string()]);
        let moved = tagged.take_parts();
        assert!(tagged.tags().is_empty() && tagged.parameters().is_empty());
        let (_, _, tags, references, parameters) = moved.into_parts();
        assert_eq!(tags.len(), 1);
        assert!(references.is_empty());
        assert_eq!(parameters, ["x"]);
    }
}
