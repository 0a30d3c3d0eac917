//! The metrics port's HTTP/1.1 server: `GET` (or `HEAD`) `/metrics`
//! renders the registry; other paths get 404, other methods 405. At most
//! [`MAX_CONNECTIONS`] connections at once (scrapers keep one open); a
//! request's head must arrive within the header timeout; a client
//! protected mode refuses gets 403.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::registry::Registry;
use strata_net::{ConnectionLimit, Listener};
use tokio_util::sync::CancellationToken;

/// Connections served at once; more are closed at once.
const MAX_CONNECTIONS: usize = 64;
/// Prometheus's text exposition format.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Accepts until `shutdown`; connections in flight finish on their own
/// (a scrape is one short request).
pub(super) async fn serve(
    mut listener: Listener,
    registry: Arc<Registry>,
    header_timeout: Duration,
    shutdown: CancellationToken,
) {
    let limit = ConnectionLimit::new(MAX_CONNECTIONS);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    let http = Arc::new(http);
    loop {
        let incoming = tokio::select! {
            () = shutdown.cancelled() => break,
            incoming = listener.accept() => incoming,
        };
        let Some(permit) = limit.try_acquire() else {
            incoming.refuse(b"");
            continue;
        };
        let (http, registry, shutdown) = (http.clone(), registry.clone(), shutdown.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let refused = incoming.refused_by_protected_mode();
            let peer = incoming.peer_addr();
            let connection = match incoming.establish().await {
                Ok(connection) => connection,
                Err(err) => {
                    tracing::debug!(%peer, %err, "metrics connection not established");
                    return;
                }
            };
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let reply = match refused {
                    true => refusal(),
                    false => answer(&registry, request.method(), request.uri().path()),
                };
                async move { Ok::<_, Infallible>(reply) }
            });
            let serving = http.serve_connection(TokioIo::new(connection), service);
            tokio::pin!(serving);
            tokio::select! {
                result = &mut serving => {
                    if let Err(err) = result {
                        tracing::debug!(%peer, %err, "metrics connection ended with an error");
                    }
                }
                () = shutdown.cancelled() => {}
            }
        });
    }
}

fn reply(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
}

/// The reply to one request.
fn answer(registry: &Registry, method: &Method, path: &str) -> Response<Full<Bytes>> {
    if path != "/metrics" {
        return reply(
            StatusCode::NOT_FOUND,
            "Not Found: metrics are at /metrics\n".into(),
        );
    }
    if method != Method::GET && method != Method::HEAD {
        let mut response = reply(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed\n".into(),
        );
        response
            .headers_mut()
            .insert("allow", HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let mut text = String::with_capacity(64 << 10);
    if let Err(err) = prometheus_client::encoding::prometheus_text::encode(&mut text, registry) {
        tracing::warn!(%err, "could not render the metrics");
        return reply(
            StatusCode::INTERNAL_SERVER_ERROR,
            "could not render the metrics\n".into(),
        );
    }
    let mut response = reply(StatusCode::OK, text);
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static(CONTENT_TYPE));
    response
}

/// Protected mode's answer to a client not on the loopback interface.
fn refusal() -> Response<Full<Bytes>> {
    let mut response = reply(
        StatusCode::FORBIDDEN,
        "Strata is running in protected mode: the metrics port serves only the loopback \
         interface. Restart with '--protected-mode no' to serve other clients, making sure \
         the port is not publicly accessible.\n"
            .into(),
    );
    response
        .headers_mut()
        .insert("connection", HeaderValue::from_static("close"));
    response
}
