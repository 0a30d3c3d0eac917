//! [`EsRequest`]: a request as the handlers see it (method, decoded path
//! segments, query parameters, the whole body within the size limit, the
//! media types), and the parameters shared by several APIs: `refresh`,
//! `if_seq_no`/`if_primary_term`, `version`, `routing`.

use std::sync::Arc;

use axum::http::Method;
use bytes::Bytes;
use serde_json::Value;
use strata_search::{estimate_parsed_json, IndicesOptions, MemoryAccount, Precondition};

use crate::error::{EsError, Result};
use crate::media::Format;

/// A parsed HTTP request.
#[derive(Debug, Clone)]
pub struct EsRequest {
    /// The method (`HEAD` kept as such; handlers answer it without a body).
    pub method: Method,
    /// Path and query as received, for error messages.
    pub uri: String,
    /// Percent-decoded, non-empty path segments.
    pub segments: Vec<String>,
    params: Vec<(String, String)>,
    /// The body (empty when none was sent).
    pub body: Bytes,
    /// Format named by `Content-Type`, when a body came with one.
    pub body_format: Option<Format>,
    /// Vendor media type version the reply must use, if the request used one.
    pub compatible_with: Option<u8>,
    /// What the authenticated caller may do with indices the body names;
    /// `None` when security is off (everything is allowed).
    pub grant: Option<Arc<dyn IndexGrant>>,
    /// What the request builds, on the request breaker (parsed bodies,
    /// searches, documents, the reply); released when the request and
    /// every clone of it are dropped. Unaccounted until the server sets it.
    pub memory: MemoryAccount,
    /// The body's bytes on the in-flight requests breaker, held as long
    /// as the body is.
    pub in_flight: MemoryAccount,
    /// The id of the node answering (what shard failures name); empty
    /// until the server sets it.
    pub node_id: String,
}

/// The caller's index permissions, for the names a request's body carries
/// (`_bulk` items, `_mget` documents, `_msearch` headers) and for
/// listings. Set by the security layer; actions are Elasticsearch's
/// action names (`indices:data/read/search`).
pub trait IndexGrant: Send + Sync + std::fmt::Debug {
    /// `Ok` when the caller may run `action` on every name (index or
    /// alias names as written); otherwise the 403 naming the others.
    fn check(&self, action: &str, names: &[&str]) -> Result<()>;
    /// [`check`](Self::check) for a document write to `name`, which also
    /// needs the right to create the index when it does not exist.
    fn check_write(&self, action: &str, name: &str) -> Result<()>;
    /// `expression` (`None`: every index) with wildcards expanded to the
    /// names the caller may use; `None` when it reaches nothing forbidden;
    /// a forbidden explicit name is a 403 (dropped under
    /// `ignore_unavailable`).
    fn restrict(
        &self,
        action: &str,
        expression: Option<&str>,
        options: IndicesOptions,
    ) -> Result<Option<String>>;
    /// Whether the caller may run `action` on `name`.
    fn permits(&self, action: &str, name: &str) -> bool;
}

/// The `refresh` parameter of write APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshPolicy {
    /// Do not refresh (`false`, the default).
    None,
    /// Refresh the touched indices before replying (`true` or empty).
    Immediate,
    /// Reply once the change is searchable (`wait_for`); served as an
    /// immediate refresh, which gives the same guarantee sooner.
    WaitFor,
}

impl EsRequest {
    /// Builds a request from its parts; `query` is the raw query string.
    pub fn new(method: Method, path: &str, query: Option<&str>, body: Bytes) -> EsRequest {
        let segments = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| percent_decode(s, false))
            .collect();
        let params = query
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| match p.split_once('=') {
                Some((k, v)) => (percent_decode(k, true), percent_decode(v, true)),
                None => (percent_decode(p, true), String::new()),
            })
            .collect();
        let uri = match query {
            Some(q) => format!("{path}?{q}"),
            None => path.to_string(),
        };
        EsRequest {
            method,
            uri,
            segments,
            params,
            body,
            body_format: None,
            compatible_with: None,
            grant: None,
            memory: MemoryAccount::unaccounted(),
            in_flight: MemoryAccount::unaccounted(),
            node_id: String::new(),
        }
    }

    /// The last value of query parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every query parameter, in order.
    pub fn params(&self) -> impl Iterator<Item = (&str, &str)> {
        self.params.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// A boolean parameter: absent is `default`, empty or `true` is true.
    pub fn flag(&self, name: &str, default: bool) -> Result<bool> {
        match self.param(name) {
            None => Ok(default),
            Some("" | "true") => Ok(true),
            Some("false") => Ok(false),
            Some(other) => Err(EsError::IllegalArgument(format!(
                "Failed to parse value [{other}] as only [true] or [false] are allowed."
            ))),
        }
    }

    /// A non-negative integer parameter.
    pub fn u64_param(&self, name: &str) -> Result<Option<u64>> {
        self.param(name)
            .map(|v| {
                v.parse::<u64>().map_err(|_| {
                    EsError::IllegalArgument(format!(
                        "Failed to parse int parameter [{name}] with value [{v}]"
                    ))
                })
            })
            .transpose()
    }

    /// The body as JSON; `Null` when there is none. What the parsed form
    /// takes is reserved on the request breaker first.
    pub fn json_body(&self) -> Result<Value> {
        if self.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Value::Null);
        }
        self.memory
            .reserve(estimate_parsed_json(&self.body), "<parsed_request>")?;
        serde_json::from_slice(&self.body)
            .map_err(|e| EsError::XContentParse(format!("[{}:{}] {e}", e.line(), e.column())))
    }

    /// The body as JSON, which must be present.
    pub fn required_json_body(&self) -> Result<Value> {
        match self.json_body()? {
            Value::Null => Err(EsError::Parse("request body is required".into())),
            v => Ok(v),
        }
    }

    /// The `refresh` parameter.
    pub fn refresh_policy(&self) -> Result<RefreshPolicy> {
        parse_refresh(self.param("refresh"))
    }

    /// The precondition of a document write from `if_seq_no`,
    /// `if_primary_term`, `version`, `version_type` and `op_type`;
    /// `create` forces `op_type=create`.
    pub fn precondition(&self, create: bool) -> Result<Precondition> {
        let op_create = match self.param("op_type") {
            None | Some("index") => create,
            Some("create") => true,
            Some(other) => {
                return Err(EsError::IllegalArgument(format!(
                    "opType must be 'create' or 'index', found: [{other}]"
                )))
            }
        };
        reject_routing(self.param("routing"))?;
        if let Some(external) = check_version(self.param("version"), self.param("version_type"))? {
            if op_create {
                return Err(EsError::ActionValidation(
                    "create operations only support internal versioning. use index instead".into(),
                ));
            }
            return Ok(external);
        }
        precondition(
            self.u64_param("if_seq_no")?,
            self.u64_param("if_primary_term")?,
            op_create,
        )
    }
}

/// Parses a `refresh` value (query parameter or bulk default).
pub fn parse_refresh(value: Option<&str>) -> Result<RefreshPolicy> {
    match value {
        None | Some("false") => Ok(RefreshPolicy::None),
        Some("" | "true") => Ok(RefreshPolicy::Immediate),
        Some("wait_for") => Ok(RefreshPolicy::WaitFor),
        Some(other) => Err(EsError::IllegalArgument(format!(
            "Unknown value for refresh: [{other}]."
        ))),
    }
}

/// Custom routing is refused: documents are routed by `_id` only, so
/// honouring a routing value would silently differ from Elasticsearch.
pub fn reject_routing(routing: Option<&str>) -> Result<()> {
    match routing {
        None => Ok(()),
        Some(_) => Err(EsError::IllegalArgument(
            "custom [routing] is not supported by this server: documents are routed by _id".into(),
        )),
    }
}

/// `version` on a write: internal versioning is Elasticsearch's validation
/// error; `external` and `external_gte` give the write's precondition.
pub fn check_version(
    version: Option<&str>,
    version_type: Option<&str>,
) -> Result<Option<Precondition>> {
    match (version, version_type) {
        (None, _) => Ok(None),
        (Some(_), None | Some("internal")) => Err(EsError::ActionValidation(
            "internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead".into(),
        )),
        (Some(v), Some(kind @ ("external" | "external_gte"))) => {
            let version = v.trim_matches('"').parse::<u64>().map_err(|_| {
                EsError::IllegalArgument(format!("failed to parse [version] with value [{v}]"))
            })?;
            Ok(Some(Precondition::External {
                version,
                gte: kind == "external_gte",
            }))
        }
        (Some(_), Some(kind)) => Err(EsError::IllegalArgument(format!(
            "No version type match [{kind}]"
        ))),
    }
}

/// A write's precondition from its optimistic concurrency values.
pub fn precondition(
    if_seq_no: Option<u64>,
    if_primary_term: Option<u64>,
    create: bool,
) -> Result<Precondition> {
    match (if_seq_no, if_primary_term) {
        (Some(_), _) | (_, Some(_)) if create => Err(EsError::ActionValidation(
            "create operations do not support compare and set. use index instead".into(),
        )),
        (Some(seq_no), Some(primary_term)) if primary_term > 0 => Ok(Precondition::SeqNo {
            seq_no,
            primary_term,
        }),
        (Some(_), _) => Err(EsError::ActionValidation(
            "ifSeqNo is set, but primary term is [0]".into(),
        )),
        (None, Some(_)) => Err(EsError::ActionValidation(
            "ifPrimaryTerm is set, but seq_no is unassigned".into(),
        )),
        (None, None) if create => Ok(Precondition::Absent),
        (None, None) => Ok(Precondition::None),
    }
}

/// Decodes `%XX` escapes (and `+` as a space in query strings); invalid
/// escapes are kept as written and invalid UTF-8 is replaced.
fn percent_decode(s: &str, plus_as_space: bool) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' && i + 2 < bytes.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if plus_as_space && b == b'+' { b' ' } else { b });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_and_query_are_decoded() {
        let r = EsRequest::new(
            Method::GET,
            "/logs%2A/_search",
            Some("q=a+b&pretty&size=%31%3"),
            Bytes::new(),
        );
        assert_eq!(r.segments, vec!["logs*", "_search"]);
        assert_eq!(r.param("q"), Some("a b"));
        assert!(r.flag("pretty", false).unwrap());
        assert_eq!(r.param("size"), Some("1%3"));
        assert!(r.u64_param("size").is_err());
    }

    #[test]
    fn preconditions() {
        assert_eq!(
            precondition(Some(3), Some(1), false).unwrap(),
            Precondition::SeqNo {
                seq_no: 3,
                primary_term: 1
            }
        );
        assert!(precondition(Some(3), None, false).is_err());
        assert!(precondition(Some(3), Some(1), true).is_err());
        assert_eq!(
            precondition(None, None, true).unwrap(),
            Precondition::Absent
        );
        assert!(check_version(Some("2"), None).is_err());
        assert!(parse_refresh(Some("maybe")).is_err());
    }
}
