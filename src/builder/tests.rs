use super::*;

fn catalog() -> Catalog {
    crate::catalog::from_config_text("types:\n\tApp\\Db: {}\n")
}

#[test]
fn rarely_set_fields_live_out_of_line() {
    // Issue #13: 703,000 definitions; the six rarely set fields cost one pointer.
    assert!(std::mem::size_of::<Definition>() <= 368);
    let mut b = ContainerBuilder::new(catalog());
    let d = b.add_definition(Some("plain"), None).expect("added");
    assert!(d.extras.is_none());
    assert_eq!(d.extras().implement, None);
    d.extras_mut().tagged = Some("t".into());
    assert_eq!(
        b.get_definition("plain")
            .expect("defined")
            .extras()
            .tagged
            .as_deref(),
        Some("t")
    );
}

#[test]
fn lookups_by_type_are_refused_while_resolving() {
    let mut b = ContainerBuilder::new(catalog());
    b.add_definition(Some("db"), None)
        .expect("added")
        .set_creator("App\\Db", ExprArray::new());
    b.phase = Phase::Resolving;
    let err = b.get_by_type("App\\Db").expect_err("refused");
    assert_eq!(err.code, Code::NotAllowedDuringResolving);
    assert_eq!(
        b.find_by_type("App\\Db").expect_err("refused").code,
        Code::NotAllowedDuringResolving
    );
    b.phase = Phase::Loading;
    assert_eq!(
        b.get_by_type("App\\Db").expect("allowed"),
        Some("db".to_string())
    );
}

#[test]
fn names_are_checked_case_insensitively_and_anonymous_names_count_up() {
    let mut b = ContainerBuilder::new(catalog());
    b.add_definition(Some("mailer"), None).expect("first");
    let err = b
        .add_definition(Some("Mailer"), None)
        .expect_err("duplicate");
    assert_eq!(err.code, Code::DuplicateService);
    assert!(err.message.contains("case-insensitive"), "{}", err.message);
    assert_eq!(b.add_definition(None, None).expect("anon").name, "01");
    assert_eq!(b.add_definition(None, None).expect("anon").name, "02");
    let bad = b.add_definition(Some("a..b"), None).expect_err("bad name");
    assert_eq!(bad.code, Code::InvalidDefinition);
}

#[test]
fn edits_count_changes_and_not_lookups() {
    let mut b = ContainerBuilder::new(catalog());
    b.add_definition(Some("db"), None)
        .expect("added")
        .set_creator("App\\Db", ExprArray::new());
    assert_eq!(b.edits(), 1);
    assert_eq!(b.get_by_type("App\\Db").expect("found"), Some("db".into()));
    b.find_by_type("App\\Db").expect("found");
    b.remove_alias("none");
    b.remove_definition("none");
    let taken = b.add_alias("db", "db").expect_err("taken");
    assert_eq!(taken.message, "Service 'db' has already been added.");
    assert_eq!(b.edits(), 1);
    b.add_alias("database", "db").expect("alias");
    let twice = b.add_alias("database", "db").expect_err("taken");
    assert_eq!(twice.message, "Alias 'database' has already been added.");
    b.remove_alias("database");
    b.get_definition_mut("db").expect("db").lazy = true;
    b.remove_definition("db");
    assert_eq!(b.edits(), 5);
}

#[test]
fn member_names_split_as_rsplit_once_does() {
    use super::complete::{has_member_separator, split_member};
    for n in [
        "App\\Foo",
        "App\\Foo::create",
        "@db::connect",
        "a:::b",
        "a:b",
        "::x",
        "x::",
        "",
        ":",
    ] {
        assert_eq!(split_member(n), n.rsplit_once("::"), "{n}");
        assert_eq!(has_member_separator(n), n.contains("::"), "{n}");
    }
    assert_eq!(split_member("a:::b"), Some(("a:", "b")));
}
