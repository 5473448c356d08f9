//! The [`register!`](crate::register) macro: registration from Rust signatures written in the
//! macro call (the manual way; `#[class]` registers from the type's own impl block).

/// Registers a Rust type under its catalog name, with typed constructors, methods, property
/// writers, static methods, casts and constants, and records their signatures for
/// [`Registry::catalog`](crate::Registry::catalog). Plain `macro_rules!`, stable Rust.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use wireplan_runtime::{register, Registry};
///
/// trait Logger: Send + Sync { fn log(&self, msg: &str); }
/// struct Clock;
/// struct FileLogger { path: String, level: i64, clock: Option<Arc<Clock>>, lines: Mutex<Vec<String>> }
/// impl Logger for FileLogger {
///     fn log(&self, msg: &str) { self.lines.lock().unwrap().push(msg.into()) }
/// }
///
/// let mut registry = Registry::new();
/// register!(registry, "App\\Clock" => Clock {
///     new() { Clock }
/// });
/// register!(registry, "App\\FileLogger" => FileLogger {
///     new(path: String, clock: Option<Arc<Clock>>) {
///         FileLogger { path, level: 0, clock, lines: Mutex::default() }
///     }
///     implements "App\\Logger" => dyn Logger;
///     fn setLevel(&mut this, level: i64) { this.level = level; }
///     fn lineCount(&this) -> i64 { this.lines.lock().unwrap().len() as i64 }
///     property verbose(&mut this, on: bool) { if on { this.level = 9 } }
///     get path(&this) -> String { this.path.clone() }
///     static fn create(path: String) -> Arc<FileLogger> {
///         Arc::new(FileLogger { path, level: 0, clock: None, lines: Mutex::default() })
///     }
///     const DEFAULT_LEVEL = 0;
///     dispose(&this) { this.lines.lock().unwrap().clear(); }
/// });
/// let catalog = registry.catalog();
/// assert!(catalog.contains("\t\tconstructor:\n\t\t\tpath: string\n\t\t\tclock: ?App\\Clock\n"));
/// assert!(catalog.contains("setLevel: {params: {level: int}, returns: void}"));
/// ```
///
/// Items, in any order and any number:
///
/// | item | registers |
/// |---|---|
/// | `new(a: A, b: B) { expr }` | the constructor; arguments converted by [`ArgType`](crate::catalog::ArgType) |
/// | `new(a: A, level: i64 = 3) { expr }` | a parameter with a catalog default (`Value::from(3)`; write `= Value::Null` for `null`), also in `fn` and `static fn` |
/// | `async new(a: A) { expr }` | an [async constructor](crate::ClassBuilder::async_constructor): the arguments are converted first, then `expr` runs in an `async move` block (`.await` and `?` work); the catalog marks the class `async: true` |
/// | `implements "App\\Logger" => dyn Logger;` | the cast to a trait object |
/// | `fn name(&this, a: A) -> R { expr }` | a shared method ([`method`](crate::ClassBuilder::method)); `-> R` optional, `R:` [`ReturnType`](crate::catalog::ReturnType) |
/// | `fn name(&mut this, a: A) { stmts }` | a setup method ([`method_mut`](crate::ClassBuilder::method_mut)) |
/// | `property name(&mut this, v: V) { stmts }` | a property writer |
/// | `inject property name(&mut this, v: V) { stmts }` | a property writer the inject step fills (`inject: true` in the catalog; [`inject_property`](crate::ClassBuilder::inject_property)) |
/// | `get name(&this) -> R { expr }` | a property reader ([`getter`](crate::ClassBuilder::getter)) for `@svc::name` |
/// | `static fn name(a: A) -> R { expr }` | a static method |
/// | `const NAME = expr;` | a class constant (catalog only) |
/// | `extends "App\\Base";` | the parent class (catalog only) |
/// | `dispose(&this) { stmts }` | the [dispose hook](crate::ClassBuilder::on_dispose) |
///
/// Bodies become plain `fn` pointers, so they must not capture local variables. They may use
/// `?` on anything that converts into [`BoxError`](crate::BoxError), or `return
/// Err(..into())`.
#[macro_export]
macro_rules! register {
    ($registry:expr, $name:literal => $ty:ty { $($body:tt)* }) => {{
        let __b = $registry.class::<$ty>($name);
        $crate::__register_items!(__b, $ty; $($body)*);
    }};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __register_ret {
    () => {
        ()
    };
    ($t:ty) => {
        $t
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __register_ret_fn {
    () => {
        <() as $crate::catalog::ReturnType>::catalog_type
    };
    ($t:ty) => {
        <$t as $crate::catalog::ReturnType>::catalog_type
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __register_param {
    ($p:ident : $pt:ty) => {
        $crate::catalog::Param::of::<$pt>(stringify!($p))
    };
    ($p:ident : $pt:ty = $d:expr) => {
        $crate::catalog::Param::of::<$pt>(stringify!($p)).with_default(|| $crate::Value::from($d))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __register_args {
    ($a:ident; $($p:ident : $pt:ty),*) => {
        let mut __i = 0usize;
        $(
            let $p: $pt = $crate::catalog::ArgType::from_arg($a, __i)?;
            __i += 1;
        )*
        let _ = __i;
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __register_items {
    ($b:ident, $ty:ty; ) => { let _ = $b; };

    ($b:ident, $ty:ty; new($($p:ident : $pt:ty $(= $d:expr)?),* $(,)?) $body:block $($rest:tt)*) => {
        let $b = $b
            .signature(vec![$($crate::__register_param!($p: $pt $(= $d)?)),*])
            .constructor(|__a: &$crate::Args<'_>| -> $crate::CallResult<$ty> {
                $crate::__register_args!(__a; $($p: $pt),*);
                Ok($body)
            });
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; async new($($p:ident : $pt:ty),* $(,)?) $body:block $($rest:tt)*) => {
        let $b = $b
            .signature(vec![$($crate::catalog::Param::of::<$pt>(stringify!($p))),*])
            .async_constructor(|__a: &$crate::Args<'_>| -> $crate::CallResult<$crate::BoxFuture<$crate::CallResult<$ty>>> {
                $crate::__register_args!(__a; $($p: $pt),*);
                Ok(::std::boxed::Box::pin(async move {
                    let __r: $crate::CallResult<$ty> = Ok($body);
                    __r
                }))
            });
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; implements $iname:literal => $it:ty; $($rest:tt)*) => {
        let $b = $b.implements::<$it>($iname, |x| x);
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; fn $m:ident(&mut $this:ident $(, $p:ident : $pt:ty $(= $d:expr)?)* $(,)?) $body:block $($rest:tt)*) => {
        let $b = $b
            .method_signature(stringify!($m), $crate::catalog::MethodSig {
                params: vec![$($crate::__register_param!($p: $pt $(= $d)?)),*],
                returns: Some($crate::__register_ret_fn!()),
            })
            .method_mut(stringify!($m), |$this: &mut $ty, __a: &$crate::Args<'_>| -> $crate::CallResult<()> {
                $crate::__register_args!(__a; $($p: $pt),*);
                $body;
                Ok(())
            });
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; fn $m:ident(&$this:ident $(, $p:ident : $pt:ty $(= $d:expr)?)* $(,)?) $(-> $ret:ty)? $body:block $($rest:tt)*) => {
        let $b = $b
            .method_signature(stringify!($m), $crate::catalog::MethodSig {
                params: vec![$($crate::__register_param!($p: $pt $(= $d)?)),*],
                returns: Some($crate::__register_ret_fn!($($ret)?)),
            })
            .method(stringify!($m), |$this: &$ty, __a: &$crate::Args<'_>| -> $crate::CallResult<$crate::Value> {
                $crate::__register_args!(__a; $($p: $pt),*);
                let __r: $crate::__register_ret!($($ret)?) = $body;
                Ok($crate::catalog::ReturnType::into_value(__r))
            });
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; inject property $m:ident(&mut $this:ident, $p:ident : $pt:ty $(,)?) $body:block $($rest:tt)*) => {
        let $b = $b.inject_property(stringify!($m));
        $crate::__register_items!($b, $ty; property $m(&mut $this, $p: $pt) $body $($rest)*);
    };

    ($b:ident, $ty:ty; property $m:ident(&mut $this:ident, $p:ident : $pt:ty $(,)?) $body:block $($rest:tt)*) => {
        let $b = $b
            .property_type(stringify!($m), <$pt as $crate::catalog::ArgType>::catalog_type)
            .property(stringify!($m), |$this: &mut $ty, __a: &$crate::Args<'_>| -> $crate::CallResult<()> {
                $crate::__register_args!(__a; $p: $pt);
                $body;
                Ok(())
            });
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; get $m:ident(&$this:ident) -> $ret:ty $body:block $($rest:tt)*) => {
        let $b = $b
            .property_type(stringify!($m), <$ret as $crate::catalog::ReturnType>::catalog_type)
            .getter(stringify!($m), |$this: &$ty| -> $crate::Value {
                let __r: $ret = $body;
                $crate::catalog::ReturnType::into_value(__r)
            });
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; static fn $m:ident($($p:ident : $pt:ty $(= $d:expr)?),* $(,)?) $(-> $ret:ty)? $body:block $($rest:tt)*) => {
        let $b = $b
            .static_signature(stringify!($m), $crate::catalog::MethodSig {
                params: vec![$($crate::__register_param!($p: $pt $(= $d)?)),*],
                returns: Some($crate::__register_ret_fn!($($ret)?)),
            })
            .static_method(stringify!($m), |__a: &$crate::Args<'_>| -> $crate::CallResult<$crate::Value> {
                $crate::__register_args!(__a; $($p: $pt),*);
                let __r: $crate::__register_ret!($($ret)?) = $body;
                Ok($crate::catalog::ReturnType::into_value(__r))
            });
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; const $c:ident = $v:expr; $($rest:tt)*) => {
        let $b = $b.constant(stringify!($c), $v);
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; extends $parent:literal; $($rest:tt)*) => {
        let $b = $b.extends($parent);
        $crate::__register_items!($b, $ty; $($rest)*);
    };

    ($b:ident, $ty:ty; dispose(&$this:ident) $body:block $($rest:tt)*) => {
        let $b = $b.on_dispose(|$this: &$ty| $body);
        $crate::__register_items!($b, $ty; $($rest)*);
    };
}
