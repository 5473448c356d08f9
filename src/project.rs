//! The `wireplan:` section: settings for the compiler itself rather than for the container —
//! the script sandbox's limits ([`crate::script::sandbox::project_limits`]) and the parameters
//! that are sensitive (docs/configuration.md).

use crate::neon::{Array, Kind};
use crate::schema::Expect;

/// The schema of `wireplan:`; every key is optional: `sandbox:` (a map of limits, see
/// [`crate::script::Limits`]) and `sensitive:` (a list of parameter names).
pub fn schema() -> Expect {
    let count = || Expect::int().min(1.0);
    Expect::structure([
        (
            "sandbox",
            Expect::structure([
                ("timeLimit", Expect::type_("int|float").min(0.001)),
                ("maxAllocated", count()),
                ("maxOperations", count()),
                ("maxCallLevels", count().max(1000.0)),
                ("maxStringSize", count()),
                ("maxArraySize", count()),
                ("maxMapSize", count()),
                ("maxVariables", count()),
            ]),
        ),
        ("sensitive", Expect::list_of(Expect::string())),
    ])
    .skip_defaults()
}

/// The top-level parameter names listed under `wireplan › sensitive`, read from the loaded
/// (not yet expanded) sections, because they decide how parameters expand. A sensitive
/// parameter is treated as dynamic: never frozen into the plan, read at start-up, so its value
/// appears in no plan, diagnostic or display. A malformed list is reported by [`schema`] when
/// the section is validated; here only its string items count.
pub fn sensitive_parameters(sections: &Array) -> Vec<String> {
    let Some(Kind::Array(section)) = sections.get("wireplan").map(|v| &v.kind) else {
        return Vec::new();
    };
    let Some(Kind::Array(list)) = section.get("sensitive").map(|v| &v.kind) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|(_, v)| match &v.kind {
            Kind::Str(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}
