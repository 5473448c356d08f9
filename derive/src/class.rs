//! `#[class]`: an inherent impl block → an `impl Register` that makes the same `ClassBuilder`
//! calls the `register!` macro makes, so the catalog and the argument errors are the same.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Ident, ImplItem, ItemImpl, LitStr, Token, Type};

use crate::attrs::{parse_name_override, reject_helpers, Kind};
use crate::errors::Errors;
use crate::members::{claim, register_fn, Seen};

/// The attribute's arguments: `"App\\Mailer", implements(dyn Logger), extends = "App\\Base"`.
struct ClassArgs {
    name: Option<LitStr>,
    implements: Vec<Type>,
    extends: Option<LitStr>,
    no_constructor: Option<Span>,
}

impl Parse for ClassArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut args = ClassArgs {
            name: None,
            implements: Vec::new(),
            extends: None,
            no_constructor: None,
        };
        if input.peek(LitStr) {
            let name: LitStr = input.parse()?;
            if name.value().is_empty() {
                return Err(syn::Error::new_spanned(name, "the catalog name is empty"));
            }
            if let Some(problem) = crate::names::class_name_problem(&name.value()) {
                return Err(syn::Error::new_spanned(name, problem));
            }
            args.name = Some(name);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            if key == "implements" {
                let inner;
                syn::parenthesized!(inner in input);
                let list = Punctuated::<Type, Token![,]>::parse_terminated(&inner)?;
                for ty in list {
                    if !matches!(ty, Type::TraitObject(_)) {
                        return Err(syn::Error::new_spanned(
                            ty,
                            "`implements(..)` lists trait objects, e.g. `implements(dyn Logger)`",
                        ));
                    }
                    args.implements.push(ty);
                }
            } else if key == "extends" {
                input.parse::<Token![=]>()?;
                let parent: LitStr = input.parse()?;
                if let Some(problem) = crate::names::class_name_problem(&parent.value()) {
                    return Err(syn::Error::new_spanned(parent, problem));
                }
                args.extends = Some(parent);
            } else if key == "no_constructor" {
                args.no_constructor = Some(key.span());
            } else {
                return Err(syn::Error::new_spanned(
                    key,
                    "unknown #[class] option; expected a catalog name string, \
                     `implements(dyn Trait, ..)`, `extends = \"Parent\"` or `no_constructor`",
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    }
}

/// Expands `#[class(attr)] item`. On errors, the impl block is still emitted (helper
/// attributes removed) next to the errors, so its other uses do not fail too.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut imp: ItemImpl = match syn::parse2(item.clone()) {
        Ok(imp) => imp,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                "#[class] goes on an inherent impl block: `impl Mailer { .. }`",
            );
            let e = e.to_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors = Errors::default();
    let args = match syn::parse2::<ClassArgs>(attr) {
        Ok(a) => Some(a),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    let generated = generate(args.as_ref(), &mut imp, &mut errors);
    match errors.finish() {
        Some(e) => {
            let e = e.to_compile_error();
            quote!(#imp #e)
        }
        None => quote!(#imp #generated),
    }
}

fn generate(args: Option<&ClassArgs>, imp: &mut ItemImpl, errors: &mut Errors) -> TokenStream {
    if let Some((_, path, _)) = &imp.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "#[class] goes on an inherent impl block (`impl Mailer { .. }`), not a trait impl",
        ));
    }
    if !imp.generics.params.is_empty() {
        // Lifetimes alone are another matter than type parameters: no instantiation can be
        // registered, since a service lives as long as its container (a new user's trial got
        // the advice for type parameters).
        let lifetimes_only = imp
            .generics
            .params
            .iter()
            .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
        let message = if lifetimes_only {
            "a type that borrows (lifetime parameters) cannot be registered: a service lives as \
             long as its container, so it must own its data (`String` for `&str`, `Arc<T>` for \
             `&T`)"
        } else {
            "a generic type cannot be registered: a catalog class is one concrete Rust type; \
             register each instantiation as its own type"
        };
        errors.push(syn::Error::new_spanned(&imp.generics, message));
    }
    let own = match &*imp.self_ty {
        Type::Path(p) if p.qself.is_none() => match p.path.segments.last() {
            Some(seg) if !seg.arguments.is_empty() && imp.generics.params.is_empty() => {
                errors.push(syn::Error::new_spanned(
                    &seg.arguments,
                    "a generic type cannot be registered: a catalog class is one concrete Rust \
                     type; register each instantiation as its own type",
                ));
                seg.ident.to_string()
            }
            Some(seg) => seg.ident.to_string(),
            None => String::new(),
        },
        other => {
            errors.push(syn::Error::new_spanned(
                other,
                "#[class] registers a named type (`impl Mailer { .. }`)",
            ));
            String::new()
        }
    };
    let mut stmts: Vec<TokenStream> = Vec::new();
    let mut seen = Seen::default();
    for item in &mut imp.items {
        let result = match item {
            ImplItem::Fn(f) => register_fn(f, &own, &mut seen, errors),
            ImplItem::Const(c) => register_const(c, &mut seen),
            ImplItem::Type(t) => reject_helpers(&mut t.attrs),
            ImplItem::Macro(m) => reject_helpers(&mut m.attrs),
            _ => Ok(None),
        };
        match result {
            Ok(Some(s)) => stmts.push(s),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    let Some(args) = args else {
        return TokenStream::new();
    };
    match (&seen.constructor, args.no_constructor) {
        // A trait impl was reported already; its missing constructor is not news.
        (None, None) if imp.trait_.is_none() => errors.push(syn::Error::new_spanned(
            &imp.self_ty,
            format!(
                "no #[constructor] in `impl {own}`: mark the associated fn that creates the \
                 object, or write `#[class(.., no_constructor)]` for a class created only by \
                 factories or static methods"
            ),
        )),
        (Some(ctor), Some(span)) => errors.push(syn::Error::new(
            span,
            format!("`no_constructor`, yet `fn {ctor}` is marked #[constructor]"),
        )),
        _ => {}
    }
    let name = match &args.name {
        Some(n) => n.value(),
        None => own.clone(),
    };
    let extends = args
        .extends
        .iter()
        .map(|p| quote!(let __b = __b.extends(#p);));
    let implements = args.implements.iter().map(|ty| {
        quote_spanned! {ty.span()=>
            let __b = __b.implements::<#ty>(
                <#ty as ::wireplan_runtime::Interface>::NAME,
                |x| x,
            );
        }
    });
    let self_ty = &imp.self_ty;
    quote! {
        // The generated calls are uniform: `Ok(f()?)` even when `f` already returns a
        // `BoxError`, and `()` results pass through `ReturnType` like any other.
        #[allow(
            clippy::needless_question_mark,
            clippy::let_unit_value,
            clippy::unit_arg,
            clippy::useless_conversion
        )]
        impl ::wireplan_runtime::Register for #self_ty {
            const CLASS: &'static str = #name;
            fn register(registry: &mut ::wireplan_runtime::Registry) {
                let __b = registry.class::<Self>(<Self as ::wireplan_runtime::Register>::CLASS);
                #(#extends)*
                #(#implements)*
                #(#stmts)*
                let _ = __b;
            }
        }
    }
}

fn register_const(c: &mut syn::ImplItemConst, seen: &mut Seen) -> syn::Result<Option<TokenStream>> {
    let mut errors = Errors::default();
    let mut marked: Option<Option<LitStr>> = None;
    c.attrs.retain(|a| {
        if a.path().is_ident("constant") {
            match parse_name_override(a, true, "#[constant]") {
                Ok(n) => marked = Some(n),
                Err(e) => errors.push(e),
            }
            false
        } else if Kind::from_attr(a).is_some() {
            errors.push(syn::Error::new_spanned(
                a,
                "this attribute marks an associated fn; mark a const with #[constant]",
            ));
            false
        } else {
            true
        }
    });
    if let Some(e) = errors.finish() {
        return Err(e);
    }
    let Some(name) = marked else {
        return Ok(None);
    };
    let ident = &c.ident;
    let name = name.map_or_else(|| ident.to_string(), |n| n.value());
    claim(
        &mut seen.constants,
        "constant",
        &name,
        &format!("const {ident}"),
        ident,
    )?;
    let ty = &c.ty;
    Ok(Some(quote_spanned! {ty.span()=>
        let __b = __b.constant(#name, Self::#ident);
    }))
}
