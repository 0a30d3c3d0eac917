//! [`EsError`] itself: every way a request can fail, the engine's errors
//! taken in, and the index or shards an error is placed on.

use strata_search::SearchError;

use crate::body_position::Position;

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

impl std::error::Error for EsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EsError::Search { source, .. } => Some(source),
            _ => None,
        }
    }
}
