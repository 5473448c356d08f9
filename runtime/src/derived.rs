//! What `#[class]` and `#[interface]` (crate `wireplan-derive`, feature `derive`) expand to:
//! the [`Register`] and [`Interface`] traits, [`Registry::register`], and the builder call for
//! constructors that return `Arc<Self>`.
//!
//! Collection is explicit: `registry.register::<Mailer>()` per type. Link-time collection
//! (`inventory`, `linkme`) relies on linker sections that static libraries drop with unused
//! object files; an explicit call is visible, ordered, and lets a test register a subset.

use std::any::Any;
use std::sync::Arc;

use crate::registry::{ClassBuilder, Registry};
use crate::value::{Args, CallResult, Instance};

/// A trait object with a catalog interface name, e.g. `dyn Logger` named `App\Logger`.
/// `#[interface("App\\Logger")]` on the trait implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no catalog interface name",
    label = "not a catalog interface",
    note = "put #[wireplan_runtime::interface(\"App\\\\Name\")] on the trait"
)]
pub trait Interface: 'static {
    /// The catalog name (`App\Logger`).
    const NAME: &'static str;
}

/// A type that registers itself: its catalog class, constructor, members, casts and the
/// interfaces it implements. `#[class]` on the type's impl block implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot register itself",
    label = "no #[class] impl block",
    note = "put #[wireplan_runtime::class(\"App\\\\Name\")] on an inherent `impl` block of the type"
)]
pub trait Register: Any + Send + Sync {
    /// The catalog class name.
    const CLASS: &'static str;
    /// Registers the class into `registry` (replacing an earlier registration of the name).
    fn register(registry: &mut Registry);
}

impl Registry {
    /// Registers the type `T` as written in its `#[class]` impl block: the class named
    /// [`T::CLASS`](Register::CLASS), its members, its casts to trait objects and the
    /// interfaces those name. Returns the registry for chaining.
    pub fn register<T: Register>(&mut self) -> &mut Registry {
        T::register(self);
        self
    }

    /// Declares the interface `I` under its [`Interface::NAME`], for an interface that no
    /// registered class implements yet (the catalog then lists it as `{interface: true}`).
    pub fn register_interface<I: Interface + ?Sized>(&mut self) -> &mut Registry {
        self.interface::<I>(I::NAME)
    }
}

impl<T: Any + Send + Sync> ClassBuilder<'_, T> {
    /// The constructor, for one that hands out the object already shared (`Arc<T>`); otherwise
    /// the same as [`constructor`](ClassBuilder::constructor). Setups that need `&mut T` still
    /// work while the constructor kept no other clone.
    pub fn shared_constructor(mut self, f: fn(&Args<'_>) -> CallResult<Arc<T>>) -> Self {
        self.class().ctor = Some(Arc::new(move |a| f(a).map(Instance::new)));
        self
    }
}
