//! Build-time safety beyond Nette: constructor cycles with their path.

use super::ContainerBuilder;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use std::collections::HashMap;
use wireplan_runtime::plan::{CallTarget, Expr as P};

/// Constructor cycles (`a` needs `b` needs `a`) are compile errors with the whole path; Nette
/// only finds them at run time.
pub(super) fn check_cycles(b: &ContainerBuilder, diags: &mut Diagnostics) {
    fn refs(e: &P, out: &mut Vec<String>) {
        match e {
            P::Ref(n) if n != "@self" => out.push(n.clone()),
            P::New { args, .. } | P::Call { args, .. } => {
                if let P::Call {
                    target: CallTarget::Expr(t),
                    ..
                } = e
                {
                    refs(t, out);
                }
                args.iter().for_each(|a| refs(a, out));
            }
            P::List(items) | P::Concat(items) => items.iter().for_each(|a| refs(a, out)),
            P::Map(m) => m.values().for_each(|a| refs(a, out)),
            _ => {}
        }
    }
    let mut edges: HashMap<&str, Vec<String>> = HashMap::new();
    for d in b.definitions() {
        let mut out = Vec::new();
        if let Some(c) = &d.completed {
            refs(&c.create, &mut out);
        }
        edges.insert(&d.name, out);
    }
    // 0 = unvisited, 1 = on stack, 2 = done
    let mut state: HashMap<&str, u8> = HashMap::new();
    let mut reported: Vec<Vec<String>> = Vec::new();
    for d in b.definitions() {
        let mut stack: Vec<(&str, usize)> = vec![(&d.name, 0)];
        let mut path: Vec<&str> = Vec::new();
        if state.get(d.name.as_str()).copied().unwrap_or(0) != 0 {
            continue;
        }
        while let Some((node, i)) = stack.pop() {
            if i == 0 {
                state.insert(node, 1);
                path.push(node);
            }
            let next = edges.get(node).and_then(|e| e.get(i));
            match next {
                Some(n) => {
                    stack.push((node, i + 1));
                    let n = n.as_str();
                    match state.get(n).copied().unwrap_or(0) {
                        0 if edges.contains_key(n) => {
                            stack.push((edges.get_key_value(n).map(|(k, _)| *k).unwrap_or(n), 0))
                        }
                        1 => {
                            let pos = path.iter().position(|p| *p == n).unwrap_or(0);
                            let mut cycle: Vec<String> =
                                path[pos..].iter().map(|s| s.to_string()).collect();
                            let mut key = cycle.clone();
                            key.sort();
                            if !reported.contains(&key) {
                                reported.push(key);
                                cycle.push(n.to_string());
                                let first = b.get_definition(n);
                                diags.push(
                                    Diagnostic::error(
                                        Code::CircularReference,
                                        format!(
                                            "Circular reference detected for services: {}.",
                                            cycle[..cycle.len() - 1].join(", ")
                                        ),
                                    )
                                    .at(first.and_then(|d| d.span))
                                    .with_note(format!("path: {}", cycle.join(" -> "))),
                                );
                            }
                        }
                        _ => {}
                    }
                }
                None => {
                    state.insert(node, 2);
                    path.pop();
                }
            }
        }
    }
}
