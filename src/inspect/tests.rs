//! Unit tests of the inspection answers, with real values from the blog example and from
//! builders made here.

use super::*;
use crate::builder::{Actor, ArgumentSource, Autowired, ContainerBuilder};
use crate::compiler::{build, Built, Compilation, Options};
use crate::diagnostics::{Code, Diagnostics};
use crate::expr::ExprArray;
use std::path::Path;
use wireplan_runtime::plan::Expr as P;

fn blog() -> (Compilation, Built) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/blog/config/app.neon");
    let options = Options {
        catalogs: vec![crate::catalog::CatalogInput::File(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/blog/catalog.json"),
        )],
        ..Options::default()
    };
    let (c, built) = build(&path, &options);
    assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics.items());
    (c, built)
}

#[test]
fn blog_service_arguments_say_which_candidate_was_autowired() {
    let (c, mut built) = blog();
    let e = explain_service(&mut built.builder, &c.sources, "blog").expect("explained");
    assert_eq!(e.type_.as_deref(), Some("App\\BlogService"));
    assert_eq!(e.origin.by, None);
    let loc = e.origin.location.as_ref().expect("location");
    assert!(loc.file.ends_with("services.neon"), "{}", loc.file);
    assert_eq!(loc.line, 20);
    assert_eq!(e.calls.len(), 1);
    let call = &e.calls[0];
    assert_eq!(call.function, "App\\BlogService::__construct()");
    let names: Vec<&str> = call
        .arguments
        .iter()
        .map(|a| a.parameter.as_str())
        .collect();
    assert_eq!(names, ["articles", "comments", "notifiers", "clock"]);
    match &call.arguments[0].source {
        explain::ValueSource::Autowired {
            type_,
            service,
            candidates,
        } => {
            assert_eq!(type_, "App\\ArticleRepository");
            assert_eq!(service, "articles");
            assert_eq!(candidates.len(), 1);
            assert_eq!(candidates[0].service, "articles");
            assert_eq!(candidates[0].status, CandidateStatus::Chosen);
        }
        other => panic!("articles should be autowired, got {other:?}"),
    }
    match &call.arguments[2].source {
        explain::ValueSource::Collection { type_, services } => {
            assert_eq!(type_, "App\\Notifier");
            assert_eq!(services, &["01", "02"]);
        }
        other => panic!("notifiers should be a collection, got {other:?}"),
    }
    assert_eq!(call.arguments[2].value, "[@01, @02]");
    assert_eq!(e.lifespan.allowed, Some(true));
}

#[test]
fn written_arguments_name_their_parameter() {
    let (c, mut built) = blog();
    let e = explain_service(&mut built.builder, &c.sources, "mailer").expect("explained");
    let from = &e.calls[0].arguments[1];
    assert_eq!(from.parameter, "from");
    assert_eq!(from.value, "'blog@example.com'");
    match &from.source {
        explain::ValueSource::Written {
            location,
            parameters,
            dynamic,
            collects,
        } => {
            assert_eq!(collects, &None);
            assert_eq!(parameters, &["mail.from"]);
            assert!(dynamic.is_empty());
            assert_eq!(location.as_ref().map(|l| l.line), Some(14));
        }
        other => panic!("from should be written, got {other:?}"),
    }
    // The extension that added the setup is recorded on the services it changed.
    let a = explain_service(&mut built.builder, &c.sources, "articles").expect("explained");
    assert_eq!(a.changed_by.len(), 1);
    assert_eq!(a.changed_by[0].extension, "logging");
    assert_eq!(a.changed_by[0].phase, 'B');
    assert!(!a.changed_by[0].builtin);
    assert!(a
        .calls
        .iter()
        .any(|c| c.setup && c.function.ends_with("setLogger()")));
}

#[test]
fn unknown_services_get_a_suggestion() {
    let (c, mut built) = blog();
    let err = explain_service(&mut built.builder, &c.sources, "mailr").expect_err("unknown");
    assert_eq!(err.code, Code::MissingService);
    assert!(
        err.notes.iter().any(|n| n.contains("'mailer'")),
        "{:?}",
        err.notes
    );
}

fn catalog() -> crate::catalog::Catalog {
    crate::catalog::from_config_text(
        "types:\n\tApp\\Logger: {interface: true}\n\tApp\\FileLogger: {implements: [App\\Logger]}\n\tApp\\NullLogger: {implements: [App\\Logger]}\n\tApp\\Mailer:\n\t\tconstructor:\n\t\t\tlogger: App\\Logger\n",
    )
}

fn add(b: &mut ContainerBuilder, name: &str, class: &str) {
    b.add_definition(Some(name), None)
        .expect("added")
        .set_creator(class, ExprArray::new());
}

#[test]
fn type_candidates_are_preliminary_in_phase_a_and_say_why_others_lose() {
    let mut b = ContainerBuilder::new(catalog());
    add(&mut b, "file", "App\\FileLogger");
    let t = type_candidates(&mut b, "app\\logger").expect("known type");
    assert!(t.preliminary);
    assert_eq!(t.type_, "App\\Logger");
    assert_eq!(t.answer, TypeAnswer::Service("file".into()));

    add(&mut b, "null", "App\\NullLogger");
    let t = type_candidates(&mut b, "App\\Logger").expect("known type");
    assert_eq!(
        t.answer,
        TypeAnswer::Ambiguous(vec!["file".into(), "null".into()])
    );
    assert!(t
        .candidates
        .iter()
        .all(|c| c.status == CandidateStatus::Ambiguous));

    b.get_definition_mut("null").expect("null").autowired = Autowired::All(false);
    add(&mut b, "special", "App\\NullLogger");
    b.get_definition_mut("special").expect("special").autowired =
        Autowired::Types(vec!["App\\NullLogger".into()]);
    b.resolve(&mut Diagnostics::new());
    let t = type_candidates(&mut b, "App\\Logger").expect("known type");
    assert!(!t.preliminary);
    assert_eq!(t.answer, TypeAnswer::Service("file".into()));
    let status: Vec<(&str, &CandidateStatus)> = t
        .candidates
        .iter()
        .map(|c| (c.service.as_str(), &c.status))
        .collect();
    assert_eq!(
        status,
        [
            ("file", &CandidateStatus::Chosen),
            ("null", &CandidateStatus::NotAutowired),
            (
                "special",
                &CandidateStatus::RestrictedTo {
                    types: vec!["App\\NullLogger".into()]
                }
            ),
        ]
    );
    assert_eq!(t.collection, ["file", "special"]);

    b.add_excluded_classes(&["App\\Logger".to_string()]);
    let t = type_candidates(&mut b, "App\\Logger").expect("known type");
    assert_eq!(t.answer, TypeAnswer::None);
    assert!(t
        .candidates
        .iter()
        .any(|c| c.service == "file" && c.status == CandidateStatus::Excluded));

    let err = type_candidates(&mut b, "App\\Loger").expect_err("unknown type");
    assert_eq!(err.code, Code::ClassNotFound);
}

#[test]
fn in_phase_a_explain_answers_what_is_known_and_says_arguments_come_later() {
    let mut b = ContainerBuilder::new(catalog());
    add(&mut b, "file", "App\\FileLogger");
    add(&mut b, "mailer", "App\\Mailer");
    let sources = crate::source::SourceMap::new();
    let e = explain_service(&mut b, &sources, "mailer").expect("explained");
    assert!(!e.completed);
    assert!(e.calls.is_empty());
    assert_eq!(e.type_.as_deref(), Some("App\\Mailer"));
    assert_eq!(e.lifespan.allowed, None);
    assert!(e.to_string().contains("arguments: not known yet"), "{e}");
    b.resolve(&mut Diagnostics::new());
    b.complete(&mut Diagnostics::new());
    let e = explain_service(&mut b, &sources, "mailer").expect("explained");
    assert!(e.completed);
    assert_eq!(e.lifespan.allowed, Some(true));
    assert_eq!(
        e.calls[0].arguments[0].source,
        explain::ValueSource::Autowired {
            type_: "App\\Logger".into(),
            service: "file".into(),
            candidates: vec![Candidate {
                service: "file".into(),
                type_: "App\\FileLogger".into(),
                status: CandidateStatus::Chosen,
            }],
        }
    );
}

#[test]
fn removals_record_the_extension_phase_and_what_still_asks() {
    let mut b = ContainerBuilder::new(catalog());
    add(&mut b, "file", "App\\FileLogger");
    add(&mut b, "mailer", "App\\Mailer");
    b.set_actor(Some(Actor {
        extension: "cleanup".into(),
        method: "beforeCompile".into(),
        builtin: false,
    }));
    b.remove_definition("file");
    b.set_actor(None);
    b.resolve(&mut Diagnostics::new());
    let mut diags = Diagnostics::new();
    b.complete(&mut diags);
    assert!(diags.has_errors(), "mailer lost its logger");
    let mailer = b.get_definition("mailer").expect("mailer");
    let arg = &mailer.completed.as_ref().expect("completed").calls()[0].arguments[0];
    assert_eq!(
        arg.source,
        ArgumentSource::Unfilled {
            tried: Some("App\\Logger".into())
        }
    );
    let d = needed_by(&b, &crate::source::SourceMap::new(), "file").expect("answer");
    let r = d.removed.expect("removed");
    let by = r.by.expect("an extension removed it");
    assert_eq!(by.extension, "cleanup");
    assert_eq!(by.phase, 'B');
    assert_eq!(
        by.to_string(),
        "extension cleanup in beforeCompile() (phase B)"
    );
    assert_eq!(r.still_wanted, ["mailer"]);
    assert!(needed_by(&b, &crate::source::SourceMap::new(), "nothing").is_err());
}

#[test]
fn needed_by_and_deps_walk_the_blog_graph() {
    let (c, built) = blog();
    let d = needed_by(&built.builder, &c.sources, "mailer").expect("answer");
    let got: Vec<(&str, usize)> = d
        .related
        .iter()
        .map(|r| (r.service.as_str(), r.depth))
        .collect();
    assert_eq!(got, [("01", 1), ("blog", 2)]);
    assert_eq!(d.related[1].via, ["01"]);
    assert_eq!(d.related[1].kind, EdgeKind::Collection);

    let all = deps(&built.builder, &c.sources, "blog", None).expect("answer");
    let names: Vec<&str> = all.related.iter().map(|r| r.service.as_str()).collect();
    assert_eq!(
        names,
        ["articles", "comments", "01", "02", "clock", "db", "logger", "mailer"]
    );
    let one = deps(&built.builder, &c.sources, "blog", Some(1)).expect("answer");
    assert_eq!(one.related.len(), 5);
}

#[test]
fn the_graph_has_every_edge_kind_and_focuses_in_both_directions() {
    let (c, built) = blog();
    let g = Graph::from_builder(&built.builder);
    assert_eq!(g.nodes.len(), 9);
    let has = |from: &str, to: &str, kind: EdgeKind| {
        g.edges
            .iter()
            .any(|e| e.from == from && e.to == to && e.kind == kind)
    };
    assert!(has("blog", "articles", EdgeKind::Constructor));
    assert!(has("blog", "01", EdgeKind::Collection));
    assert!(has("articles", "logger", EdgeKind::Setup));
    assert_eq!(g.edges.len(), 12);

    let focus = g.focus("mailer", 1).expect("known");
    let names: Vec<&str> = focus.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["logger", "mailer", "01"]);
    assert_eq!(focus.edges.len(), 2);
    assert!(g.focus("mailr", 1).is_err());

    let dot = g.to_dot();
    assert!(dot.contains("\"blog\" -> \"01\" [label=\"collection\", style=dotted];"));
    assert!(dot.contains("\"logger\" [label=\"logger\\nApp\\\\FileLogger\\nsingleton\""));
    let mermaid = g.to_mermaid();
    assert!(mermaid.starts_with("flowchart LR\n"));
    assert!(mermaid.contains("  n8 -.->|collection| n6\n"), "{mermaid}");

    // The plan gives the same graph as the builder it was made from.
    let plan = built.plan(&c.sources);
    assert_eq!(Graph::from_plan(&plan), g);
}

#[test]
fn in_phase_a_the_graph_uses_references_as_written_and_says_so() {
    use crate::expr::{Expr, ExprKind};
    use crate::neon::Key;
    let mut b = ContainerBuilder::new(catalog());
    add(&mut b, "file", "App\\FileLogger");
    let mut args = ExprArray::new();
    args.items
        .insert(Key::Int(0), Expr::bare(ExprKind::Str("@file".into())));
    b.add_definition(Some("mailer"), None)
        .expect("added")
        .set_creator("App\\Mailer", args);
    let g = Graph::of(&b, None).expect("graph");
    assert!(g.preliminary);
    assert_eq!(
        g.edges,
        [Edge {
            from: "mailer".into(),
            to: "file".into(),
            kind: EdgeKind::Constructor
        }]
    );
    assert!(g.to_dot().contains("// preliminary"));
    let d = needed_by(&b, &crate::source::SourceMap::new(), "file").expect("answer");
    assert!(d.preliminary);
    assert_eq!(d.related[0].service, "mailer");

    b.resolve(&mut Diagnostics::new());
    b.complete(&mut Diagnostics::new());
    let g = Graph::of(&b, Some(("file", 1))).expect("graph");
    assert!(!g.preliminary);
    assert_eq!(g.edges.len(), 1);
    assert!(Graph::of(&b, Some(("nope", 1))).is_err());
}

#[test]
fn values_show_dynamic_parameters_by_name_only() {
    assert_eq!(text::short(&P::Param("env.DB".into())), "%env.DB%");
    let concat = P::Concat(vec![P::Str("dsn=".into()), P::Param("secret".into())]);
    assert_eq!(text::short(&concat), "'dsn=%secret%'");
    assert_eq!(values::reads_dynamic(&concat), ["secret"]);
    let new = P::New {
        class: "App\\Db".into(),
        args: vec![P::Ref("log".into()), P::Str("it's".into())],
    };
    assert_eq!(text::short(&new), "App\\Db(@log, 'it''s')");
}

/// A long constructor chain: each related service keeps the head and tail of its path and
/// counts what is left out, so the answer grows with the chain, not with its square (a
/// 20,000-service chain printed 1.95 GB and peaked at 8.8 GB before).
#[test]
fn long_paths_keep_their_head_and_tail() {
    let n = 40;
    let mut text = String::from("services:\n");
    for i in 0..n {
        text.push_str(&format!("\tn{i}: App\\N{i}\n"));
    }
    text.push_str("types:\n");
    for i in 0..n - 1 {
        text.push_str(&format!(
            "\tApp\\N{i}:\n\t\tconstructor:\n\t\t\tx: App\\N{}\n",
            i + 1
        ));
    }
    text.push_str(&format!("\tApp\\N{}: {{}}\n", n - 1));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("app.neon");
    std::fs::write(&path, text).expect("write");
    let (c, built) = build(&path, &Options::default());
    assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics.items());

    let all = deps(&built.builder, &c.sources, "n0", None).expect("answer");
    assert_eq!(all.related.len(), n - 1);
    // n16: 15 services between n0 and it, all kept.
    let short = &all.related[15];
    assert_eq!(short.service, "n16");
    assert_eq!(short.via.len(), 15);
    assert_eq!(short.via_omitted, 0);
    // n39: n1..n38 between; n1..n8 and n32..n38 kept, 23 left out.
    let long = &all.related[n - 2];
    assert_eq!(long.service, "n39");
    let want: Vec<String> = (1..=8).chain(32..=38).map(|i| format!("n{i}")).collect();
    assert_eq!(long.via, want);
    assert_eq!(long.via_omitted, 23);
    let text = all.to_string();
    assert!(
        text.contains(
            "via n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> n8 -> … 23 more … -> n32"
        ),
        "{text}"
    );

    let up = needed_by(&built.builder, &c.sources, "n39").expect("answer");
    let first = up.related.last().expect("n0");
    assert_eq!(first.service, "n0");
    assert_eq!(first.via_omitted, 23);
    assert!(
        up.to_string()
            .contains("via n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> … 23 more … -> n31"),
        "{}",
        up.to_string()
    );
}
