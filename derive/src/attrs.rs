//! The helper attributes inside a `#[class]` impl block: which one marks an item, its
//! `name = ".."` override, and `#[default(..)]` on parameters.

use proc_macro2::TokenStream;
use syn::{Attribute, Expr, FnArg, ImplItemFn, LitStr, Meta, Pat, Type};

use crate::errors::Errors;
use crate::names::camel_case;

/// What a helper attribute inside the impl marks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Constructor,
    Method,
    Property,
    Getter,
    StaticMethod,
    Dispose,
}

impl Kind {
    pub(crate) fn from_attr(attr: &Attribute) -> Option<Kind> {
        let p = attr.path();
        Some(if p.is_ident("constructor") {
            Kind::Constructor
        } else if p.is_ident("method") {
            Kind::Method
        } else if p.is_ident("property") {
            Kind::Property
        } else if p.is_ident("getter") {
            Kind::Getter
        } else if p.is_ident("static_method") {
            Kind::StaticMethod
        } else if p.is_ident("dispose") {
            Kind::Dispose
        } else {
            return None;
        })
    }

    fn attr_name(self) -> &'static str {
        match self {
            Kind::Constructor => "#[constructor]",
            Kind::Method => "#[method]",
            Kind::Property => "#[property]",
            Kind::Getter => "#[getter]",
            Kind::StaticMethod => "#[static_method]",
            Kind::Dispose => "#[dispose]",
        }
    }

    fn takes_name(self) -> bool {
        !matches!(self, Kind::Constructor | Kind::Dispose)
    }
}

/// A registered parameter.
pub(crate) struct Param {
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) default: Option<Expr>,
}

/// Removes helper attributes from an item that cannot carry them, as an error.
pub(crate) fn reject_helpers(attrs: &mut Vec<Attribute>) -> syn::Result<Option<TokenStream>> {
    let mut errors = Errors::default();
    attrs.retain(|a| {
        let helper = Kind::from_attr(a).is_some() || a.path().is_ident("constant");
        if helper {
            errors.push(syn::Error::new_spanned(
                a,
                "this attribute marks an associated fn (or const, for #[constant])",
            ));
        }
        !helper
    });
    errors.finish().map_or(Ok(None), Err)
}

/// Takes the helper attribute off `attrs`: its kind and the `name = ".."` override.
pub(crate) fn take_helper(
    attrs: &mut Vec<Attribute>,
    errors: &mut Errors,
) -> Option<(Kind, Option<LitStr>, Attribute)> {
    let mut found: Option<(Kind, Option<LitStr>, Attribute)> = None;
    let mut kept = Vec::with_capacity(attrs.len());
    for attr in attrs.drain(..) {
        let Some(kind) = Kind::from_attr(&attr) else {
            if attr.path().is_ident("constant") {
                errors.push(syn::Error::new_spanned(
                    &attr,
                    "#[constant] marks an associated const",
                ));
                continue;
            }
            kept.push(attr);
            continue;
        };
        if let Some((first, _, _)) = &found {
            errors.push(syn::Error::new_spanned(
                &attr,
                format!(
                    "{} and {} on one fn; a fn registers one thing",
                    first.attr_name(),
                    kind.attr_name()
                ),
            ));
            continue;
        }
        match parse_name_override(&attr, kind.takes_name(), kind.attr_name()) {
            Ok(name) => found = Some((kind, name, attr)),
            Err(e) => errors.push(e),
        }
    }
    *attrs = kept;
    found
}

/// Whether a `#[property(..)]` attribute says `inject` (its other options are checked by
/// [`parse_name_override`]).
pub(crate) fn has_inject(attr: &Attribute) -> bool {
    let mut inject = false;
    if let Meta::List(_) = &attr.meta {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("inject") {
                inject = true;
            } else if meta.input.peek(syn::Token![=]) {
                let _: Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    inject
}

/// `#[x]` → `None`; `#[x(name = "y")]` → `Some("y")` when `allowed`.
pub(crate) fn parse_name_override(
    attr: &Attribute,
    allowed: bool,
    shown: &str,
) -> syn::Result<Option<LitStr>> {
    match &attr.meta {
        Meta::Path(_) => Ok(None),
        Meta::List(_) if allowed => {
            let mut name = None;
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("inject") && shown == "#[property]" {
                    // Read by `has_inject`.
                    Ok(())
                } else if meta.path.is_ident("name") {
                    let lit: LitStr = meta.value()?.parse()?;
                    if lit.value().is_empty() {
                        return Err(syn::Error::new_spanned(lit, "the catalog name is empty"));
                    }
                    if let Some(problem) = crate::names::member_name_problem(&lit.value()) {
                        return Err(syn::Error::new_spanned(lit, problem));
                    }
                    name = Some(lit);
                    Ok(())
                } else {
                    let expected = if shown == "#[property]" {
                        "`name = \"..\"` or `inject`"
                    } else {
                        "`name = \"..\"`"
                    };
                    Err(meta.error(format!("unknown {shown} option; expected {expected}")))
                }
            })?;
            Ok(name)
        }
        _ if allowed => Err(syn::Error::new_spanned(
            attr,
            format!(
                "write {shown} or {}(name = \"..\")",
                shown.trim_end_matches(']')
            ),
        )),
        _ => Err(syn::Error::new_spanned(
            attr,
            format!("{shown} takes no arguments"),
        )),
    }
}

/// Takes `#[default(expr)]` off each typed parameter; returns the parameters.
pub(crate) fn take_params(f: &mut ImplItemFn, errors: &mut Errors) -> Vec<Param> {
    let mut params = Vec::new();
    for arg in f.sig.inputs.iter_mut() {
        let FnArg::Typed(pt) = arg else { continue };
        let mut default = None;
        let mut kept = Vec::new();
        for attr in pt.attrs.drain(..) {
            if attr.path().is_ident("default") {
                match attr.parse_args::<Expr>() {
                    Ok(e) => default = Some(e),
                    Err(e) => errors.push(e),
                }
            } else {
                kept.push(attr);
            }
        }
        pt.attrs = kept;
        let name = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                // Nette's parameters are PHP's camelCase names: `per_page` → `perPage`.
                let name = camel_case(&pi.ident.to_string());
                // Two parameters with one catalog name would be one in the catalog, and no
                // plan compiled from it could call the function (a new user's trial:
                // `per_page, perPage` exported `perPage` once, and the load check then
                // asked for a catalog export that gave the same catalog again).
                if params.iter().any(|p: &Param| p.name == name) {
                    errors.push(syn::Error::new_spanned(
                        &pi.ident,
                        format!(
                            "two parameters have the catalog name `{name}` (parameter names are \
                             camelCased for the catalog); rename one"
                        ),
                    ));
                }
                name
            }
            other => {
                errors.push(syn::Error::new_spanned(
                    other,
                    "a registered parameter needs a plain name: it is the catalog's parameter \
                     name (named arguments in the configuration)",
                ));
                String::new()
            }
        };
        params.push(Param {
            name,
            ty: (*pt.ty).clone(),
            default,
        });
    }
    params
}
