//! The error reply body: the error object (`type`, `reason`, the extra
//! keys Elasticsearch adds, the `caused_by` chain), `root_cause`, and the
//! `status`.

use serde_json::{json, Map, Value};
use strata_search::SearchError;

use super::kind::EsError;
use crate::body_position::Position;

impl EsError {
    /// The error object (`type`, `reason` and the extra keys Elasticsearch
    /// adds, such as `index`), as it appears in `root_cause`, in `_bulk`
    /// items and in `_msearch` responses.
    pub fn cause(&self) -> Value {
        let mut cause = Map::new();
        cause.insert("type".into(), json!(self.es_type()));
        cause.insert("reason".into(), json!(self.reason()));
        if let EsError::NotAnAlias(name) = self {
            cause.insert("resource.type".into(), json!("index_or_alias"));
            cause.insert("resource.id".into(), json!(name));
            cause.insert("index_uuid".into(), json!("_na_"));
            cause.insert("index".into(), json!(name));
        }
        if let EsError::Security { additional, .. } = self {
            if let Some(more) = additional {
                cause.insert("additional_unsuccessful_credentials".into(), json!(more));
            }
            if !self.challenges().is_empty() {
                cause.insert(
                    "header".into(),
                    json!({"WWW-Authenticate": self.challenges()}),
                );
            }
        }
        if let EsError::SearchPhase {
            cause: shards,
            index,
            phase,
        } = self
        {
            let shard_cause = shards.cause();
            let mut failed = Map::new();
            failed.insert("shard".into(), json!(0));
            failed.insert("index".into(), json!(index));
            failed.insert("reason".into(), shard_cause.clone());
            cause.insert("phase".into(), json!(phase));
            cause.insert("grouped".into(), json!(true));
            cause.insert("failed_shards".into(), json!([failed]));
            cause.insert("caused_by".into(), shard_cause);
        }
        if let EsError::Search {
            source,
            index,
            position,
        } = self
        {
            if let (Some(at), "parsing_exception") = (position, source.es_type()) {
                cause.insert("line".into(), json!(at.line));
                cause.insert("col".into(), json!(at.col));
            }
            let name = source.index().map(str::to_string).or_else(|| index.clone());
            if let SearchError::IndexNotFound(n) = source {
                cause.insert("resource.type".into(), json!("index_or_alias"));
                cause.insert("resource.id".into(), json!(n));
            }
            if let SearchError::AliasesNotFound(n) = source {
                cause.insert("resource.type".into(), json!("aliases"));
                cause.insert("resource.id".into(), json!(n));
            }
            if let SearchError::CircuitBreaking {
                bytes_wanted,
                bytes_limit,
                ..
            } = source
            {
                cause.insert("bytes_wanted".into(), json!(bytes_wanted));
                cause.insert("bytes_limit".into(), json!(bytes_limit));
                cause.insert("durability".into(), json!("TRANSIENT"));
            }
            if let SearchError::Script(script) = source {
                cause.extend(
                    script
                        .details()
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v)),
                );
            }
            if let Some(inner) = source.cause() {
                cause.insert("caused_by".into(), caused_by(inner, *position));
            }
            // A failed update script is Java's IllegalArgumentException in
            // Elasticsearch, which carries no index.
            let name = name.filter(|_| !matches!(source, SearchError::UpdateScript(_)));
            if let Some(name) = name {
                cause.insert("index_uuid".into(), json!("_na_"));
                cause.insert("index".into(), json!(name));
            }
        }
        Value::Object(cause)
    }

    /// The whole error reply body.
    pub fn body(&self) -> Value {
        let cause = self.cause();
        let mut error = cause.clone();
        // Root causes are shown without their `caused_by` (Elasticsearch's
        // `guessRootCauses` stops at a wrapper whose cause is not one of its
        // own exceptions, as a failed update script or a field's parser).
        let mut root = match self {
            EsError::SearchPhase { cause, .. } => return cause.wrapped_in(error, self.status()),
            _ => cause,
        };
        if let (EsError::Search { source, .. }, Value::Object(map)) = (self, &mut root) {
            if source.cause().is_some() {
                map.remove("caused_by");
            }
        }
        if let Value::Object(map) = &mut error {
            map.insert("root_cause".into(), json!([root]));
        }
        json!({"error": error, "status": self.status()})
    }

    /// [`EsError::body`] as node `node_id` answers it: each of a search
    /// phase failure's `failed_shards` names the node, as in
    /// Elasticsearch.
    pub fn body_from(&self, node_id: &str) -> Value {
        let mut body = self.body();
        if let Some(Value::Array(failed)) = body["error"].get_mut("failed_shards") {
            for entry in failed.iter_mut().filter_map(Value::as_object_mut) {
                entry.insert("node".into(), json!(node_id));
            }
        }
        body
    }

    /// The reply body of `wrapper` (an error object) whose root cause is
    /// this error's.
    fn wrapped_in(&self, mut wrapper: Value, status: u16) -> Value {
        let inner = self.body();
        wrapper["root_cause"] = inner["error"]["root_cause"].clone();
        json!({"error": wrapper, "status": status})
    }
}

/// The `caused_by` object of a wrapped engine error: its type, reason,
/// script details and own cause (the chain is as deep as the variants
/// nest: parse errors of nested `bool` clauses at most the query nesting
/// limit). A parse error shows `position` (the wrapper's) as its own.
fn caused_by(source: &SearchError, position: Option<Position>) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), json!(source.es_type()));
    let reason = match (source, position) {
        (SearchError::Script(script), _) => script.reason().to_string(),
        (other, Some(at)) if other.es_type() == "x_content_parse_exception" => {
            format!("[{}:{}] {other}", at.line, at.col)
        }
        (other, _) => other.to_string(),
    };
    out.insert("reason".into(), json!(reason));
    if let (Some(at), "parsing_exception") = (position, source.es_type()) {
        out.insert("line".into(), json!(at.line));
        out.insert("col".into(), json!(at.col));
    }
    if let SearchError::Script(script) = source {
        out.extend(
            script
                .details()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v)),
        );
    }
    if let Some(inner) = source.cause() {
        out.insert("caused_by".into(), caused_by(inner, position));
    }
    Value::Object(out)
}
