use super::*;

/// `.bin` in any letter case asks for the binary form; anything else for JSON.
#[test]
fn a_bin_name_in_any_case_asks_for_the_binary_form() {
    for (name, enc) in [
        ("app.bin", Encoding::Binary),
        ("app.BIN", Encoding::Binary),
        ("app.Bin", Encoding::Binary),
        ("app.json", Encoding::Json),
        ("app.bin.json", Encoding::Json),
        ("bin", Encoding::Json),
    ] {
        assert_eq!(Encoding::for_path(Path::new(name)), enc, "{name}");
    }
}

fn sample() -> Plan {
    Plan::from_json_str(
        r#"{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
            "parameters": {"x": {"$float": "NAN"}, "m": {"$$k": [1, 2.5, null]}},
            "services": {"a": {"type": "A", "lifespan": "scoped", "autowired": ["A"],
               "create": {"$new": "A", "args": [{"$param": "env.X"}, {"$concat": ["a", "b"]}]},
               "setup": [{"$set": ["@self", "p"], "value": {"$ref": "@self"}},
                         {"$call": [{"$ref": "a"}, "m"], "args": [{"$arg": "z"}]}],
               "source": {"file": "f.neon", "line": 1, "column": 2}},
              "f": {"kind": "factory", "type": "F", "implement": "F", "parameters": ["z"],
               "autowired": false, "create": {"$call": ["A", "make"], "args": []}}},
            "types": {"A": ["a"]}, "tags": {"t": {"a": true}},
            "initialization": [{"$call": [{"$ref": "a"}, "go"], "args": []}]}"#,
        "<t>",
    )
    .unwrap()
}

#[test]
fn binary_round_trips_the_same_model() {
    let plan = sample();
    let bin = plan.to_binary();
    let back = Plan::from_bytes(&bin, "<bin>").unwrap();
    // NaN != NaN, so compare the JSON forms.
    assert_eq!(back.to_json(), plan.to_json());
    assert_eq!(bin, back.to_binary());
}

/// Names are stored inline up to 24 bytes and on the heap beyond: names on both sides of
/// that boundary (and multi-byte UTF-8 across it) keep their text through both forms and
/// are found by the look-ups the loader makes (services, aliases, the types index).
#[test]
fn names_on_both_sides_of_the_inline_limit_round_trip() {
    let n24 = "s".repeat(24);
    let n25 = "t".repeat(25);
    let long = format!("App\\{}", "Ž".repeat(30));
    let long_json = long.replace('\\', "\\\\");
    let json = format!(
        r#"{{"format": "wireplan-plan", "version": 3, "compiler": "t", "inputs_hash": "0",
            "services": {{
              "{n24}": {{"type": "{long_json}", "create": {{"$new": "{long_json}", "args": []}}}},
              "{n25}": {{"type": "A", "create": {{"$new": "A", "args": [{{"$ref": "{n24}"}}]}}}}}},
            "aliases": {{"{n25}x": "{n25}"}},
            "types": {{"{long_json}": ["{n24}"], "A": ["{n25}"]}}}}"#
    );
    let plan = Plan::from_json_str(&json, "<t>").unwrap();
    for p in [
        plan.clone(),
        Plan::from_bytes(&plan.to_binary(), "<bin>").unwrap(),
    ] {
        assert_eq!(p, plan);
        assert_eq!(p.to_json(), plan.to_json());
        assert_eq!(p.services.get_index_of(n24.as_str()), Some(0));
        assert_eq!(
            p.services[n25.as_str()].create.to_json()["args"][0]["$ref"],
            n24
        );
        assert_eq!(p.services[n24.as_str()].type_, long);
        assert_eq!(p.aliases[format!("{n25}x").as_str()], n25);
        assert_eq!(p.types[long.as_str()].as_slice(), [n24.as_str()]);
    }
}

/// The payload of a binary plan (no header).
fn payload(plan: &Plan) -> Vec<u8> {
    plan.to_binary()[BINARY_HEADER_LEN..].to_vec()
}

/// A binary plan around `payload` (of a version-1 plan, as the samples here are), with a
/// correct header and checksum.
fn wrap(payload: &[u8]) -> Vec<u8> {
    let mut out = BINARY_MAGIC.to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&checksum(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// `payload` with the first occurrence of `from` replaced by `to`.
fn splice(payload: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = payload
        .windows(from.len())
        .position(|w| w == from)
        .expect("the marker is in the payload");
    [&payload[..at], to, &payload[at + from.len()..]].concat()
}

/// The postcard bytes of a length-prefixed string (lengths below 128 here).
fn pstr(s: &str) -> Vec<u8> {
    [&[s.len() as u8][..], s.as_bytes()].concat()
}

fn one_service(create: &str) -> Plan {
    Plan::from_json_str(
        &format!(
            r#"{{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
                "services": {{"db": {{"type": "App\\Db", "create": {create}}}}}}}"#
        ),
        "<t>",
    )
    .unwrap()
}

fn binary_error(bytes: &[u8]) -> String {
    match Plan::from_bytes(bytes, "p.bin") {
        Err(e @ Error::BadPlan { .. }) => e.to_string(),
        other => panic!("expected BadPlan, got {other:?}"),
    }
}

#[test]
fn deeply_nested_binary_expressions_stop_the_decoder() {
    // {"$new": "App\\Db", "args": [MARK]}, MARK then replaced by [[[…null…]]].
    let base = payload(&one_service(r#"{"$new": "App\\Db", "args": ["MARK"]}"#));
    let mark = [&[4u8][..], &pstr("MARK")].concat(); // BExpr::Str is variant 4
    for depth in [10_000, 1_000_000] {
        let mut deep = [5u8, 1].repeat(depth); // BExpr::List of one item, nested
        deep.push(0); // BExpr::Null
        let bytes = wrap(&splice(&base, &mark, &deep));
        // On a small stack too: the decoder stops at the limit rather than overflowing.
        let e = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || binary_error(&bytes))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(
            e,
            "p.bin: invalid plan: corrupt binary plan: an expression is nested more than \
             108 levels deep (plans allow 100)"
        );
    }
    // Within the decoder's slack, the loader's own depth check reports it.
    let mut deep = [5u8, 1].repeat(101);
    deep.push(0);
    let plan = Plan::from_bytes(&wrap(&splice(&base, &mark, &deep)), "p.bin").unwrap();
    assert_eq!(plan.services["db"].create.json_depth(), 103);
    // And a plan decodes again normally afterwards on the same thread.
    assert_eq!(
        Plan::from_bytes(&wrap(&base), "p.bin").unwrap(),
        one_service(r#"{"$new": "App\\Db", "args": ["MARK"]}"#)
    );
}

#[test]
fn unknown_kind_and_lifespan_codes_are_errors() {
    let base = payload(&one_service(r#"{"$ref": "db"}"#));
    // A service is its name, then kind (u8), type, lifespan (u8).
    let name = pstr("db");
    let ty = pstr("App\\Db");
    let ok = [&name[..], &[0], &ty, &[0]].concat();
    for (kind, lifespan, why) in [
        (9, 0, "service 'db': unknown kind 9 (0 service, 1 factory, 2 accessor, 3 locator, 4 imported, 5 slot)"),
        (255, 0, "service 'db': unknown kind 255"),
        (0, 7, "service 'db': unknown lifespan 7 (0 singleton, 1 scoped, 2 transient)"),
    ] {
        let bad = [&name[..], &[kind], &ty, &[lifespan]].concat();
        let e = binary_error(&wrap(&splice(&base, &ok, &bad)));
        assert!(
            e.starts_with(&format!("p.bin: invalid plan: corrupt binary plan: {why}")),
            "{e}"
        );
    }
    // Every known code still loads.
    for (kind, lifespan) in [(1, 1), (2, 2), (3, 0), (4, 0), (5, 1)] {
        let good = [&name[..], &[kind], &ty, &[lifespan]].concat();
        let plan = Plan::from_bytes(&wrap(&splice(&base, &ok, &good)), "p.bin").unwrap();
        let sp = &plan.services["db"];
        assert_eq!(mirror_codes(sp.kind, sp.lifespan), (kind, lifespan));
    }
}

fn mirror_codes(kind: crate::plan::ServiceKind, lifespan: crate::plan::Lifespan) -> (u8, u8) {
    use crate::plan::{Lifespan as L, ServiceKind as K};
    let k = match kind {
        K::Service => 0,
        K::Factory => 1,
        K::Accessor => 2,
        K::Locator => 3,
        K::Imported => 4,
        K::Slot => 5,
    };
    let l = match lifespan {
        L::Singleton => 0,
        L::Scoped => 1,
        L::Transient => 2,
    };
    (k, l)
}

#[test]
fn duplicate_names_and_trailing_bytes_are_errors() {
    // Two services, then the second renamed to the first's name ("da" -> "db").
    let two = Plan::from_json_str(
        r#"{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
            "services": {"db": {"type": "A", "create": {"$new": "A", "args": ["x"]}},
                         "da": {"type": "A", "create": {"$new": "A", "args": ["y"]}}},
            "aliases": {"a1": "db", "a2": "da"},
            "types": {"T1": ["db"], "T2": ["da", "db"]}}"#,
        "<t>",
    )
    .unwrap();
    let base = payload(&two);
    let dup = splice(&base, &pstr("da"), &pstr("db"));
    assert_eq!(
        binary_error(&wrap(&dup)),
        "p.bin: invalid plan: corrupt binary plan: service 'db' appears twice"
    );
    let dup = splice(&base, &pstr("a2"), &pstr("a1"));
    assert_eq!(
        binary_error(&wrap(&dup)),
        "p.bin: invalid plan: corrupt binary plan: alias 'a1' appears twice"
    );
    // The types index: an entry of one service and one of two, the second renamed.
    let dup = splice(&base, &pstr("T2"), &pstr("T1"));
    assert_eq!(
        binary_error(&wrap(&dup)),
        "p.bin: invalid plan: corrupt binary plan: type 'T1' appears twice"
    );
    let mut trailing = base.clone();
    trailing.extend_from_slice(b"garbage");
    assert_eq!(
        binary_error(&wrap(&trailing)),
        "p.bin: invalid plan: corrupt binary plan: 7 byte(s) after the end of the plan"
    );
    assert_eq!(Plan::from_bytes(&wrap(&base), "p.bin").unwrap(), two);
}

#[test]
fn strings_are_utf8_checked_ascii_or_not() {
    // ASCII names take the inline check, others the general one: both round-trip.
    let plan = Plan::from_json_str(
        r#"{"format": "wireplan-plan", "version": 1, "compiler": "t", "inputs_hash": "0",
            "services": {"café": {"type": "App\\Db", "create": {"$new": "App\\Db",
               "args": ["naïve", {"$ref": "db"}]}},
                         "db": {"type": "A", "create": {"$new": "A", "args": []}}}}"#,
        "<t>",
    )
    .unwrap();
    let base = payload(&plan);
    assert_eq!(Plan::from_bytes(&wrap(&base), "p.bin").unwrap(), plan);
    // A name whose bytes are not UTF-8 (an ASCII name with its last byte replaced by a
    // lone continuation byte, and a non-ASCII one cut inside a character) is refused.
    for (from, to) in [
        (pstr("db"), [&[2u8][..], b"d", &[0x80]].concat()),
        (pstr("café"), [&[5u8][..], b"caf", &[0xc3, 0x28]].concat()),
    ] {
        let bad = splice(&base, &from, &to);
        let err = binary_error(&wrap(&bad));
        assert!(
            err.contains("a string that is not UTF-8"),
            "{}: {err}",
            String::from_utf8_lossy(&from)
        );
    }
}

/// A plan with every section, every service field and every expression variant.
fn rich(version: u32) -> Plan {
    let mut plan = Plan::from_json_str(
        r#"{"format": "wireplan-plan", "version": 3, "compiler": "t", "inputs_hash": "ab",
          "dependencies": [{"path": "a.neon", "hash": "01"}],
          "parameters": {"m": {"$$k": [1, -2, 2.5, null, true, "s"]}},
          "services": {
            "a": {"type": "A", "lifespan": "scoped", "autowired": ["A", "I"],
              "tags": {"t": {"k": 1}},
              "create": {"$new": "A", "args": [{"$param": "env.X"},
                 {"$concat": ["a", {"$param": "p"}]}, {"$func": "int", "args": [{"$param": "q"}]},
                 {"$get": [{"$ref": "b"}, "dsn"]}, {"$callable": ["A", "now"]},
                 {"$callable": ["@self", "h"]}, {"$provider": "b"}, -9223372036854775808]},
              "setup": [{"$set": ["@self", "p"], "value": {"$ref": "@self"}},
                        {"$call": [{"$ref": "a"}, "m"], "args": [1]}],
              "source": {"file": "f.neon", "line": 300, "column": 2}, "requires_async": true},
            "b": {"type": "B", "create": {"$call": ["B", "make"], "args": []}},
            "f": {"kind": "factory", "type": "F", "implement": "F", "parameters": ["z", "lvl"],
              "autowired": false,
              "create": {"$new": "A", "args": [{"$arg": "z"}, {"$arg": "lvl", "default": [4]}]}},
            "l": {"kind": "locator", "type": "L", "implement": "L", "create": null,
              "references": {"x": {"$ref": "a"}}},
            "s": {"kind": "slot", "type": "S", "lifespan": "scoped", "create": null},
            "i": {"kind": "imported", "type": "Imp", "lifespan": "transient", "create": null}},
          "aliases": {"al": "a"}, "types": {"A": ["a"], "I": ["a", "b"]},
          "tags": {"t": {"a": {"k": 1}}},
          "initialization": [{"$call": [{"$ref": "a"}, "go"], "args": []}],
          "dynamic": {"env.X": {"type": "?int", "default": 5, "required": true,
                                "sensitive": true}, "p": {}}}"#,
        "<t>",
    )
    .unwrap();
    plan.version = version;
    if version < 3 {
        plan.dynamic.clear();
    }
    plan
}

#[test]
fn every_section_and_variant_round_trips_in_every_version() {
    for version in OLDEST_VERSION..=VERSION {
        let plan = rich(version);
        let bin = plan.to_binary();
        assert_eq!(Plan::from_bytes(&bin, "<bin>").unwrap(), plan, "{version}");
        assert_eq!(bin, Plan::from_bytes(&bin, "<bin>").unwrap().to_binary());
    }
    // Version 3 carries what earlier layouts cannot: the dynamic section and the async bit.
    let plan = Plan::from_bytes(&rich(3).to_binary(), "<bin>").unwrap();
    assert_eq!(plan.dynamic.len(), 2);
    assert!(plan.services["a"].requires_async);
    assert_eq!(plan.services["a"].create.json_depth(), 5);
}

/// A header whose version byte was changed (it is outside the checksum) says so, instead of
/// reading the payload as another version's and reporting bytes left over (a new user's
/// trial); the container's fast path leaves it to the decoder and gives the same error.
#[test]
fn a_header_version_that_differs_from_the_plans_own_is_named() {
    for header in [1u8, 2] {
        let mut bin = rich(3).to_binary();
        bin[8] = header;
        assert_eq!(
            binary_error(&bin),
            format!(
                "p.bin: invalid plan: corrupt binary plan: the header says version {header} and \
                 the plan inside version 3: the file was altered after it was written"
            )
        );
    }
}

/// The payload cut after every byte, wrapped in a correct header: always a typed error
/// (never a panic, never a different plan).
#[test]
fn every_cut_of_a_payload_is_an_error() {
    let bin = rich(3).to_binary();
    let body = &bin[BINARY_HEADER_LEN..];
    for cut in 0..body.len() {
        let mut out = bin[..12].to_vec();
        out.extend_from_slice(&(cut as u64).to_le_bytes());
        out.extend_from_slice(&checksum(&body[..cut]).to_le_bytes());
        out.extend_from_slice(&body[..cut]);
        let e = binary_error(&out);
        assert!(
            e.starts_with("p.bin: invalid plan: corrupt binary plan: "),
            "{cut}: {e}"
        );
    }
}

#[test]
fn a_length_prefix_reserves_no_more_than_the_payload_holds() {
    // A plan whose services claim u64::MAX entries: an error, not an allocation failure.
    let base = payload(&one_service(r#"{"$ref": "db"}"#));
    let one = [&[1u8][..], &pstr("db")].concat(); // one service, named "db"
    let many = [
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01][..],
        &pstr("db"),
    ]
    .concat();
    let e = binary_error(&wrap(&splice(&base, &one, &many)));
    assert!(
        e.starts_with("p.bin: invalid plan: corrupt binary plan: "),
        "{e}"
    );
    // A varint longer than ten bytes is refused as such.
    let long = [&[0xffu8; 11][..], &pstr("db")].concat();
    let e = binary_error(&wrap(&splice(&base, &one, &long)));
    assert!(e.contains("overflows 64 bits"), "{e}");
}

#[test]
fn json_that_is_not_an_object_is_not_a_plan() {
    // (new user's trial: `[]` read "invalid length 0, expected struct Plan with 12
    // elements", `[[[]]]` "expected a string")
    for (text, kind) in [
        ("[]", "an array"),
        ("[[[1]]]", "an array"),
        ("5", "a number"),
        ("\"plan\"", "a string"),
        ("true", "a boolean"),
        ("null", "null"),
    ] {
        let e = Plan::from_json_str(text, "p.json").unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "p.json: invalid plan: not a plan: a JSON plan is an object with \
                 \"format\": \"{FORMAT}\", and this document is {kind}"
            ),
            "{text}"
        );
    }
    // An object keeps the header's explanation.
    let e = Plan::from_json_str("{}", "p.json").unwrap_err().to_string();
    assert!(e.contains("no \"format\""), "{e}");
}

#[test]
fn damaged_binary_is_rejected() {
    let bin = sample().to_binary();
    let e = Plan::from_bytes(&bin[..bin.len() - 3], "p.bin").unwrap_err();
    assert!(
        e.to_string().contains("p.bin: invalid plan: truncated"),
        "{e}"
    );
    let mut flipped = bin.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    let e = Plan::from_bytes(&flipped, "p.bin").unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    // What to do about it (an operator's trial).
    assert!(
        e.to_string()
            .contains("copy it again, or compile the plan again"),
        "{e}"
    );
    let mut newer = bin;
    let next = VERSION + 1;
    newer[8..12].copy_from_slice(&next.to_le_bytes());
    assert!(matches!(
        Plan::from_bytes(&newer, "p.bin"),
        Err(Error::VersionMismatch { found, .. }) if found == u64::from(next)
    ));
    // A damaged version byte is a corrupt header, not a plan from a newer wireplan (new
    // user's trial: byte 10 flipped read as "plan version 16711683 … newer version").
    let mut damaged = newer;
    damaged[8..12].copy_from_slice(&VERSION.to_le_bytes());
    damaged[10] ^= 0xff;
    let e = Plan::from_bytes(&damaged, "p.bin").unwrap_err();
    assert!(
        e.to_string()
            .contains("corrupt binary plan: the header's version field reads"),
        "{e}"
    );
    assert!(!e.to_string().contains("newer"), "{e}");
}
