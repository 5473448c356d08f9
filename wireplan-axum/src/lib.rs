//! axum integration for wireplan: one container [`Scope`] per request, the plan's scope slots
//! filled from the request, and the [`Inject`] extractor that resolves a service in the
//! request's scope.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use axum::{routing::get, Router, http::request::Parts};
//! # use wireplan_runtime::{Container, Registry};
//! # use wireplan_axum::{Inject, WireplanLayer};
//! # struct CurrentUser(String);
//! # struct Greeter { user: Arc<CurrentUser> }
//! # fn container() -> Container { Container::from_json_str("", &Registry::new()).unwrap() }
//! async fn hello(Inject(greeter): Inject<Greeter>) -> String {
//!     format!("hello, {}", greeter.user.0)
//! }
//!
//! # fn main() -> Result<(), wireplan_runtime::Error> {
//! let layer = WireplanLayer::new(container())
//!     // Fills the slot autowired for CurrentUser (`slot: true` in the NEON config).
//!     .slot(|parts: &Parts| -> Result<CurrentUser, (axum::http::StatusCode, &'static str)> {
//!         let user = parts.headers.get("x-user").and_then(|v| v.to_str().ok());
//!         Ok(CurrentUser(user.unwrap_or("anonymous").to_string()))
//!     })?;
//! let app: Router = Router::new().route("/hello", get(hello)).layer(layer);
//! # Ok(()) }
//! ```
//!
//! ## What happens per request
//!
//! [`WireplanLayer`] opens `container.scope()`, runs each slot filler in the order they were
//! added and [provides](Scope::provide) its value, stores the scope in the request's
//! extensions and calls the inner service. A filler that rejects the request answers with its
//! own response (e.g. 401) and the handler does not run. The scope lives until the handler
//! has answered and its response is dropped (sent), whether or not the handler extracts
//! [`RequestScope`]; then its scoped services are released (their dispose hooks run).
//!
//! [`Inject<T>`] resolves the service autowired for `T` in that scope; [`RequestScope`] hands
//! the scope itself to a handler (to get a service by name). Both reject with **500 Internal
//! Server Error** (the cause logged with `tracing::error!`, not sent to the client) when the
//! layer is missing or resolution fails (e.g. a slot nobody filled): never a panic.
//!
//! An application that installs no global tracing subscriber would lose that cause, so
//! while none is set ([`tracing::dispatcher::has_been_set`] is false) the cause is also
//! written to standard error, one line: `ERROR wireplan_axum: dependency injection: cannot
//! inject …`. Setting a global subscriber (`tracing::subscriber::set_global_default`) turns
//! that off; the event then goes to the subscriber only.
//!
//! Resolution is async ([`resolve`] calls `Scope::get_by_type_async`): a service whose
//! creation needs an async constructor is created on the request's executor, without blocking
//! a worker thread.

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use wireplan_runtime::{Container, Error, Instance, Scope};

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A slot filler: reads the request head, gives the slot's value or a rejection response.
type FillFn =
    dyn for<'a> Fn(&'a mut Parts) -> BoxFuture<'a, Result<Instance, Response>> + Send + Sync;

struct Filler {
    /// The slot's service name in the plan.
    slot: String,
    fill: Box<FillFn>,
}

struct Shared {
    container: Container,
    fillers: Vec<Arc<Filler>>,
}

/// A tower [`Layer`](tower_layer::Layer) that gives every request its own container scope
/// with the plan's scope slots filled from the request (see the [crate docs](crate)).
#[derive(Clone)]
pub struct WireplanLayer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for WireplanLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WireplanLayer")
            .field("container", &self.shared.container)
            .field(
                "slots",
                &self
                    .shared
                    .fillers
                    .iter()
                    .map(|f| f.slot.as_str())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl WireplanLayer {
    /// A layer opening one scope of `container` per request, with no slot fillers yet.
    pub fn new(container: Container) -> WireplanLayer {
        WireplanLayer {
            shared: Arc::new(Shared {
                container,
                fillers: Vec::new(),
            }),
        }
    }

    /// The container.
    pub fn container(&self) -> &Container {
        &self.shared.container
    }

    /// The layer with one more filler. A slot filled twice would fail every request (a scope
    /// takes each slot once), so a second filler for `slot` is refused here, when the layer
    /// is built: [`Error::SlotProvision`].
    fn push(self, slot: String, fill: Box<FillFn>) -> Result<WireplanLayer, Error> {
        if self.shared.fillers.iter().any(|f| f.slot == slot) {
            return Err(Error::SlotProvision {
                slot,
                reason: "this layer already fills it (a scope takes each slot once per request; \
                         give one filler per slot)"
                    .into(),
            });
        }
        let mut fillers = self.shared.fillers.clone();
        fillers.push(Arc::new(Filler { slot, fill }));
        Ok(WireplanLayer {
            shared: Arc::new(Shared {
                container: self.shared.container.clone(),
                fillers,
            }),
        })
    }

    /// Fills the scope slot autowired for `T` with what `f` makes of the request head. `f`
    /// returning `Err(r)` rejects the request with the response `r` (e.g. `StatusCode::UNAUTHORIZED`).
    ///
    /// Errors (when the layer is built, not per request): [`Error::UnregisteredType`],
    /// [`Error::UndeclaredSlot`] when the plan has no slot for `T`, [`Error::SlotProvision`]
    /// when this layer already fills that slot.
    pub fn slot<T, F, R>(self, f: F) -> Result<WireplanLayer, Error>
    where
        T: Any + Send + Sync,
        F: Fn(&Parts) -> Result<T, R> + Send + Sync + 'static,
        R: IntoResponse,
    {
        let slot = self.shared.container.slot_for_type::<T>()?.to_string();
        let f = Arc::new(f);
        self.push(
            slot,
            Box::new(move |parts| {
                let made = f(parts)
                    .map(|v| Instance::new(Arc::new(v)))
                    .map_err(IntoResponse::into_response);
                Box::pin(std::future::ready(made))
            }),
        )
    }

    /// Fills the scope slot autowired for `T` from an axum extractor `X` (a typed header, the
    /// path, a session …): `f` turns what `X` extracted into the slot's value. When `X`
    /// rejects the request, its rejection is the response.
    ///
    /// Errors: as [`WireplanLayer::slot`].
    pub fn slot_from<X, T, F>(self, f: F) -> Result<WireplanLayer, Error>
    where
        X: FromRequestParts<()> + Send + 'static,
        T: Any + Send + Sync,
        F: Fn(X) -> T + Send + Sync + 'static,
    {
        let slot = self.shared.container.slot_for_type::<T>()?.to_string();
        let f = Arc::new(f);
        self.push(
            slot,
            Box::new(move |parts| {
                let f = f.clone();
                Box::pin(async move {
                    match X::from_request_parts(parts, &()).await {
                        Ok(x) => Ok(Instance::new(Arc::new(f(x)))),
                        Err(rejection) => Err(rejection.into_response()),
                    }
                })
            }),
        )
    }
}

impl<S> tower_layer::Layer<S> for WireplanLayer {
    type Service = WireplanService<S>;

    fn layer(&self, inner: S) -> WireplanService<S> {
        WireplanService {
            inner,
            shared: self.shared.clone(),
        }
    }
}

/// The service [`WireplanLayer`] wraps around the inner service (the router or a handler).
#[derive(Clone)]
pub struct WireplanService<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S> std::fmt::Debug for WireplanService<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WireplanService").finish_non_exhaustive()
    }
}

impl<S> tower_service::Service<Request> for WireplanService<S>
where
    S: tower_service::Service<Request, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // The service that was polled ready handles this request; a fresh clone stays here.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let shared = self.shared.clone();
        Box::pin(async move {
            let scope = shared.container.scope();
            let (mut parts, body) = request.into_parts();
            for filler in &shared.fillers {
                match (filler.fill)(&mut parts).await {
                    Ok(value) => {
                        if let Err(e) = scope.provide_instance(&filler.slot, value) {
                            return Ok(internal_error("filling a scope slot", &e));
                        }
                    }
                    Err(rejection) => return Ok(rejection),
                }
            }
            parts.extensions.insert(RequestScope(scope.clone()));
            let Ok(mut response) = inner.call(Request::from_parts(parts, body)).await;
            // axum drops the request's parts, extensions included, once the extractors have
            // run and before the handler's body does: the scope is kept here while the handler
            // runs, then with the response (its body may still be written), so scoped
            // services and handles made in the scope live until the response is done.
            response.extensions_mut().insert(RequestScope(scope));
            Ok(response)
        })
    }
}

/// The request's container scope, put there by [`WireplanLayer`]; also an extractor for
/// handlers that resolve services by name (`scope.0.get::<T>("name")`). A handle: a clone
/// moved into a spawned task keeps the scope (and its scoped services) alive past the
/// response until the task drops it.
#[derive(Clone, Debug)]
pub struct RequestScope(pub Scope);

/// Why an [`Inject`] or [`RequestScope`] extraction failed; answers 500 and logs the cause.
#[derive(Debug)]
pub enum InjectRejection {
    /// The request did not pass through a [`WireplanLayer`].
    NoScope,
    /// Resolving the service failed.
    Resolve {
        /// `std::any::type_name` of the requested type.
        requested: &'static str,
        /// The runtime's error.
        cause: Error,
    },
}

impl std::fmt::Display for InjectRejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InjectRejection::NoScope => write!(
                f,
                "the request has no wireplan scope: add WireplanLayer to the router"
            ),
            InjectRejection::Resolve { requested, cause } => {
                write!(f, "cannot inject {requested}: {cause}")?;
                // The runtime's advice (`scope.provide(...)`) in this crate's terms: the layer
                // makes the scope (a new user's trial had left the slot without a filler).
                if matches!(cause, Error::SlotNotProvided { .. }) {
                    f.write_str(
                        " (with wireplan-axum, give the WireplanLayer a filler for the slot, \
                         `.slot(|parts| …)` or `.slot_from(…)`, so that every request's scope \
                         provides it)",
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for InjectRejection {}

/// A 500 response; the cause goes to the log (and to stderr while no global tracing
/// subscriber is set, see the crate docs), not to the client.
fn internal_error(doing: &str, cause: &dyn std::fmt::Display) -> Response {
    tracing::error!(target: "wireplan_axum", "{doing}: {cause}");
    if cause_to_stderr() {
        // Nothing to do if stderr itself fails: the response is the same.
        let _ = write_cause(&mut std::io::stderr().lock(), doing, cause);
    }
    (StatusCode::INTERNAL_SERVER_ERROR, "internal server error").into_response()
}

/// Whether the cause of a 500 also goes to stderr: while no global tracing subscriber is set,
/// the `tracing::error!` event reaches no one.
fn cause_to_stderr() -> bool {
    !tracing::dispatcher::has_been_set()
}

/// Writes the cause of a 500 as one line (line breaks of a multi-line cause become spaces):
/// `ERROR wireplan_axum: {doing}: {cause}`.
fn write_cause(
    out: &mut dyn std::io::Write,
    doing: &str,
    cause: &dyn std::fmt::Display,
) -> std::io::Result<()> {
    let text = format!("{doing}: {cause}").replace(['\r', '\n'], " ");
    writeln!(out, "ERROR wireplan_axum: {text}")
}

impl IntoResponse for InjectRejection {
    fn into_response(self) -> Response {
        internal_error("dependency injection", &self)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RequestScope {
    type Rejection = InjectRejection;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<RequestScope>()
            .cloned()
            .ok_or(InjectRejection::NoScope)
    }
}

/// Resolves the service autowired for `T` in `scope` with
/// [`Scope::get_by_type_async`], so services whose creation path needs an async constructor
/// (`requires_async` in the plan) are created on the request's executor; each singleton once,
/// even when many requests ask at the same time.
///
/// Errors: as [`Scope::get_by_type_async`].
pub async fn resolve<T: ?Sized + Send + Sync + 'static>(scope: &Scope) -> Result<Arc<T>, Error> {
    scope.get_by_type_async::<T>().await
}

/// An extractor: the service autowired for `T` (a concrete type or a registered trait
/// object), resolved in the request's scope, so scoped services are one per request and
/// singletons are shared by all.
///
/// Rejection: [`InjectRejection`] (500, cause logged).
#[derive(Debug)]
pub struct Inject<T: ?Sized>(pub Arc<T>);

impl<T, S> FromRequestParts<S> for Inject<T>
where
    T: ?Sized + Send + Sync + 'static,
    S: Send + Sync,
{
    type Rejection = InjectRejection;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let RequestScope(scope) = RequestScope::from_request_parts(parts, state).await?;
        resolve::<T>(&scope)
            .await
            .map(Inject)
            .map_err(|cause| InjectRejection::Resolve {
                requested: std::any::type_name::<T>(),
                cause,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slot nobody filled says how to fill it with this crate's layer.
    #[test]
    fn a_slot_not_provided_names_the_layers_filler() {
        let cause = InjectRejection::Resolve {
            requested: "app::Visit",
            cause: Error::SlotNotProvided {
                slot: "currentUser".into(),
                type_name: "App\\CurrentUser".into(),
                path: vec!["visit".into(), "currentUser".into()],
            },
        };
        let text = cause.to_string();
        assert!(
            text.starts_with(
                "cannot inject app::Visit: scope slot 'currentUser' (App\\CurrentUser) was not \
                 provided"
            ),
            "{text}"
        );
        assert!(
            text.ends_with(
                "(with wireplan-axum, give the WireplanLayer a filler for the slot, \
                 `.slot(|parts| …)` or `.slot_from(…)`, so that every request's scope provides \
                 it)"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_cause_is_one_line_with_the_events_content() {
        let mut out = Vec::new();
        let cause = InjectRejection::Resolve {
            requested: "app::Greeter",
            cause: Error::UnknownParameter {
                name: "a\nb".into(),
            },
        };
        write_cause(&mut out, "dependency injection", &cause).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ERROR wireplan_axum: dependency injection: cannot inject app::Greeter: \
             parameter 'a b' not found\n"
        );
    }

    /// The only test of this binary that sets the global subscriber (it cannot be unset).
    #[test]
    fn stderr_gets_the_cause_only_while_no_global_subscriber_is_set() {
        assert!(cause_to_stderr());
        tracing::subscriber::set_global_default(tracing::subscriber::NoSubscriber::default())
            .unwrap();
        assert!(!cause_to_stderr());
    }
}
