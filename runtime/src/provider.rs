//! [`Provider<T>`]: a lazy handle on a service, injected where the catalog declares a
//! parameter of type `Provider<App\Logger>` (Clean IoC 2's `Provider[T]`).
//!
//! The compiler resolves the target like autowiring (exactly one autowired candidate) and
//! writes `{"$provider": "logger"}` into the plan. The handle resolves the service only when
//! asked ([`Provider::get`] or [`Provider::get_async`]), so it is no construction dependency:
//! it breaks a constructor cycle, and it defers an expensive or async service until needed.
//!
//! A handle made inside a [`Scope`](crate::Scope) (for a scoped or transient service created
//! there) resolves scoped services in that scope; one made for a singleton resolves in the
//! container. It holds both weakly (a service that holds its own provider must not keep its
//! container alive): after they are dropped, it returns [`Error::ContainerDropped`].

use std::marker::PhantomData;
use std::sync::Arc;

use crate::container::{Inner, ScopeState};
use crate::error::Error;
use crate::generated::Origin;
use crate::value::{ArgError, Args, Instance};

/// The erased handle the plan's `$provider` evaluates to; [`Provider<T>`] adds the type. A
/// type of its own (around the generated objects' [`Origin`]) so that `Args::provider`
/// recognises it.
#[derive(Clone)]
pub(crate) struct ProviderHandle(Origin);

/// The object a `$provider` expression gives: a handle on service `service`, bound to
/// `scope` (if any).
pub(crate) fn handle(inner: &Inner, service: usize, scope: Option<&Arc<ScopeState>>) -> Instance {
    Instance::from_value(ProviderHandle(Origin::new(inner, service, scope)))
}

/// A lazy handle on the service a `Provider<T>` constructor parameter names: `T` is its
/// concrete type or a trait object its class registered (`Provider<dyn Logger>`).
///
/// Take it in a constructor with `a.provider::<dyn Logger>(0)?` (or a `Provider<dyn Logger>`
/// parameter in [`register!`](crate::register)); in the catalog the parameter's type is
/// `Provider<App\Logger>`. Cloning shares the handle.
///
/// ```
/// # use std::sync::Arc;
/// use wireplan_runtime::{register, Container, Provider, Registry};
/// struct Clock;
/// struct Report { clock: Provider<Clock> }
/// let mut registry = Registry::new();
/// register!(registry, "App\\Clock" => Clock { new() { Clock } });
/// register!(registry, "App\\Report" => Report { new(clock: Provider<Clock>) { Report { clock } } });
/// let plan = r#"{"format": "wireplan-plan", "version": 3, "compiler": "x", "inputs_hash": "0",
///   "services": {
///     "clock": {"type": "App\\Clock", "create": {"$new": "App\\Clock", "args": []}},
///     "report": {"type": "App\\Report",
///                "create": {"$new": "App\\Report", "args": [{"$provider": "clock"}]}}}}"#;
/// let container = Container::from_json_str(plan, &registry)?;
/// let report = container.get::<Report>("report")?;
/// assert!(!container.is_created("clock")); // not a dependency: nothing made yet
/// let clock = report.clock.get()?;
/// assert!(Arc::ptr_eq(&clock, &container.get::<Clock>("clock")?));
/// # Ok::<(), wireplan_runtime::Error>(())
/// ```
pub struct Provider<T: ?Sized> {
    handle: ProviderHandle,
    _t: PhantomData<fn() -> Arc<T>>,
}

impl<T: ?Sized> Clone for Provider<T> {
    fn clone(&self) -> Self {
        Provider {
            handle: self.handle.clone(),
            _t: PhantomData,
        }
    }
}

impl<T: ?Sized> std::fmt::Debug for Provider<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("service", &self.handle.0.name)
            .field("scoped", &self.handle.0.scope.is_some())
            .finish()
    }
}

impl<T: ?Sized + 'static> Provider<T> {
    /// The name of the service this handle resolves.
    pub fn service(&self) -> &str {
        &self.handle.0.name
    }

    /// The service, created on first use as a sync `get` would (in the handle's scope, if
    /// it was made in one).
    ///
    /// Errors: [`Error::ContainerDropped`] when the container or scope is gone;
    /// [`Error::AsyncRequired`] for a service that needs async creation (use
    /// [`Provider::get_async`]); otherwise as [`Container::get`](crate::Container::get).
    pub fn get(&self) -> Result<Arc<T>, Error> {
        let (inner, scope) = self.handle.0.live()?;
        inner.get_index::<T>(self.handle.0.service, scope.as_ref())
    }

    /// The service, created with its async constructors if it needs them; as
    /// [`Container::get_async`](crate::Container::get_async), in the handle's scope.
    pub async fn get_async(&self) -> Result<Arc<T>, Error> {
        let (inner, scope) = self.handle.0.live()?;
        let inst = inner
            .instance_async(self.handle.0.service, scope.as_ref())
            .await?;
        inner.cast_owned::<T>(self.handle.0.service, inst)
    }
}

impl Args<'_> {
    /// Argument `i` as a [`Provider<T>`] (a `Provider<App\Logger>` parameter, which the plan
    /// fills with `{"$provider": name}`).
    pub fn provider<T: ?Sized + 'static>(&self, i: usize) -> Result<Provider<T>, ArgError> {
        let handle = self
            .values()
            .get(i)
            .and_then(|v| v.as_instance())
            .and_then(Instance::downcast::<ProviderHandle>);
        match handle {
            Some(h) => Ok(Provider {
                handle: (*h).clone(),
                _t: PhantomData,
            }),
            None => Err(ArgError {
                index: i,
                expected: format!("Provider<{}>", std::any::type_name::<T>()),
                found: match self.values().get(i) {
                    Some(v) => v.kind(),
                    None => format!("nothing ({} arguments given)", self.len()),
                },
            }),
        }
    }
}
