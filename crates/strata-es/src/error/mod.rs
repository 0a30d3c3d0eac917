//! [`EsError`]: every way a request can fail, and the one table that turns
//! it into Elasticsearch's error reply (`{"error": {"root_cause": [..],
//! "type": .., "reason": ..}, "status": N}`) with the HTTP status
//! Elasticsearch uses. Engine errors keep the type and status that
//! `strata-search` assigns them.

use serde_json::{json, Map, Value};
use strata_search::SearchError;

use crate::body_position::{self, Position, Token};

/// A failed request.
#[derive(Debug)]
#[non_exhaustive]
pub enum EsError {
    /// An engine error, with the index it concerns when the engine does
    /// not name one itself.
    Search {
        /// The engine's error.
        source: SearchError,
        /// The index the request was about.
        index: Option<String>,
        /// Where in the request body a parse error happened
        /// ([`EsError::located`]).
        position: Option<Position>,
    },
    /// A body that is not valid JSON (`x_content_parse_exception`).
    XContentParse(String),
    /// A body that is valid JSON but not what the API expects, or a
    /// missing body (`parse_exception`).
    Parse(String),
    /// A parameter or body value that is not allowed.
    IllegalArgument(String),
    /// A request Elasticsearch's validation refuses before running it.
    ActionValidation(String),
    /// A document that does not exist where the API requires one.
    ResourceNotFound(String),
    /// No endpoint has this path.
    NoHandler {
        /// The request URI.
        uri: String,
        /// The request method.
        method: String,
    },
    /// The path exists but not for this method.
    MethodNotAllowed {
        /// The request URI.
        uri: String,
        /// The request method.
        method: String,
        /// Methods the path accepts.
        allowed: Vec<&'static str>,
    },
    /// The body is larger than the configured limit.
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// A `Content-Type` this API does not read.
    UnsupportedMediaType(String),
    /// A media type header that is malformed or names an unsupported version.
    MediaTypeHeader(String),
    /// The translog failed while the reply waited for durability.
    NotDurable(String),
    /// A failure inside the front end (a blocking task panicked).
    Internal(String),
    /// Too much indexing work in flight (back pressure).
    Rejected(String),
    /// A write with `require_alias=true` to a name that is not an alias.
    NotAnAlias(String),
    /// Authentication (401) or authorization (403) refused
    /// (`security_exception`); a 401 carries the challenges of
    /// [`EsError::challenges`].
    Security {
        /// 401 or 403 (500 when security is not enabled).
        status: u16,
        /// The reason, in Elasticsearch's words.
        reason: String,
        /// Why the credentials that were sent failed, when the reason
        /// does not say (`additional_unsuccessful_credentials`).
        additional: Option<String>,
    },
    /// The request body did not arrive within the body timeout.
    BodyTimeout(String),
    /// The node is still recovering its indices (after a start or a
    /// crash): Elasticsearch's global block until its state is recovered
    /// (`cluster_block_exception`, 503, retryable).
    StateNotRecovered,
    /// A scroll or point in time that expired or was cleared.
    SearchContextMissing(String),
    /// Too many open scroll or point-in-time contexts.
    TooManyContexts(String),
    /// Something of that name exists already (a data stream).
    ResourceAlreadyExists(String),
    /// Every shard of a search failed (`search_phase_execution_exception`,
    /// "all shards failed"), all with `cause`: the shard-level failure
    /// Elasticsearch reports in `root_cause`, `caused_by` and
    /// `failed_shards` (grouped: one entry per index).
    SearchPhase {
        /// The shards' failure.
        cause: Box<EsError>,
        /// The index searched, when one is known.
        index: Option<String>,
        /// The phase the shards failed in (`query`, `fetch`).
        phase: &'static str,
    },
}

/// The `WWW-Authenticate` challenges of a 401: HTTP basic and API keys.
pub const CHALLENGES: [&str; 2] = ["Basic realm=\"security\" charset=\"UTF-8\"", "ApiKey"];

/// Result alias of this crate.
pub type Result<T, E = EsError> = std::result::Result<T, E>;

impl From<SearchError> for EsError {
    /// The engine's error; every shard failing is the search phase error
    /// whose cause is the first shard's.
    fn from(source: SearchError) -> Self {
        if let SearchError::ShardsFailed { phase, cause } = source {
            return EsError::SearchPhase {
                cause: Box::new(EsError::from(*cause)),
                index: None,
                phase,
            };
        }
        EsError::Search {
            source,
            index: None,
            position: None,
        }
    }
}

impl EsError {
    /// Names the index the error concerns (kept if the engine named one).
    pub fn in_index(self, name: &str) -> EsError {
        match self {
            EsError::Search {
                source,
                index: None,
                position,
            } => EsError::Search {
                source,
                index: Some(name.to_string()),
                position,
            },
            other => other,
        }
    }

    /// A request parse error (`parsing_exception`,
    /// `x_content_parse_exception` of the engine) with the position in
    /// `body` (the request's JSON) of the key or value it names, as
    /// Elasticsearch reports it; other errors as they are.
    pub fn located(self, body: &[u8]) -> EsError {
        let EsError::Search {
            source,
            index,
            position: None,
        } = self
        else {
            return self;
        };
        // A wrapped parse error ("[bool] failed to parse field [must]")
        // stands where its innermost one does: Elasticsearch's parser had
        // not moved when the wrappers caught it.
        let mut chain = vec![&source];
        while let Some(inner) = chain.last().copied().and_then(SearchError::cause) {
            chain.push(inner);
        }
        let position = chain.iter().rev().find_map(|e| {
            let reason = e.to_string();
            let token = match e.es_type() {
                "x_content_parse_exception" if reason.contains("failed to parse field") => {
                    Some(Token::Value)
                }
                "x_content_parse_exception" => Some(Token::Key),
                "parsing_exception" => Some(Token::Value),
                _ => None,
            };
            token.and_then(|t| body_position::locate(body, &reason, t))
        });
        EsError::Search {
            source,
            index,
            position,
        }
    }

    /// The Elasticsearch error `type`.
    pub fn es_type(&self) -> &'static str {
        match self {
            EsError::Search { source, .. } => source.es_type(),
            EsError::XContentParse(_) => "x_content_parse_exception",
            EsError::Parse(_) => "parse_exception",
            EsError::IllegalArgument(_)
            | EsError::NoHandler { .. }
            | EsError::MethodNotAllowed { .. } => "illegal_argument_exception",
            EsError::ActionValidation(_) => "action_request_validation_exception",
            EsError::ResourceNotFound(_) => "resource_not_found_exception",
            EsError::TooLarge { .. } => "content_too_long_exception",
            EsError::UnsupportedMediaType(_) | EsError::MediaTypeHeader(_) => {
                "media_type_header_exception"
            }
            EsError::NotDurable(_) => "translog_exception",
            EsError::Internal(_) => "exception",
            EsError::Rejected(_) => "es_rejected_execution_exception",
            EsError::NotAnAlias(_) => "index_not_found_exception",
            EsError::Security { .. } => "security_exception",
            EsError::BodyTimeout(_) => "timeout_exception",
            EsError::StateNotRecovered => "cluster_block_exception",
            EsError::SearchContextMissing(_) => "search_context_missing_exception",
            EsError::TooManyContexts(_) => "too_many_scroll_contexts_exception",
            EsError::ResourceAlreadyExists(_) => "resource_already_exists_exception",
            EsError::SearchPhase { .. } => "search_phase_execution_exception",
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            EsError::Search { source, .. } => source.status(),
            EsError::XContentParse(_)
            | EsError::Parse(_)
            | EsError::IllegalArgument(_)
            | EsError::ActionValidation(_)
            | EsError::NoHandler { .. }
            | EsError::MediaTypeHeader(_) => 400,
            EsError::ResourceNotFound(_) => 404,
            EsError::MethodNotAllowed { .. } => 405,
            EsError::UnsupportedMediaType(_) => 406,
            EsError::TooLarge { .. } => 413,
            EsError::NotDurable(_) | EsError::Internal(_) => 500,
            EsError::Rejected(_) => 429,
            EsError::NotAnAlias(_) => 404,
            EsError::Security { status, .. } => *status,
            EsError::BodyTimeout(_) => 408,
            EsError::StateNotRecovered => 503,
            EsError::SearchContextMissing(_) => 404,
            EsError::TooManyContexts(_) => 429,
            EsError::ResourceAlreadyExists(_) => 400,
            EsError::SearchPhase { cause, .. } => cause.status(),
        }
    }

    /// The human-readable `reason`.
    pub fn reason(&self) -> String {
        match self {
            EsError::Search {
                source,
                position: Some(at),
                ..
            } if source.es_type() == "x_content_parse_exception" => {
                format!("[{}:{}] {source}", at.line, at.col)
            }
            EsError::Search { source, .. } => source.to_string(),
            EsError::XContentParse(m)
            | EsError::Parse(m)
            | EsError::IllegalArgument(m)
            | EsError::ResourceNotFound(m)
            | EsError::UnsupportedMediaType(m)
            | EsError::MediaTypeHeader(m)
            | EsError::NotDurable(m)
            | EsError::Internal(m)
            | EsError::Rejected(m)
            | EsError::BodyTimeout(m)
            | EsError::SearchContextMissing(m)
            | EsError::TooManyContexts(m)
            | EsError::ResourceAlreadyExists(m) => m.clone(),
            EsError::ActionValidation(m) => format!("Validation Failed: 1: {m};"),
            EsError::NoHandler { uri, method } => {
                format!("no handler found for uri [{uri}] and method [{method}]")
            }
            EsError::MethodNotAllowed {
                uri,
                method,
                allowed,
            } => format!(
                "Incorrect HTTP method for uri [{uri}] and method [{method}], allowed: [{}]",
                allowed.join(", ")
            ),
            EsError::TooLarge { limit } => {
                format!("request body is too large, the limit is [{limit}] bytes")
            }
            EsError::Security { reason, .. } => reason.clone(),
            EsError::NotAnAlias(name) => format!(
                "no such index [{name}] and [require_alias] request flag is [true] and [{name}] is not an alias"
            ),
            EsError::StateNotRecovered => {
                "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];".into()
            }
            EsError::SearchPhase { .. } => "all shards failed".into(),
        }
    }

    /// The `WWW-Authenticate` values the reply carries (a 401's).
    pub fn challenges(&self) -> &'static [&'static str] {
        match self {
            EsError::Security { status: 401, .. } => &CHALLENGES,
            _ => &[],
        }
    }

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

    /// This error as the failure of every shard of a search over `index`
    /// when it is one a shard reports (a query that cannot run on a field,
    /// a script that fails, a search context or stored script that is
    /// missing); other errors (the request's own parse errors) as they are.
    pub fn on_shards(self, index: Option<&str>) -> EsError {
        if let EsError::SearchPhase {
            cause,
            index: None,
            phase,
        } = self
        {
            let cause = match index {
                Some(name) => Box::new(cause.in_index(name)),
                None => cause,
            };
            return EsError::SearchPhase {
                cause,
                index: index.map(str::to_string),
                phase,
            };
        }
        let shard_level = matches!(
            &self,
            EsError::Search {
                source: SearchError::QueryShard(_)
                    | SearchError::Script(_)
                    | SearchError::ResourceNotFound(_),
                ..
            } | EsError::SearchContextMissing(_)
        );
        if !shard_level {
            return self;
        }
        let cause = match index {
            Some(name) => self.in_index(name),
            None => self,
        };
        EsError::SearchPhase {
            cause: Box::new(cause),
            index: index.map(str::to_string),
            phase: "query",
        }
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

impl std::fmt::Display for EsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.es_type(), self.reason())
    }
}

impl std::error::Error for EsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EsError::Search { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
