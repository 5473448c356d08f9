//! The web example's server.
//!
//! ```text
//! cargo run -- compile examples/web/config/app.neon -o target/web.plan.json
//! cargo run -p wireplan-example-web -- target/web.plan.json 127.0.0.1:3000
//! curl -H 'x-user: ada' http://127.0.0.1:3000/hello
//! curl -H 'x-user: ada' 'http://127.0.0.1:3000/whoami?wait=100'
//! ```

use std::process::ExitCode;

use wireplan_runtime::Container;

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(plan), addr) = (args.next(), args.next()) else {
        eprintln!("usage: wireplan-web PLAN [ADDRESS, default 127.0.0.1:3000]");
        return ExitCode::from(2);
    };
    let addr = addr.unwrap_or_else(|| "127.0.0.1:3000".into());
    let app = match Container::load(&plan, &wireplan_example_web::registry())
        .and_then(wireplan_example_web::app)
    {
        Ok(app) => app,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The bound address: with port 0 the system picked one.
    let addr = listener.local_addr().map_or(addr, |a| a.to_string());
    println!("listening on http://{addr}");
    let stop = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match axum::serve(listener, app)
        .with_graceful_shutdown(stop)
        .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
