//! [`EsClient`]: the HTTP/1.1 client that talks to the server, on hyper's pooled client
//! (keep-alive connections, one per concurrent request).
//!
//! It only moves bytes: a request is a method, a path under the base URL and a body; a
//! reply is a status and a body. Deciding what counts as an error is the caller's job (see
//! `replies`). A request that fails in transport or times out is an [`HttpFailure`], which
//! phases count like error replies.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::{Method, Request};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// The media type of a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// `application/json` (also sent for requests without a body).
    Json,
    /// `application/x-ndjson`, for `_bulk` and `_msearch`.
    NdJson,
}

impl BodyKind {
    fn content_type(self) -> HeaderValue {
        HeaderValue::from_static(match self {
            BodyKind::Json => "application/json",
            BodyKind::NdJson => "application/x-ndjson",
        })
    }
}

/// A complete reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// The whole body.
    pub body: Bytes,
}

impl Reply {
    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body parsed as JSON.
    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_slice(&self.body).map_err(|e| format!("unparseable JSON reply: {e}"))
    }

    /// A one-line description for error reports: the status and Elasticsearch's error type
    /// and reason when the body has them, else the start of the body.
    pub fn describe(&self) -> String {
        let reason = serde_json::from_slice::<Value>(&self.body)
            .ok()
            .and_then(|v| error_summary(&v["error"]));
        match reason {
            Some(reason) => format!("HTTP {}: {reason}", self.status),
            None => format!("HTTP {}: {}", self.status, snippet(&self.body)),
        }
    }
}

/// `type: reason` of an Elasticsearch error object (or the error itself when it is a string).
pub fn error_summary(error: &Value) -> Option<String> {
    match error {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => {
            let kind = map.get("type").and_then(Value::as_str).unwrap_or("error");
            let reason = map.get("reason").and_then(Value::as_str).unwrap_or("");
            Some(format!("{kind}: {reason}"))
        }
        _ => None,
    }
}

/// The first 200 characters of a body, lossily decoded, on one line.
pub fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut short: String = text.chars().take(200).collect();
    if text.chars().count() > 200 {
        short.push('…');
    }
    short.replace(['\n', '\r'], " ")
}

/// A request that got no complete reply: connection refused or reset, or a timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpFailure {
    /// `METHOD url`.
    pub request: String,
    /// What went wrong.
    pub reason: String,
}

impl fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.request, self.reason)
    }
}

/// A client for one server; clones share the connection pool.
#[derive(Debug, Clone)]
pub struct EsClient {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
    timeout: Duration,
}

impl EsClient {
    /// A client for the server at `base` (`http://host:port`, no trailing slash); every
    /// request must complete within `timeout`.
    pub fn new(base: String, timeout: Duration) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(timeout));
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .build(connector);
        Self {
            client,
            base,
            timeout,
        }
    }

    /// The base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Sends `method path` (path starting with `/`) with `body` and reads the whole reply.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        kind: BodyKind,
        body: Bytes,
    ) -> Result<Reply, HttpFailure> {
        let url = format!("{}{path}", self.base);
        let fail = |reason: String| HttpFailure {
            request: format!("{method} {url}"),
            reason,
        };
        let request = Request::builder()
            .method(method.clone())
            .uri(&url)
            .header(CONTENT_TYPE, kind.content_type())
            .body(Full::new(body))
            .map_err(|e| fail(format!("invalid request: {e}")))?;
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| fail(describe_client_error(&e)))?;
            let status = response.status().as_u16();
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| fail(format!("reading the reply: {e}")))?
                .to_bytes();
            Ok(Reply { status, body })
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(fail(format!("no reply within {:?}", self.timeout))),
        }
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Result<Reply, HttpFailure> {
        self.send(Method::GET, path, BodyKind::Json, Bytes::new())
            .await
    }

    /// `method path` with a JSON body.
    pub async fn send_json(
        &self,
        method: Method,
        path: &str,
        body: &Value,
    ) -> Result<Reply, HttpFailure> {
        let bytes = Bytes::from(body.to_string());
        self.send(method, path, BodyKind::Json, bytes).await
    }
}

/// A client error with its causes, e.g. "client error (Connect): tcp connect error:
/// Connection refused".
fn describe_client_error(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
