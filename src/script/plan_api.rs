//! The plan document handed to `afterCompile(plan)`: a shared, editable JSON tree with
//! path-based access (`plan.get(["services", "mailer", "tags"])`,
//! `plan.set(["services", "mailer", "tags", "audited"], true)`, `plan.remove([...])`,
//! `plan.serviceNames()`). Paths are arrays because service names contain dots. Maps come back
//! as ordered maps. The edited document must still be a valid plan, or the compiler reports
//! `script-error`.

use super::values::{raise, to_dynamic, to_expr};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Expr, ExprKind};
use rhai::{Array, Dynamic, Engine, EvalAltResult};
use serde_json::Value as Json;
use std::cell::RefCell;
use std::rc::Rc;

type Res<T> = Result<T, Box<EvalAltResult>>;

/// A shared JSON plan document.
#[derive(Clone)]
pub struct PlanDocument(pub Rc<RefCell<Json>>);

fn json_to_expr(v: &Json) -> Expr {
    let kind = match v {
        Json::Null => ExprKind::Null,
        Json::Bool(b) => ExprKind::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => ExprKind::Int(i),
            None => ExprKind::Float(n.as_f64().unwrap_or(0.0)),
        },
        Json::String(s) => ExprKind::Str(s.clone()),
        Json::Array(a) => {
            let mut out = crate::expr::ExprArray::new();
            a.iter().for_each(|x| out.push(json_to_expr(x)));
            ExprKind::Array(out)
        }
        Json::Object(o) => {
            let mut out = crate::expr::ExprArray::new();
            for (k, x) in o {
                out.items
                    .insert(crate::neon::Key::Str(k.as_str().into()), json_to_expr(x));
            }
            ExprKind::Array(out)
        }
    };
    Expr::bare(kind)
}

fn expr_to_json(e: &Expr) -> Json {
    match &e.kind {
        ExprKind::Null => Json::Null,
        ExprKind::Bool(b) => Json::Bool(*b),
        ExprKind::Int(i) => Json::from(*i),
        ExprKind::Float(f) => Json::from(*f),
        ExprKind::Str(s) => Json::String(s.clone()),
        ExprKind::Array(a) if a.is_list() && !a.is_empty() => {
            Json::Array(a.values().map(expr_to_json).collect())
        }
        ExprKind::Array(a) if a.is_empty() => Json::Array(Vec::new()),
        ExprKind::Array(a) => Json::Object(
            a.items
                .iter()
                .map(|(k, v)| (k.as_string(), expr_to_json(v)))
                .collect(),
        ),
        other => Json::String(Expr::bare(other.clone()).describe()),
    }
}

fn segments(path: &Array) -> Res<Vec<String>> {
    path.iter()
        .map(|p| {
            if let Ok(i) = p.as_int() {
                Ok(i.to_string())
            } else {
                p.clone().into_string().or_else(|t| {
                    raise(Diagnostic::error(
                        Code::InvalidValue,
                        format!("plan path segments must be strings or integers, {t} given"),
                    ))
                })
            }
        })
        .collect()
}

fn walk<'a>(mut v: &'a mut Json, path: &[String], create: bool) -> Option<&'a mut Json> {
    for seg in path {
        v = match v {
            Json::Object(o) => {
                if create && !o.contains_key(seg) {
                    o.insert(seg.clone(), Json::Object(Default::default()));
                }
                o.get_mut(seg)?
            }
            Json::Array(a) => a.get_mut(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

/// Registers [`PlanDocument`] and its methods.
pub fn register(engine: &mut Engine) {
    type P = PlanDocument;
    engine.register_type_with_name::<P>("Plan");
    engine.register_fn("get", |p: &mut P, path: Array| -> Res<Dynamic> {
        let path = segments(&path)?;
        let mut doc = p.0.borrow_mut();
        Ok(walk(&mut doc, &path, false)
            .map(|v| to_dynamic(&json_to_expr(v)))
            .unwrap_or(Dynamic::UNIT))
    });
    engine.register_fn("set", |p: &mut P, path: Array, value: Dynamic| -> Res<()> {
        let path = segments(&path)?;
        let Some((last, parent)) = path.split_last() else {
            return raise(Diagnostic::error(
                Code::InvalidValue,
                "plan.set: empty path",
            ));
        };
        // An empty map is a map (`tags: #{}`); the value tree has one empty collection.
        let empty_map = value.as_map_ref().is_ok_and(|m| m.is_empty());
        let value = to_expr(&value)
            .map(|e| match empty_map {
                true => Json::Object(Default::default()),
                false => expr_to_json(&e),
            })
            .or_else(|m| {
                raise(Diagnostic::error(
                    Code::InvalidValue,
                    format!("plan.set: {m}"),
                ))
            })?;
        let mut doc = p.0.borrow_mut();
        match walk(&mut doc, parent, true) {
            Some(Json::Object(o)) => {
                o.insert(last.clone(), value);
                Ok(())
            }
            Some(Json::Array(a)) => match last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(slot) => {
                    *slot = value;
                    Ok(())
                }
                None => raise(Diagnostic::error(
                    Code::InvalidValue,
                    format!("plan.set: no item {last} in {}", parent.join(" › ")),
                )),
            },
            _ => raise(Diagnostic::error(
                Code::InvalidValue,
                format!("plan.set: {} is not a map or list", parent.join(" › ")),
            )),
        }
    });
    engine.register_fn("remove", |p: &mut P, path: Array| -> Res<()> {
        let path = segments(&path)?;
        if let Some((last, parent)) = path.split_last() {
            let mut doc = p.0.borrow_mut();
            if let Some(Json::Object(o)) = walk(&mut doc, parent, false) {
                o.shift_remove(last);
            }
        }
        Ok(())
    });
    engine.register_fn("serviceNames", |p: &mut P| -> Array {
        p.0.borrow()
            .get("services")
            .and_then(Json::as_object)
            .map(|o| o.keys().map(|k| Dynamic::from(k.clone())).collect())
            .unwrap_or_default()
    });
    engine.register_fn("to_string", |p: &mut P| {
        serde_json::to_string(&*p.0.borrow()).unwrap_or_default()
    });
}
