//! The HTTP server: [`crate::transport`] accepts connections (hyper,
//! HTTP/1.1) and hands every request to the axum router, whose one handler,
//! [`handle`], enforces the media types and the body limit, routes, runs
//! the handler on the blocking pool, awaits durability and renders the
//! reply with Elasticsearch's headers.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use futures_util::FutureExt;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use strata_search::MemoryAccount;
use tokio::net::TcpListener;

use crate::error::{EsError, Result};
use crate::media;
use crate::node::Node;
use crate::panics;
use crate::reply::{Payload, Reply};
use crate::request::EsRequest;
use crate::route::Route;
use crate::startup::NodeState;
use crate::timed_body::BodyTimeout;
use crate::transport::HttpLimits;

/// Serves `node` on `listener` (plain, unprotected) with the default
/// [`HttpLimits`] until `shutdown` completes, then lets requests in flight
/// finish. The caller closes the node afterwards. A node still recovering
/// is served as [`crate::startup`] says.
pub async fn serve(
    listener: TcpListener,
    node: Arc<NodeState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, node, HttpLimits::default(), shutdown).await
}

/// [`serve`] on a `strata-net` listener (TLS, protected mode) with `limits`.
pub async fn serve_with(
    listener: impl Into<strata_net::Listener>,
    node: Arc<NodeState>,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Router::new().fallback(handle).with_state(node);
    crate::transport::serve_connections(listener.into(), app, limits, shutdown).await
}

/// One request, start to finish. Never fails: every error becomes an
/// Elasticsearch error reply.
async fn handle(State(state): State<Arc<NodeState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let head = parts.method == Method::HEAD;
    let compatible_with = match parts
        .headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(media::accept_compatibility)
        .transpose()
    {
        Ok(accept) => accept.flatten(),
        Err(e) => return render_error(&e, head, None),
    };
    // As Elasticsearch, the Content-Type of a request without a body is
    // not looked at (Rally sends `application/octet-stream` on an empty
    // `POST _refresh`): an unsupported one is refused once a body shows.
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .map(|v| media::parse_content_type(v.to_str().unwrap_or("")))
        .transpose();
    let compatible_with = compatible_with.or(content_type
        .as_ref()
        .ok()
        .and_then(|ct| ct.and_then(|m| m.compatible_with)));
    // Callers authenticate before their body is read (recovering or not),
    // so an anonymous client cannot make the node buffer a body.
    let auth = match state.security() {
        Some(security) => {
            let uri = parts.uri.path_and_query().map_or("/", |p| p.as_str());
            match security.authenticate(&parts.headers, uri).await {
                Ok(auth) => Some(auth),
                Err(e) => return render_error(&e, head, compatible_with),
            }
        }
        None => None,
    };
    let node = state.node();
    // While recovering there are no breakers yet: the body limit bounds it.
    let in_flight = node
        .as_ref()
        .map_or_else(MemoryAccount::unaccounted, |n| n.in_flight_memory());
    let bytes = match read_body(&parts.headers, body, state.config.max_body, &in_flight).await {
        Ok(b) => b,
        Err(e) => return render_error(&e, head, compatible_with),
    };
    let content_type = match content_type {
        Ok(ct) => ct,
        Err(_) if bytes.is_empty() => None,
        Err(e) => return render_error(&e, head, compatible_with),
    };
    let mut req = EsRequest::new(
        parts.method.clone(),
        parts.uri.path(),
        parts.uri.query(),
        bytes,
    );
    req.body_format = content_type.map(|m| m.format);
    req.compatible_with = compatible_with;
    let Some(node) = node else {
        // Recovering: what is served (root, red health) needs no privilege
        // beyond authentication.
        return match crate::startup::respond(state, &req).await {
            Ok(reply) => render(reply, &req),
            Err(e) => render_error(&e, head, compatible_with),
        };
    };
    req.in_flight = in_flight;
    req.memory = node.request_memory();
    req.node_id = node.identity.node_id.clone();
    match crate::security::guard(&node, auth, &mut req).await {
        Ok(None) => {}
        Ok(Some(reply)) => return render(reply, &req),
        Err(e) => return render_error(&e, head, compatible_with),
    }
    let node_id = node.identity.node_id.clone();
    match respond(node, &req).await {
        Ok(reply) => render(reply, &req),
        Err(e) => {
            // An NDJSON body's items locate their own errors (`_msearch`).
            let e = match req.body_format {
                Some(crate::media::Format::Ndjson) => e,
                _ => e.located(&req.body),
            };
            tracing::debug!(uri = %req.uri, error = %e, "request failed");
            render_error_from(&e, head, compatible_with, &node_id)
        }
    }
}

/// [`respond_unguarded`], with a panic anywhere in it answered as an error.
async fn respond(node: Arc<Node>, req: &EsRequest) -> Result<Reply> {
    AssertUnwindSafe(respond_unguarded(node, req))
        .catch_unwind()
        .await
        .unwrap_or_else(|payload| Err(panics::panicked(req, &*payload)))
}

async fn respond_unguarded(node: Arc<Node>, req: &EsRequest) -> Result<Reply> {
    let route = Route::resolve(&req.method, &req.segments, &req.uri)?;
    let reply = match route {
        Route::ClusterHealth(index) => {
            crate::handlers::cluster::health(node, index, req.clone()).await?
        }
        route => {
            let owned = req.clone();
            tokio::task::spawn_blocking(move || crate::handlers::dispatch(&node, &route, &owned))
                .await
                .map_err(|e| match e.try_into_panic() {
                    Ok(payload) => panics::panicked(req, &*payload),
                    Err(e) => EsError::Internal(format!("request handler failed: {e}")),
                })??
        }
    };
    let mut reply = reply;
    for wait in std::mem::take(&mut reply.durable) {
        wait.await.map_err(EsError::NotDurable)?;
    }
    Ok(reply)
}

/// Reads the whole body, refusing more than `limit` bytes (by the
/// declared length before reading anything, else while reading). The
/// body's bytes are reserved on `in_flight` (the in-flight requests
/// breaker): the declared length before reading, so a body the breakers
/// have no room for is refused with 429 unread.
async fn read_body(
    headers: &axum::http::HeaderMap,
    body: Body,
    limit: usize,
    in_flight: &MemoryAccount,
) -> Result<Bytes> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(EsError::TooLarge { limit });
    }
    in_flight.reserve(declared.unwrap_or(0), "<http_request>")?;
    match Limited::new(body, limit).collect().await {
        Ok(collected) => {
            let bytes = collected.to_bytes();
            let more = (bytes.len() as u64).saturating_sub(declared.unwrap_or(0));
            in_flight.reserve(more, "<http_request>")?;
            Ok(bytes)
        }
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            Err(EsError::TooLarge { limit })
        }
        Err(e) if caused_by_timeout(&*e) => Err(EsError::BodyTimeout(e.to_string())),
        Err(e) => Err(EsError::Parse(format!(
            "could not read the request body: {e}"
        ))),
    }
}

/// True when `error` is, or was caused by, the body's [`BodyTimeout`]
/// (axum wraps the body's errors in its own).
fn caused_by_timeout(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if e.is::<BodyTimeout>() {
            return true;
        }
        cause = e.source();
    }
    false
}

fn render(reply: Reply, req: &EsRequest) -> Response {
    let head = req.method == Method::HEAD;
    let pretty = req.flag("pretty", false).unwrap_or(false);
    let (content_type, bytes) = match reply.payload {
        Payload::Json(value) => json_body(value, req, pretty),
        Payload::Serialized(bytes) => {
            let reshaped = pretty || req.param("filter_path").is_some();
            match reshaped.then(|| serde_json::from_slice(&bytes)) {
                Some(Ok(value)) => json_body(value, req, pretty),
                _ => (media::reply_content_type(req.compatible_with), bytes),
            }
        }
        Payload::Text(text) => ("text/plain; charset=UTF-8".to_string(), text.into_bytes()),
        Payload::Empty => (media::reply_content_type(req.compatible_with), Vec::new()),
        Payload::Chunked(chunks) => {
            let mut response = build(
                reply.status,
                &media::reply_content_type(req.compatible_with),
                Vec::new(),
            );
            if !head {
                *response.body_mut() = Body::new(chunks);
            }
            return response;
        }
    };
    build(
        reply.status,
        &content_type,
        if head { Vec::new() } else { bytes },
    )
}

/// A JSON body with `filter_path` and `pretty` applied.
fn json_body(mut value: serde_json::Value, req: &EsRequest, pretty: bool) -> (String, Vec<u8>) {
    if let Some(paths) = req.param("filter_path") {
        value = crate::filter_path::apply(paths, value);
    }
    (
        media::reply_content_type(req.compatible_with),
        json_bytes(&value, pretty),
    )
}

fn render_error(error: &EsError, head: bool, compatible_with: Option<u8>) -> Response {
    render_body(error, error.body(), head, compatible_with)
}

/// [`render_error`] of an error a node's handler returned (its shard
/// failures name the node).
fn render_error_from(
    error: &EsError,
    head: bool,
    compatible_with: Option<u8>,
    node_id: &str,
) -> Response {
    render_body(error, error.body_from(node_id), head, compatible_with)
}

fn render_body(
    error: &EsError,
    body: serde_json::Value,
    head: bool,
    compatible_with: Option<u8>,
) -> Response {
    let body = if head {
        Vec::new()
    } else {
        json_bytes(&body, false)
    };
    let mut response = build(
        error.status(),
        &media::reply_content_type(compatible_with),
        body,
    );
    if let EsError::MethodNotAllowed { allowed, .. } = error {
        if let Ok(v) = HeaderValue::from_str(&allowed.join(",")) {
            response.headers_mut().insert(header::ALLOW, v);
        }
    }
    for challenge in error.challenges() {
        response.headers_mut().append(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
    }
    response
}

fn json_bytes(value: &serde_json::Value, pretty: bool) -> Vec<u8> {
    let rendered = if pretty {
        serde_json::to_vec_pretty(value).map(|mut v| {
            v.push(b'\n');
            v
        })
    } else {
        serde_json::to_vec(value)
    };
    // Serializing a `Value` cannot fail (its keys are strings).
    rendered.unwrap_or_default()
}

fn build(status: u16, content_type: &str, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    let headers = response.headers_mut();
    headers.insert(
        "x-elastic-product",
        HeaderValue::from_static("Elasticsearch"),
    );
    if let Ok(v) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, v);
    }
    response
}
