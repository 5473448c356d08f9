//! The scripted definition (`Definition`, a handle by name): Nette's `ServiceDefinition` and
//! `FactoryDefinition` methods (`setFactory`, `setType`, `setArguments`, `addSetup`, `addTag`,
//! `setAutowired`, `setLifespan`, …). Setters return the handle again so calls chain; a
//! definition an extension removed meanwhile is a `missing-service` script error at the calling
//! line. The builder's own methods are in `builder_api`.

use super::builder_api::{creator, value, DefinitionHandle};
use super::values::{args_array, arguments, raise, to_dynamic, OrderedMap, ScriptStatement};
use crate::builder::{Autowired, Definition, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, Expr, ExprKind, Statement};
use rhai::{Array, Dynamic, Engine, EvalAltResult, NativeCallContext};
use wireplan_runtime::plan::Lifespan;

type Res<T> = Result<T, Box<EvalAltResult>>;

/// Registers the definition methods (`Definition` in scripts) on `engine`.
pub(super) fn register(engine: &mut Engine) {
    type H = DefinitionHandle;
    /// Where the running script makes the call `ctx` (`None` outside a script).
    fn call_span(ctx: &NativeCallContext, d: &H) -> Option<crate::source::Span> {
        d.state
            .as_ref()
            .and_then(|s| s.borrow().span_at(ctx.call_position()))
    }
    /// Gives `e` and what it holds the span `at` where they have none (values from a script
    /// have no span of their own), so errors about a value a script wrote point at the call
    /// that wrote it.
    fn stamp(e: &mut Expr, at: Option<crate::source::Span>) {
        if e.span.is_none() {
            e.span = at;
        }
        match &mut e.kind {
            ExprKind::Array(a) => a.items.values_mut().for_each(|v| stamp(v, at)),
            ExprKind::Statement(st) => st.arguments.items.values_mut().for_each(|v| stamp(v, at)),
            ExprKind::Concat(parts) => parts.iter_mut().for_each(|v| stamp(v, at)),
            _ => {}
        }
    }
    /// Records that the creator was last changed at `at` (errors about it point there).
    fn creator_changed_at(def: &mut Definition, at: Option<crate::source::Span>) {
        if at.is_some() || def.extras().creator_at.is_some() {
            def.extras_mut().creator_at = at;
        }
    }
    fn set_factory(ctx: &NativeCallContext, d: &mut H, entity: Dynamic, args: Dynamic) -> Res<H> {
        let st = creator(&entity, &args, "setFactory")?;
        let at = call_span(ctx, d);
        d.chain(|def| {
            creator_changed_at(def, at);
            // Only a plain alias service is not autowired (Nette's ServiceDefinition).
            if def.kind == DefinitionKind::Service
                && matches!(&st.callee, Callee::Name(n) if n.starts_with('@') && !n.contains("::"))
            {
                def.autowired = Autowired::All(false);
            }
            def.creator = Some(st);
        })
    }
    for name in ["setFactory", "setCreator"] {
        engine.register_fn(
            name,
            |ctx: NativeCallContext, d: &mut H, entity: Dynamic, args: Dynamic| {
                set_factory(&ctx, d, entity, args)
            },
        );
        engine.register_fn(
            name,
            |ctx: NativeCallContext, d: &mut H, entity: Dynamic| {
                set_factory(&ctx, d, entity, Dynamic::UNIT)
            },
        );
    }
    engine.register_fn("setType", |d: &mut H, ty: &str| {
        d.chain(|def| def.declared_type = Some(crate::catalog::normalize_name(ty)))
    });
    engine.register_fn(
        "setArguments",
        |ctx: NativeCallContext, d: &mut H, args: Dynamic| -> Res<H> {
            let mut args = arguments(&args, "setArguments")?;
            let at = call_span(&ctx, d);
            // Errors about these values point at this call (each value carries its span);
            // those about the creator itself or about autowired arguments stay where the
            // creator was set.
            args.items.values_mut().for_each(|v| stamp(v, at));
            d.chain(|def| {
                let st = def.creator.get_or_insert_with(|| Statement {
                    callee: Callee::Name(String::new()),
                    arguments: Default::default(),
                });
                st.arguments = args;
            })
        },
    );
    engine.register_fn(
        "setArgument",
        |ctx: NativeCallContext, d: &mut H, key: Dynamic, v: Dynamic| -> Res<H> {
            let mut v = value(&v, "setArgument")?;
            let at = call_span(&ctx, d);
            stamp(&mut v, at);
            let key = if let Ok(i) = key.as_int() {
                if i < 0 {
                    return raise(Diagnostic::error(
                        Code::InvalidValue,
                        format!("setArgument: a position must be 0 or more, {i} given"),
                    ));
                }
                crate::neon::Key::Int(i)
            } else if key.is_string() && !key.to_string().trim().is_empty() {
                crate::neon::Key::from_string(key.to_string())
            } else {
                return raise(Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "setArgument: expects a position (int) or a parameter name (string), {} given",
                        if key.is_string() {
                            "an empty name".to_string()
                        } else {
                            super::values::script_type_name(&key)
                        }
                    ),
                ));
            };
            d.chain(|def| {
                let st = def.creator.get_or_insert_with(|| Statement {
                    callee: Callee::Name(String::new()),
                    arguments: Default::default(),
                });
                st.arguments.items.insert(key, v);
            })
        },
    );
    // A setup a script adds is placed at the `addSetup` call: its errors point there.
    fn add_setup(ctx: NativeCallContext, d: &mut H, entity: Dynamic, args: Dynamic) -> Res<H> {
        // An empty name names nothing (it was reported later, at the service, as
        // `Method App\Db::() is not callable`). `setFactory("")` keeps Nette's meaning: it
        // empties the factory.
        if entity
            .clone()
            .into_string()
            .is_ok_and(|s| s.trim().is_empty())
        {
            return raise(Diagnostic::error(
                Code::InvalidValue,
                "addSetup: the method name is empty; name a method, `Class::method`, \
                 `@service::method` or a `$property`",
            ));
        }
        let st = creator(&entity, &args, "addSetup")?;
        let span = call_span(&ctx, d);
        // The statement and what it holds (a reference among its arguments, say) are placed
        // at this call: their errors point here, not at the service's configuration.
        let mut setup = Expr::new(ExprKind::Statement(Box::new(st)), span);
        stamp(&mut setup, span);
        d.chain(|def| def.setup.push(setup))
    }
    engine.register_fn("addSetup", add_setup);
    engine.register_fn(
        "addSetup",
        |ctx: NativeCallContext, d: &mut H, entity: Dynamic| {
            add_setup(ctx, d, entity, Dynamic::UNIT)
        },
    );
    // Like `addSetup`, each setup is placed at the `setSetup` call (unless it already knows
    // where it was written): `setSetup([5])` is reported at the script line, not at the
    // service's configuration.
    engine.register_fn(
        "setSetup",
        |ctx: NativeCallContext, d: &mut H, setups: Array| -> Res<H> {
            let items = args_array(&setups, "setSetup")?;
            let span = call_span(&ctx, d);
            d.chain(|def| {
                def.setup = items
                    .values()
                    .map(|e| {
                        let mut e = e.clone();
                        stamp(&mut e, span);
                        e
                    })
                    .collect()
            })
        },
    );
    fn add_tag(ctx: NativeCallContext, d: &mut H, tag: &str, v: Dynamic) -> Res<H> {
        if tag.trim().is_empty() {
            return raise(Diagnostic::error(
                Code::InvalidValue,
                "addTag: the tag name is empty",
            ));
        }
        let v = value(&v, "addTag")?;
        let at = call_span(&ctx, d);
        d.chain(|def| {
            def.tags.insert(tag.to_string(), v);
            if let Some(at) = at {
                let tags_at = &mut def.extras_mut().tags_at;
                tags_at.retain(|(t, _)| t != tag);
                tags_at.push((tag.to_string(), at));
            }
        })
    }
    engine.register_fn("addTag", add_tag);
    engine.register_fn("addTag", |ctx: NativeCallContext, d: &mut H, tag: &str| {
        add_tag(ctx, d, tag, Dynamic::from(true))
    });
    engine.register_fn("setTags", |d: &mut H, tags: Dynamic| -> Res<H> {
        let tags = arguments(&tags, "setTags")?;
        // The rules of `tags:` and `addTag()`, checked before anything is replaced: a list
        // item is a tag name, a map key a non-empty name (a number or `()` in the list used
        // to become a tag named after its position).
        let mut checked = Vec::with_capacity(tags.items.len());
        for (k, v) in tags.items {
            let (name, value) = match k {
                crate::neon::Key::Int(_) => match v.as_str() {
                    Some(t) => (t.to_string(), Expr::bare(ExprKind::Bool(true))),
                    None => {
                        return raise(Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "setTags: a list item must be a tag name, {} given",
                                v.type_name()
                            ),
                        ))
                    }
                },
                k => (k.as_string(), v),
            };
            if name.trim().is_empty() {
                return raise(Diagnostic::error(
                    Code::InvalidValue,
                    "setTags: a tag name is empty",
                ));
            }
            checked.push((name, value));
        }
        d.chain(|def| {
            def.tags.clear();
            def.tags.extend(checked);
        })
    });
    engine.register_fn(
        "setAutowired",
        |ctx: NativeCallContext, d: &mut H, v: Dynamic| -> Res<H> {
            let a = autowired(&v)?;
            // Each type is placed at the call, so an `invalid-autowired` error points at the
            // script line instead of the service's configuration.
            let at = call_span(&ctx, d);
            d.chain(|def| {
                let placed: Vec<(String, crate::source::Span)> = match (&a, at) {
                    (Autowired::Types(types), Some(at)) => {
                        types.iter().map(|t| (t.clone(), at)).collect()
                    }
                    _ => Vec::new(),
                };
                if !placed.is_empty() || !def.extras().autowired_at.is_empty() {
                    def.extras_mut().autowired_at = placed;
                }
                def.autowired = a;
            })
        },
    );
    engine.register_fn("setInject", |d: &mut H, on: bool| {
        d.chain(|def| def.inject = on)
    });
    engine.register_fn("setLazy", |d: &mut H, on: bool| {
        d.chain(|def| def.lazy = on)
    });
    engine.register_fn(
        "setLifespan",
        |ctx: NativeCallContext, d: &mut H, l: &str| -> Res<H> {
            let at = call_span(&ctx, d);
            let l = match l {
                "singleton" => Lifespan::Singleton,
                "scoped" => Lifespan::Scoped,
                "transient" => Lifespan::Transient,
                other => {
                    return raise(Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                    "setLifespan: expects 'singleton', 'scoped' or 'transient', '{other}' given"
                ),
                    ))
                }
            };
            d.chain(|def| {
                def.lifespan = l;
                if at.is_some() || def.extras().lifespan_at.is_some() {
                    def.extras_mut().lifespan_at = at;
                }
                // A lifespan the configuration wrote wrong is now set right.
                if def.extras().lifespan_invalid {
                    def.extras_mut().lifespan_invalid = false;
                }
            })
        },
    );
    engine.register_fn("setImplement", |d: &mut H, iface: &str| -> Res<H> {
        // Nette's ServiceDefinition has no setImplement(): on a plain service it did nothing
        // here, and the service was then reported without a creator (fifth new user's trial).
        if d.read(|def| def.kind)? == DefinitionKind::Service {
            return raise(Diagnostic::error(
                Code::InvalidDefinition,
                format!(
                    "setImplement() is for generated services: '{}' was added with \
                     addDefinition(); add it with addFactoryDefinition() (its interface has \
                     create()) or addAccessorDefinition() (get())",
                    d.name()
                ),
            ));
        }
        d.chain(|def| def.extras_mut().implement = Some(crate::catalog::normalize_name(iface)))
    });
    engine.register_fn("setReference", |d: &mut H, target: &str| -> Res<H> {
        // Accessor: the service `get()` returns.
        let target = format!("@{}", target.trim_start_matches('@'));
        d.chain(|def| {
            def.creator = Some(Statement {
                callee: Callee::Name(target),
                arguments: Default::default(),
            })
        })
    });
    engine.register_fn("setReferences", |d: &mut H, refs: Dynamic| -> Res<H> {
        let refs = arguments(&refs, "setReferences")?;
        d.chain(|def| {
            def.extras_mut().references = refs
                .items
                .into_iter()
                .map(|(k, v)| (k.as_string(), v))
                .collect()
        })
    });
    engine.register_fn("setTagged", |d: &mut H, tag: &str| {
        d.chain(|def| def.extras_mut().tagged = Some(tag.to_string()))
    });
    engine.register_fn("getResultDefinition", |d: &mut H| d.clone());

    // Getters.
    engine.register_get("name", |d: &mut H| d.name.clone());
    engine.register_fn("getName", |d: &mut H| d.name.clone());
    engine.register_fn("getType", |d: &mut H| -> Res<Dynamic> {
        d.read(|def| {
            def.type_for_messages()
                .map(Dynamic::from)
                .unwrap_or(Dynamic::UNIT)
        })
    });
    engine.register_fn("getTag", |d: &mut H, tag: &str| -> Res<Dynamic> {
        d.read(|def| def.tags.get(tag).map(to_dynamic).unwrap_or(Dynamic::UNIT))
    });
    engine.register_fn("getTags", |d: &mut H| -> Res<OrderedMap> {
        d.read(|def| OrderedMap {
            entries: def
                .tags
                .iter()
                .map(|(k, v)| (k.clone(), to_dynamic(v)))
                .collect(),
        })
    });
    engine.register_fn("getSetup", |d: &mut H| -> Res<Array> {
        d.read(|def| def.setup.iter().map(to_dynamic).collect())
    });
    for name in ["getFactory", "getCreator"] {
        engine.register_fn(name, |d: &mut H| -> Res<Dynamic> {
            d.read(|def| {
                def.creator
                    .clone()
                    .map(|c| Dynamic::from(ScriptStatement(c)))
                    .unwrap_or(Dynamic::UNIT)
            })
        });
    }
    engine.register_fn("getArguments", |d: &mut H| -> Res<Dynamic> {
        d.read(|def| {
            def.creator
                .as_ref()
                .map(|c| to_dynamic(&Expr::bare(ExprKind::Array(c.arguments.clone()))))
                .unwrap_or_else(|| Dynamic::from_array(Array::new()))
        })
    });
    engine.register_fn("getAutowired", |d: &mut H| -> Res<Dynamic> {
        d.read(|def| match &def.autowired {
            Autowired::All(b) => Dynamic::from(*b),
            Autowired::Types(t) => {
                Dynamic::from_array(t.iter().map(|x| Dynamic::from(x.clone())).collect())
            }
        })
    });
    engine.register_fn("getImplement", |d: &mut H| -> Res<Dynamic> {
        d.read(|def| {
            def.extras()
                .implement
                .clone()
                .map(Dynamic::from)
                .unwrap_or(Dynamic::UNIT)
        })
    });
    engine.register_fn("isInject", |d: &mut H| d.read(|def| def.inject));
    engine.register_fn("isLazy", |d: &mut H| d.read(|def| def.lazy));
    engine.register_fn("getLifespan", |d: &mut H| -> Res<String> {
        d.read(|def| match def.lifespan {
            Lifespan::Singleton => "singleton".to_string(),
            Lifespan::Scoped => "scoped".to_string(),
            Lifespan::Transient => "transient".to_string(),
        })
    });
    engine.register_fn("getKind", |d: &mut H| -> Res<String> {
        d.read(|def| format!("{:?}", def.kind).to_lowercase())
    });
}

fn autowired(v: &Dynamic) -> Res<Autowired> {
    if let Ok(b) = v.as_bool() {
        return Ok(Autowired::All(b));
    }
    match value(v, "setAutowired")?.kind {
        ExprKind::Str(s) => Ok(Autowired::Types(vec![crate::catalog::normalize_name(&s)])),
        // Every item a type name: a map, or a number among the types, is refused (it was
        // dropped, leaving the service autowired for fewer types than the script named).
        ExprKind::Array(a) if a.is_list() && a.values().all(|x| x.as_str().is_some()) => {
            Ok(Autowired::Types(
                a.values()
                    .filter_map(|x| x.as_str().map(crate::catalog::normalize_name))
                    .collect(),
            ))
        }
        _ => {
            let given = match v.read_lock::<rhai::Array>() {
                Some(items) => match items.iter().find(|x| !x.is_string()) {
                    Some(item) => format!(
                        "a list with an item of type {}",
                        super::values::script_type_name(item)
                    ),
                    None => "array".to_string(),
                },
                None => super::values::script_type_name(v),
            };
            raise(Diagnostic::error(
                Code::InvalidValue,
                format!("setAutowired: expects a bool, 'self', a type or a list of types, {given} given"),
            ))
        }
    }
}
