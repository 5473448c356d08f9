//! One registered fn of a `#[class]` impl block → its `ClassBuilder` calls, with the checks
//! of its shape (receiver, parameters, return type) and of duplicate catalog names.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Ident, ImplItemFn, LitStr, Type};

use crate::attrs::{take_helper, take_params, Kind};
use crate::errors::Errors;
use crate::names::{camel_case, property_name};
use crate::types::{arc_of, check_param_type, fallible, is_self, is_unit};

/// The receiver of a registered fn.
#[derive(PartialEq, Eq)]
pub(crate) enum Recv {
    None,
    Shared,
    Mut,
    Other,
}

/// Names already used, per catalog namespace, to report duplicates at the second use.
#[derive(Default)]
pub(crate) struct Seen {
    pub(crate) methods: HashMap<String, String>,
    pub(crate) writers: HashMap<String, String>,
    pub(crate) getters: HashMap<String, String>,
    pub(crate) constants: HashMap<String, String>,
    pub(crate) constructor: Option<String>,
    pub(crate) dispose: Option<String>,
}

pub(crate) fn claim(
    table: &mut HashMap<String, String>,
    what: &str,
    name: &str,
    rust: &str,
    span: &impl ToTokens,
) -> syn::Result<()> {
    if let Some(first) = table.get(name) {
        return Err(syn::Error::new_spanned(
            span,
            format!("duplicate catalog {what} name `{name}`: `{first}` already registers it"),
        ));
    }
    table.insert(name.to_string(), rust.to_string());
    Ok(())
}

pub(crate) fn receiver(f: &ImplItemFn) -> Recv {
    match f.sig.receiver() {
        None => Recv::None,
        Some(r) => match &*r.ty {
            Type::Reference(rt) if is_self(&rt.elem, "Self") => {
                if rt.mutability.is_some() {
                    Recv::Mut
                } else {
                    Recv::Shared
                }
            }
            _ => Recv::Other,
        },
    }
}

pub(crate) fn register_fn(
    f: &mut ImplItemFn,
    own: &str,
    seen: &mut Seen,
    errors: &mut Errors,
) -> syn::Result<Option<TokenStream>> {
    let helper = take_helper(&mut f.attrs, errors);
    let params = take_params(f, errors);
    let Some((kind, name_override, attr)) = helper else {
        if let Some(p) = params.iter().find(|p| p.default.is_some()) {
            return Err(syn::Error::new_spanned(
                &p.ty,
                "#[default(..)] applies to parameters of a registered fn (#[constructor], \
                 #[method], #[static_method])",
            ));
        }
        return Ok(None);
    };
    let sig = &f.sig;
    let rust = sig.ident.to_string();
    let item = format!("fn {rust}");
    let mut local = Errors::default();
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        local.push(syn::Error::new_spanned(
            &sig.generics,
            "a generic method cannot be registered: each catalog method is one concrete Rust \
             function",
        ));
    }
    // Only a constructor may be async (`ClassBuilder::async_constructor`): methods, static
    // methods, properties and dispose run synchronously inside a creation.
    let is_async = sig.asyncness.is_some();
    if let (Some(a), false) = (&sig.asyncness, kind == Kind::Constructor) {
        local.push(syn::Error::new_spanned(
            a,
            "only a #[constructor] can be async: methods and other registered functions are \
             called synchronously during a creation",
        ));
    }
    if let Some(u) = &sig.unsafety {
        local.push(syn::Error::new_spanned(
            u,
            "an unsafe fn cannot be registered",
        ));
    }
    for p in &params {
        if let Err(e) = check_param_type(&p.ty) {
            local.push(e);
        }
        // A default the parameter's type cannot take: said here, at the `#[default(..)]`,
        // not by the compiler in the generated catalog (a new user's trial).
        if let Some(problem) = p.default.as_ref().and_then(|d| {
            crate::types::default_problem(&p.ty, d).map(|m| syn::Error::new_spanned(d, m))
        }) {
            local.push(problem);
        }
    }
    let recv = receiver(f);
    let ret: Option<&Type> = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) => Some(t),
    };
    let (inner, is_fallible) = match ret.and_then(fallible) {
        Some(t) => (Some(t), true),
        None => (ret, false),
    };
    let returns_unit = inner.is_none_or(is_unit);
    let need = |what: &str| syn::Error::new_spanned(&sig.ident, what.to_string());
    let fname = &sig.ident;
    let q = if is_fallible { quote!(?) } else { quote!() };
    let n = params.len();
    let vars: Vec<Ident> = (0..n).map(|i| quote::format_ident!("__p{i}")).collect();
    let loads = params.iter().zip(&vars).enumerate().map(|(i, (p, v))| {
        let ty = &p.ty;
        quote_spanned! {ty.span()=>
            let #v: #ty = <#ty as ::wireplan_runtime::catalog::ArgType>::from_arg(__a, #i)?;
        }
    });
    let loads = quote!(#(#loads)*);
    let sig_params = params.iter().map(|p| {
        let ty = &p.ty;
        let name = &p.name;
        let default = p.default.as_ref().map(|d| {
            let value = default_value(d);
            quote!(.with_default(|| #value))
        });
        quote_spanned! {ty.span()=>
            ::wireplan_runtime::catalog::Param::of::<#ty>(#name) #default
        }
    });
    let sig_params = quote!(vec![#(#sig_params),*]);
    let catalog_name = |default: String| name_override.as_ref().map_or(default, LitStr::value);
    let no_defaults = |local: &mut Errors| {
        if let Some(p) = params.iter().find(|p| p.default.is_some()) {
            local.push(syn::Error::new_spanned(
                &p.ty,
                "a property's type has no default in the catalog; remove #[default(..)]",
            ));
        }
    };
    let code = match kind {
        Kind::Constructor => {
            if recv != Recv::None {
                local.push(need(
                    "a #[constructor] takes no `self`: it creates the object",
                ));
            }
            if let Some(first) = &seen.constructor {
                local.push(syn::Error::new_spanned(
                    &attr,
                    format!("a second #[constructor]; `fn {first}` is already the constructor"),
                ));
            }
            seen.constructor = Some(rust.clone());
            let shape = inner.map(|t| {
                if is_self(t, own) {
                    Some(false)
                } else if arc_of(t).is_some_and(|a| is_self(a, own)) {
                    Some(true)
                } else {
                    None
                }
            });
            match shape.flatten() {
                Some(true) if is_async => {
                    local.push(syn::Error::new_spanned(
                        ret.map_or_else(|| fname.to_token_stream(), ToTokens::to_token_stream),
                        "an async #[constructor] returns `Self` or `Result<Self, E>`, not an `Arc`",
                    ));
                    quote!()
                }
                Some(false) if is_async => quote! {
                    let __b = __b.signature(#sig_params).async_constructor(
                        |__a: &::wireplan_runtime::Args<'_>| -> ::wireplan_runtime::CallResult<
                            ::wireplan_runtime::BoxFuture<::wireplan_runtime::CallResult<Self>>,
                        > {
                            #loads
                            let __f = Self::#fname(#(#vars),*);
                            Ok(::std::boxed::Box::pin(async move {
                                let __r: ::wireplan_runtime::CallResult<Self> = Ok(__f.await #q);
                                __r
                            }))
                        },
                    );
                },
                None => {
                    local.push(syn::Error::new_spanned(
                        ret.map_or_else(|| fname.to_token_stream(), ToTokens::to_token_stream),
                        "a #[constructor] returns `Self`, `Arc<Self>`, or `Result<Self, E>` / \
                         `Result<Arc<Self>, E>` with `E: Into<BoxError>`",
                    ));
                    quote!()
                }
                Some(false) => quote! {
                    let __b = __b.signature(#sig_params).constructor(
                        |__a: &::wireplan_runtime::Args<'_>| -> ::wireplan_runtime::CallResult<Self> {
                            #loads
                            Ok(Self::#fname(#(#vars),*)#q)
                        },
                    );
                },
                Some(true) => quote! {
                    let __b = __b.signature(#sig_params).shared_constructor(
                        |__a: &::wireplan_runtime::Args<'_>|
                            -> ::wireplan_runtime::CallResult<::std::sync::Arc<Self>> {
                            #loads
                            Ok(Self::#fname(#(#vars),*)#q)
                        },
                    );
                },
            }
        }
        Kind::Method => {
            let name = catalog_name(camel_case(&rust));
            if let Err(e) = claim(&mut seen.methods, "method", &name, &item, &attr) {
                local.push(e);
            }
            match recv {
                Recv::Shared => {
                    let r = inner.map_or_else(|| quote!(()), ToTokens::to_token_stream);
                    let (returns, into) = return_conversion(&r);
                    quote! {
                        let __b = __b
                            .method_signature(#name, ::wireplan_runtime::catalog::MethodSig {
                                params: #sig_params,
                                returns: Some(#returns),
                            })
                            .method(#name, |__this: &Self, __a: &::wireplan_runtime::Args<'_>|
                                -> ::wireplan_runtime::CallResult<::wireplan_runtime::Value> {
                                #loads
                                let __r: #r = __this.#fname(#(#vars),*)#q;
                                Ok(#into)
                            });
                    }
                }
                Recv::Mut => {
                    if !returns_unit {
                        local.push(syn::Error::new_spanned(
                            ret,
                            "a `&mut self` #[method] is a setup call and returns nothing (or \
                             `Result<(), E>`); take `&self` to return a value",
                        ));
                    }
                    quote! {
                        let __b = __b
                            .method_signature(#name, ::wireplan_runtime::catalog::MethodSig {
                                params: #sig_params,
                                returns: Some(<() as ::wireplan_runtime::catalog::ReturnType>::catalog_type),
                            })
                            .method_mut(#name, |__this: &mut Self, __a: &::wireplan_runtime::Args<'_>|
                                -> ::wireplan_runtime::CallResult<()> {
                                #loads
                                __this.#fname(#(#vars),*)#q;
                                Ok(())
                            });
                    }
                }
                _ => {
                    local.push(need(
                        "a #[method] takes `&self` or `&mut self`; mark an associated fn \
                         #[static_method]",
                    ));
                    quote!()
                }
            }
        }
        Kind::Property => {
            let name = catalog_name(property_name(&rust, "set_"));
            if let Err(e) = claim(&mut seen.writers, "property", &name, &item, &attr) {
                local.push(e);
            }
            no_defaults(&mut local);
            if recv != Recv::Mut || n != 1 {
                local.push(need(
                    "a #[property] writer takes `&mut self` and exactly one value",
                ));
            }
            if !returns_unit {
                local.push(syn::Error::new_spanned(
                    ret,
                    "a #[property] writer returns nothing (or `Result<(), E>`)",
                ));
            }
            match params.first() {
                Some(p) if n == 1 => {
                    let ty = &p.ty;
                    let inject = crate::attrs::has_inject(&attr)
                        .then(|| quote!(let __b = __b.inject_property(#name);));
                    quote! {
                        #inject
                        let __b = __b
                            .property_type(#name, <#ty as ::wireplan_runtime::catalog::ArgType>::catalog_type)
                            .property(#name, |__this: &mut Self, __a: &::wireplan_runtime::Args<'_>|
                                -> ::wireplan_runtime::CallResult<()> {
                                #loads
                                __this.#fname(#(#vars),*)#q;
                                Ok(())
                            });
                    }
                }
                _ => quote!(),
            }
        }
        Kind::Getter => {
            let name = catalog_name(property_name(&rust, "get_"));
            if let Err(e) = claim(&mut seen.getters, "getter", &name, &item, &attr) {
                local.push(e);
            }
            if recv != Recv::Shared || n != 0 {
                local.push(need("a #[getter] takes `&self` and nothing else"));
            }
            match ret {
                Some(r) if !is_fallible && !is_unit(r) => {
                    let (returns, into) = return_conversion(&r.to_token_stream());
                    quote! {
                        let __b = __b
                            .property_type(#name, #returns)
                            .getter(#name, |__this: &Self| -> ::wireplan_runtime::Value {
                                let __r: #r = __this.#fname();
                                #into
                            });
                    }
                }
                _ => {
                    local.push(need(
                        "a #[getter] returns the property's value (not `()`, not a `Result`)",
                    ));
                    quote!()
                }
            }
        }
        Kind::StaticMethod => {
            let name = catalog_name(camel_case(&rust));
            if let Err(e) = claim(&mut seen.methods, "method", &name, &item, &attr) {
                local.push(e);
            }
            if recv != Recv::None {
                local.push(need(
                    "a #[static_method] takes no `self`; mark methods with #[method]",
                ));
            }
            let (r, wrap) = match inner {
                None => (quote!(()), quote!()),
                Some(t) if is_self(t, own) => (
                    quote!(::std::sync::Arc<Self>),
                    quote!(::std::sync::Arc::new),
                ),
                Some(t) => (t.to_token_stream(), quote!()),
            };
            let (returns, into) = return_conversion(&r);
            quote! {
                let __b = __b
                    .static_signature(#name, ::wireplan_runtime::catalog::MethodSig {
                        params: #sig_params,
                        returns: Some(#returns),
                    })
                    .static_method(#name, |__a: &::wireplan_runtime::Args<'_>|
                        -> ::wireplan_runtime::CallResult<::wireplan_runtime::Value> {
                        #loads
                        let __r: #r = #wrap(Self::#fname(#(#vars),*)#q);
                        Ok(#into)
                    });
            }
        }
        Kind::Dispose => {
            if let Some(first) = &seen.dispose {
                local.push(syn::Error::new_spanned(
                    &attr,
                    format!("a second #[dispose]; `fn {first}` is already the dispose hook"),
                ));
            }
            seen.dispose = Some(rust.clone());
            if recv != Recv::Shared || n != 0 || ret.is_some_and(|r| !is_unit(r)) {
                local.push(need(
                    "a #[dispose] hook takes `&self` only and returns nothing",
                ));
            }
            quote!(let __b = __b.on_dispose(|__this: &Self| { __this.#fname(); });)
        }
    };
    match local.finish() {
        Some(e) => Err(e),
        None => Ok(Some(code)),
    }
}

/// The catalog type function and the conversion of `__r` for a return type `r`, both spanned
/// at `r`, so a type with no `ReturnType` is reported once, at the return type.
fn return_conversion(r: &TokenStream) -> (TokenStream, TokenStream) {
    let span = r.span();
    (
        quote_spanned!(span=> <#r as ::wireplan_runtime::catalog::ReturnType>::catalog_type),
        quote_spanned!(span=> ::wireplan_runtime::catalog::ReturnType::into_value(__r)),
    )
}

/// `#[default(None)]` is `null`; anything else converts with `Value::from`.
pub(crate) fn default_value(d: &Expr) -> TokenStream {
    if let Expr::Path(p) = d {
        if p.qself.is_none() && p.path.is_ident("None") {
            return quote!(::wireplan_runtime::Value::Null);
        }
    }
    quote_spanned!(d.span()=> ::wireplan_runtime::Value::from(#d))
}
