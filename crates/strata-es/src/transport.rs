//! HTTP connections: `strata-net`'s listener (TLS, protected mode,
//! accept failures logged at a bounded rate) under hyper's HTTP/1.1
//! server, serving the axum router of [`crate::server`].
//!
//! - At most [`HttpLimits::max_connections`] connections at once. One more
//!   is answered `503` with an Elasticsearch error body and closed at
//!   once, without reading its request (elasticsearch-py retries a 503 on
//!   another connection or node, where a bare close would look like a
//!   network failure); on a TLS port it is closed without a word, since
//!   nothing can be said before a handshake that would itself cost what
//!   the limit protects.
//! - A request's head must arrive within [`HttpLimits::header_timeout`]
//!   from the connection's start or the previous response (hyper's header
//!   read timeout), so an idle keep-alive connection is closed after it
//!   too; on a TLS port the handshake has the same bound.
//! - Its body must arrive within [`HttpLimits::body_timeout`] from the
//!   head ([`TimedBody`]): 408, and the connection is closed.
//! - A client protected mode refuses gets `403` (`security_exception`)
//!   with `Connection: close` to its first request.
//! - At shutdown no more connections are accepted; requests in flight
//!   finish and their replies are sent, idle connections are closed.

use std::future::Future;
use std::io;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use axum::Router;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use strata_net::{ConnectionLimit, ConnectionPermit, Incoming as Accepted, Listener};
use tower_service::Service;

use crate::timed_body::TimedBody;

/// The HTTP front end's connection limits and time bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Time for a request's head to arrive (and for a keep-alive
    /// connection to stay idle).
    pub header_timeout: Duration,
    /// Time for a request's body to arrive, from its head.
    pub body_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            max_connections: 10_000,
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(60),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then lets
/// requests in flight finish.
pub async fn serve_connections(
    mut listener: Listener,
    app: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let connections = ConnectionLimit::new(limits.max_connections);
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let http = Arc::new(http);
    tokio::pin!(shutdown);
    loop {
        let incoming = tokio::select! {
            () = &mut shutdown => break,
            incoming = listener.accept() => incoming,
        };
        let Some(permit) = connections.try_acquire() else {
            incoming.refuse(&TOO_MANY_CONNECTIONS);
            continue;
        };
        let watcher = graceful.watcher();
        let (http, app) = (http.clone(), app.clone());
        tokio::spawn(async move {
            serve_connection(incoming, permit, &http, app, limits.body_timeout, watcher).await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// One connection, from the handshake to its close.
async fn serve_connection(
    incoming: Accepted,
    _permit: ConnectionPermit,
    http: &http1::Builder,
    app: Router,
    body_timeout: Duration,
    watcher: hyper_util::server::graceful::Watcher,
) {
    let refused = incoming.refused_by_protected_mode();
    let peer = incoming.peer_addr();
    let connection = match incoming.establish().await {
        Ok(connection) => connection,
        Err(err) => {
            tracing::debug!(%peer, %err, "HTTP connection not established");
            return;
        }
    };
    let io = TokioIo::new(connection);
    let result = if refused {
        tracing::debug!(%peer, "refused by protected mode");
        let service = hyper::service::service_fn(|_request: Request<Incoming>| async {
            Ok::<_, std::convert::Infallible>(protected_mode_refusal())
        });
        watcher.watch(http.serve_connection(io, service)).await
    } else {
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let request = request.map(|body| TimedBody::new(body, body_timeout));
            let mut app = app.clone();
            // The router is always ready: no `poll_ready` needed.
            app.call(request)
        });
        watcher.watch(http.serve_connection(io, service)).await
    };
    if let Err(err) = result {
        tracing::debug!(%peer, %err, "HTTP connection ended with an error");
    }
}

/// An Elasticsearch error body.
fn error_body(kind: &str, reason: &str, status: u16) -> String {
    serde_json::json!({
        "error": {
            "root_cause": [{"type": kind, "reason": reason}],
            "type": kind,
            "reason": reason,
        },
        "status": status,
    })
    .to_string()
}

/// The whole reply, bytes on the wire, to a connection over the limit.
static TOO_MANY_CONNECTIONS: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let body = error_body(
        "es_rejected_execution_exception",
        "too many open HTTP connections: the limit is max_connections",
        503,
    );
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         x-elastic-product: Elasticsearch\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
});

/// Protected mode's answer to every request of a refused client.
fn protected_mode_refusal() -> Response<Full<Bytes>> {
    let body = error_body(
        "security_exception",
        "Strata is running in protected mode because protected mode is enabled and no \
         authentication is set up for this HTTP port. In this mode connections are only \
         accepted from the loopback interface. To accept clients from other computers, set up \
         authentication for this port, or restart the server with the '--protected-mode no' \
         option, making sure it is not publicly accessible from the internet",
        403,
    );
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = hyper::StatusCode::FORBIDDEN;
    let headers = response.headers_mut();
    headers.insert("content-type", "application/json".parse().unwrap());
    headers.insert("x-elastic-product", "Elasticsearch".parse().unwrap());
    headers.insert("connection", "close".parse().unwrap());
    response
}
