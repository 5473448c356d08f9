//! The web example's application: the Rust types behind `config/app.neon`, their
//! registrations, and the axum router with two routes.
//!
//! * `GET /hello` greets the current user (the `x-user` header, `anonymous` without one) and
//!   counts their visits in the shared database.
//! * `GET /whoami?wait=MS` answers JSON about this request's services (after waiting `MS`
//!   milliseconds, so concurrent requests overlap): the user, and instance numbers showing
//!   that the database is one for all requests and the greeter one per request.
//!
//! The database has an async constructor ([`Database::connect`], which waits like a network
//! round trip), so the services that need it are created with `get_by_type_async` by
//! `Inject<T>` (see docs/async.md).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use wireplan_axum::{Inject, RequestScope, WireplanLayer};
use wireplan_runtime::{Container, Error, Registry};

/// Numbers every object the example creates, so responses can show which instance served them.
static INSTANCES: AtomicU64 = AtomicU64::new(1);

fn next_instance() -> u64 {
    INSTANCES.fetch_add(1, Ordering::Relaxed)
}

/// The instance numbers of the [`Greeter`]s disposed so far (the dispose hook records them
/// when a request's scope ends).
static DISPOSED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// Whether the [`Greeter`] with this instance number was disposed (its request's scope ended).
pub fn greeter_disposed(instance: u64) -> bool {
    DISPOSED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .contains(&instance)
}

/// How long [`Database::connect`] waits, standing in for a network round trip.
pub const CONNECT_DELAY: Duration = Duration::from_millis(50);

/// How many times [`Database::connect`] ran in this process.
static CONNECTIONS: AtomicU64 = AtomicU64::new(0);

/// The number of completed [`Database::connect`] calls in this process (the e2e test checks
/// that the singleton connects once however many requests ask at the same time).
pub fn connections() -> u64 {
    CONNECTIONS.load(Ordering::SeqCst)
}

/// `App\Database`: a database-like singleton (visit counts per user, in memory), created by
/// its async constructor [`Database::connect`].
#[derive(Debug)]
pub struct Database {
    /// Where it "connects" (the `db.dsn` parameter).
    pub dsn: String,
    /// This object's instance number.
    pub instance: u64,
    visits: Mutex<HashMap<String, u64>>,
}

impl Database {
    /// A new database at `dsn`, with the next instance number.
    pub fn new(dsn: &str) -> Database {
        Database {
            dsn: dsn.to_string(),
            instance: next_instance(),
            visits: Mutex::new(HashMap::new()),
        }
    }

    /// `App\Database`'s async constructor: "connects" to `dsn` (waits [`CONNECT_DELAY`] on
    /// the tokio timer), then counts the connection in [`connections`].
    pub async fn connect(dsn: String) -> Database {
        tokio::time::sleep(CONNECT_DELAY).await;
        CONNECTIONS.fetch_add(1, Ordering::SeqCst);
        Database::new(&dsn)
    }

    /// Records a visit of `user` and returns how many they made so far.
    pub fn visit(&self, user: &str) -> u64 {
        let mut visits = self.visits.lock().unwrap_or_else(|p| p.into_inner());
        let n = visits.entry(user.to_string()).or_insert(0);
        *n += 1;
        *n
    }
}

/// `App\CurrentUser`: the scope slot the layer fills from the `x-user` header.
#[derive(Debug)]
pub struct CurrentUser(pub String);

/// `App\Greeter` (scoped): greets the current user.
#[derive(Debug)]
pub struct Greeter {
    /// The request's user.
    pub user: Arc<CurrentUser>,
    /// The shared database.
    pub db: Arc<Database>,
    /// This object's instance number.
    pub instance: u64,
}

impl Greeter {
    /// `hello, NAME (visit #N)`.
    pub fn greet(&self) -> String {
        let n = self.db.visit(&self.user.0);
        format!("hello, {} (visit #{n})", self.user.0)
    }
}

/// `App\RequestLog` (scoped): what happened during one request.
#[derive(Debug)]
pub struct RequestLog {
    /// The request's user.
    pub user: Arc<CurrentUser>,
    entries: Mutex<Vec<String>>,
}

impl RequestLog {
    /// Appends a line.
    pub fn note(&self, what: &str) {
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        e.push(format!("{}: {what}", self.user.0));
    }

    /// The lines so far.
    pub fn entries(&self) -> Vec<String> {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// `App\Stats` (scoped): the request's view of its services.
#[derive(Debug)]
pub struct Stats {
    /// The request's greeter.
    pub greeter: Arc<Greeter>,
    /// The request's log.
    pub log: Arc<RequestLog>,
    /// The shared database.
    pub db: Arc<Database>,
}

/// The registrations behind `config/app.neon`'s `types:`.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    r.class::<Database>("App\\Database").async_constructor(|a| {
        let dsn = a.str(0)?.to_string();
        Ok(Box::pin(async move { Ok(Database::connect(dsn).await) }))
    });
    r.class::<CurrentUser>("App\\CurrentUser");
    r.class::<Greeter>("App\\Greeter")
        .constructor(|a| {
            Ok(Greeter {
                user: a.service(0)?,
                db: a.service(1)?,
                instance: next_instance(),
            })
        })
        .on_dispose(|g| {
            DISPOSED
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(g.instance)
        });
    r.class::<RequestLog>("App\\RequestLog").constructor(|a| {
        Ok(RequestLog {
            user: a.service(0)?,
            entries: Mutex::new(Vec::new()),
        })
    });
    r.class::<Stats>("App\\Stats").constructor(|a| {
        Ok(Stats {
            greeter: a.service(0)?,
            log: a.service(1)?,
            db: a.service(2)?,
        })
    });
    r
}

/// The current user from the `x-user` header: `anonymous` without one, 400 when it is empty,
/// not printable ASCII, or given more than once (which of two users would be meant?).
pub fn current_user(parts: &Parts) -> Result<CurrentUser, (StatusCode, &'static str)> {
    let mut values = parts.headers.get_all("x-user").iter();
    match (values.next(), values.next()) {
        (None, _) => Ok(CurrentUser("anonymous".into())),
        (Some(_), Some(_)) => Err((
            StatusCode::BAD_REQUEST,
            "x-user header given more than once",
        )),
        (Some(v), None) => match v.to_str() {
            Ok(s) if !s.is_empty() => Ok(CurrentUser(s.to_string())),
            _ => Err((StatusCode::BAD_REQUEST, "bad x-user header")),
        },
    }
}

/// The `wait=MS` query parameter of `/whoami`: 0 without one, at most 5,000 ms; a value that
/// is not a whole number of milliseconds is an error message for a 400 answer.
fn wait_millis(query: Option<&str>) -> Result<u64, String> {
    let Some(text) = query.and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("wait=")))
    else {
        return Ok(0);
    };
    match text.parse::<u64>() {
        Ok(ms) => Ok(ms.min(5_000)),
        Err(_) => Err(format!(
            "wait={text}: expected a whole number of milliseconds (0 to 5000)"
        )),
    }
}

/// The layer: one scope per request, `currentUser` filled by [`current_user`].
///
/// Errors: [`Error::UndeclaredSlot`] when the plan has no slot for `App\CurrentUser`.
pub fn layer(container: Container) -> Result<WireplanLayer, Error> {
    WireplanLayer::new(container).slot(current_user)
}

async fn hello(Inject(greeter): Inject<Greeter>, Inject(log): Inject<RequestLog>) -> String {
    log.note("greeted");
    greeter.greet()
}

async fn whoami(
    Inject(stats): Inject<Stats>,
    Inject(greeter): Inject<Greeter>,
    RequestScope(scope): RequestScope,
    request: Request,
) -> impl IntoResponse {
    let wait = match wait_millis(request.uri().query()) {
        Ok(ms) => ms,
        Err(message) => return (StatusCode::BAD_REQUEST, message).into_response(),
    };
    tokio::time::sleep(Duration::from_millis(wait)).await;
    stats.log.note("whoami");
    // Asked again after the wait: still this request's own user.
    let user_now = scope
        .get_by_type::<CurrentUser>()
        .map(|u| u.0.clone())
        .unwrap_or_default();
    let body = serde_json::json!({
        "user": stats.greeter.user.0,
        "user_after_wait": user_now,
        "db_instance": stats.db.instance,
        "greeter_instance": greeter.instance,
        "same_greeter": Arc::ptr_eq(&greeter, &stats.greeter),
        "log": stats.log.entries(),
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The two routes, without the layer (add routes, then [`layer`] them).
pub fn routes() -> Router {
    Router::new()
        .route("/hello", get(hello))
        .route("/whoami", get(whoami))
}

/// The whole application: [`routes`] behind [`layer`].
///
/// Errors: as [`layer`].
pub fn app(container: Container) -> Result<Router, Error> {
    Ok(routes().layer(layer(container)?))
}
