//! The one table from an [`EsError`] to Elasticsearch's error `type`, HTTP
//! status, `reason` and `WWW-Authenticate` challenges.

use super::kind::{EsError, CHALLENGES};

impl EsError {
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
}

impl std::fmt::Display for EsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.es_type(), self.reason())
    }
}
