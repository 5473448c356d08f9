//! `#[interface]`: a trait → an `impl Interface for dyn Trait` naming it in the catalog.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{ItemTrait, LitStr};

/// Expands `#[interface(attr)] item`.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let tr: ItemTrait = match syn::parse2(item.clone()) {
        Ok(t) => t,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                "#[interface] goes on a trait: `trait Logger: Send + Sync { .. }`",
            )
            .to_compile_error();
            return quote!(#e #item);
        }
    };
    let name = if attr.is_empty() {
        tr.ident.to_string()
    } else {
        match syn::parse2::<LitStr>(attr) {
            Ok(l) if l.value().is_empty() => {
                return error(&tr, syn::Error::new_spanned(l, "the catalog name is empty"))
            }
            Ok(l) => match crate::names::class_name_problem(&l.value()) {
                Some(problem) => return error(&tr, syn::Error::new_spanned(l, problem)),
                None => l.value(),
            },
            Err(e) => {
                let e = syn::Error::new(
                    e.span(),
                    "#[interface] takes the catalog name only: #[interface(\"App\\\\Logger\")]",
                );
                return error(&tr, e);
            }
        }
    };
    if !tr.generics.params.is_empty() {
        let e = syn::Error::new_spanned(
            &tr.generics,
            "a generic trait cannot be a catalog interface: `dyn Trait<T>` is one type per `T`",
        );
        return error(&tr, e);
    }
    let ident = &tr.ident;
    quote! {
        #tr
        impl ::wireplan_runtime::Interface for dyn #ident {
            const NAME: &'static str = #name;
        }
    }
}

fn error(tr: &ItemTrait, e: syn::Error) -> TokenStream {
    let e = e.to_compile_error();
    quote!(#tr #e)
}
