//! The blog example end to end: compile `examples/blog/config/app.neon` with the library,
//! then run the example's own registry and code (`examples/blog/main.rs`) on the plan.

#[allow(dead_code)]
#[path = "../examples/blog/main.rs"]
mod blog;

use std::path::Path;
use wireplan::compiler::{compile, Options};
use wireplan_runtime::plan::Expr;

#[test]
fn blog_example_compiles_and_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let result = compile(
        &root.join("examples/blog/config/app.neon"),
        &Options::default(),
    );
    assert!(
        !result.diagnostics.has_errors(),
        "{:?}",
        result.diagnostics.items()
    );
    let plan = result.plan.expect("plan");
    assert_eq!(plan.services.len(), 9);

    // The logaware extension attached the logger to both tagged repositories.
    for name in ["articles", "comments"] {
        let setup = &plan.services[name].setup;
        assert_eq!(setup.len(), 1, "{name}: {setup:?}");
        let Expr::Call { method, args, .. } = &setup[0] else {
            panic!("{name}: setup is not a call: {:?}", setup[0]);
        };
        assert_eq!(method, "setLogger");
        assert_eq!(args, &vec![Expr::Ref("logger".into())]);
    }
    // The notifier group is collected in definition order for App\Notifier[].
    let Expr::New { args, .. } = &plan.services["blog"].create else {
        panic!("blog is not created by $new");
    };
    assert_eq!(
        args[2],
        Expr::List(vec![Expr::Ref("01".into()), Expr::Ref("02".into())])
    );
    // Dependencies: the three config files and the script.
    assert_eq!(plan.dependencies.len(), 4);
    assert!(plan.dependencies[3]
        .path
        .ends_with("scripts/extensions/logaware.rhai"));

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("app.plan.json");
    wireplan::plan::write_atomic(&path, wireplan::plan::to_json(&plan).as_bytes()).expect("write");
    let outcome = blog::run(path.to_str().expect("utf-8 path")).expect("example runs");
    assert_eq!(outcome.published, 5);
    assert!(outcome.logger_shared);
    assert!(outcome.blog_shared);
    assert_eq!(
        outcome.log_lines,
        vec![
            "[/var/log/blog/blog.log] articles: loading 5 from sqlite::memory:",
            "[/var/log/blog/blog.log] comments: counting in sqlite::memory:",
            "[/var/log/blog/blog.log] mail from blog@example.com: 2026-11-29 digest: 5 articles, 3 comments",
            "[/var/log/blog/blog.log] notice: 2026-11-29 digest: 5 articles, 3 comments",
        ]
    );
}

#[test]
fn compiling_twice_gives_identical_bytes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let a = compile(
        &root.join("examples/blog/config/app.neon"),
        &Options::default(),
    );
    let b = compile(
        &root.join("examples/blog/config/app.neon"),
        &Options::default(),
    );
    let (a, b) = (a.plan.expect("plan"), b.plan.expect("plan"));
    assert_eq!(wireplan::plan::to_json(&a), wireplan::plan::to_json(&b));
}

/// The example's derived registry declares what its hand-written `types.neon` declares: each
/// class, constructor parameter (with its type and default), cast and setup method.
#[test]
fn the_derived_registry_matches_the_hand_written_catalog() {
    let catalog = blog::registry().catalog();
    for line in [
        "\tApp\\ArticleRepository:\n\t\tconstructor:\n\t\t\tdb: App\\Database\n\t\t\tperPage: {type: int, default: 10}\n\t\tmethods:\n\t\t\tsetLogger: {params: {logger: App\\Logger}, returns: void}\n",
        "\tApp\\BlogService:\n\t\tconstructor:\n\t\t\tarticles: App\\ArticleRepository\n\t\t\tcomments: App\\CommentRepository\n\t\t\tnotifiers: 'App\\Notifier[]'\n\t\t\tclock: App\\Clock\n",
        "\tApp\\Clock: {}\n",
        "\tApp\\EmailNotifier:\n\t\timplements: [App\\Notifier]\n\t\tconstructor:\n\t\t\tmailer: App\\Mailer\n",
        "\tApp\\FileLogger:\n\t\timplements: [App\\Logger]\n\t\tconstructor:\n\t\t\tpath: string\n",
        "\tApp\\Mailer:\n\t\tconstructor:\n\t\t\tlogger: App\\Logger\n\t\t\tfrom: string\n",
    ] {
        assert!(catalog.contains(line), "missing {line:?} in\n{catalog}");
    }
    assert_eq!(blog::registry().classes().len(), 9);
}
