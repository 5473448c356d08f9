//! The plan document handed to `afterCompile(plan)`: a shared, editable JSON tree with
//! path-based access (`plan.get(["services", "mailer", "tags"])`,
//! `plan.set(["services", "mailer", "tags", "audited"], true)`, `plan.remove([...])`,
//! `plan.serviceNames()`). Paths are arrays because service names contain dots. Maps come back
//! as ordered maps. The edited document must still be a valid plan, or the compiler reports
//! `script-error`.

use super::values::{raise, to_dynamic};
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

/// How deep a value written with `plan.set` may nest (the plan reader's own limit is far
/// above what a plan needs; this keeps a runaway script's value from exhausting the stack).
const MAX_PLAN_VALUE_DEPTH: usize = 128;

/// A script value as plan JSON: scalars, lists and maps as they are; a `Reference("db")` or a
/// definition handle as the plan's reference `{"$ref": "db"}`. A `Statement` or a dynamic
/// parameter is configuration syntax, which the plan writes another way: refused with the
/// plan's form, rather than written as text (a fifth new user's trial found
/// `Reference("nope")` written as the string `"@nope"`, which nothing checked).
fn plan_json(v: &Dynamic, depth: usize) -> Result<Json, String> {
    use super::values::{OrderedMap, ScriptDynamic, ScriptReference, ScriptStatement};
    if depth > MAX_PLAN_VALUE_DEPTH {
        return Err(format!(
            "the value nests deeper than {MAX_PLAN_VALUE_DEPTH} levels"
        ));
    }
    let object = |entries: &mut dyn Iterator<Item = (String, &Dynamic)>| {
        entries
            .map(|(k, x)| plan_json(x, depth + 1).map(|j| (k, j)))
            .collect::<Result<serde_json::Map<String, Json>, String>>()
            .map(Json::Object)
    };
    Ok(if v.is_unit() {
        Json::Null
    } else if let Ok(b) = v.as_bool() {
        Json::Bool(b)
    } else if let Ok(i) = v.as_int() {
        Json::from(i)
    } else if let Ok(f) = v.as_float() {
        Json::from(f)
    } else if v.is_string() {
        let text = v.clone().into_string().unwrap_or_default();
        // As where a script makes any value: the text of a dynamic parameter is no value.
        if let Some(param) = super::values::frozen_in(&text) {
            return Err(format!(
                "the string '{text}' holds the text {param} of a dynamic parameter: the plan \
                 reads one at start-up as #{{\"$param\": \"name\"}}, joined to text with \
                 #{{\"$concat\": [...]}} (docs/plan-format.md)"
            ));
        }
        Json::String(text)
    } else if let Ok(a) = v.as_array_ref() {
        Json::Array(
            a.iter()
                .map(|x| plan_json(x, depth + 1))
                .collect::<Result<_, _>>()?,
        )
    } else if let Ok(m) = v.as_map_ref() {
        object(&mut m.iter().map(|(k, x)| (k.to_string(), x)))?
    } else if let Some(m) = v.read_lock::<OrderedMap>() {
        object(&mut m.entries.iter().map(|(k, x)| (k.clone(), x)))?
    } else if let Some(r) = v.read_lock::<ScriptReference>() {
        serde_json::json!({ "$ref": r.0 })
    } else if let Some(d) = v.read_lock::<super::builder_api::DefinitionHandle>() {
        serde_json::json!({ "$ref": d.name() })
    } else if v.is::<ScriptStatement>() {
        return Err(
            "a Statement is configuration syntax: the plan writes a new object as \
             #{\"$new\": \"App\\\\Db\", \"args\": [...]} and a call as \
             #{\"$call\": [target, \"method\"], \"args\": [...]} (docs/plan-format.md)"
                .into(),
        );
    } else if v.is::<ScriptDynamic>() {
        return Err(
            "a dynamic parameter is written #{\"$param\": \"name\"} in the plan \
             (docs/plan-format.md)"
                .into(),
        );
    } else {
        return Err(format!(
            "a {} cannot be written into the plan (a plan value is a string, number, boolean, \
             (), array, map or Reference)",
            super::values::script_type_name(v)
        ));
    })
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
        let value = plan_json(&value, 0).or_else(|m| {
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
