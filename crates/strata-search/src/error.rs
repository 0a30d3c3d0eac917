//! The crate's one error type. Every variant knows the Elasticsearch error
//! `type` it answers with and the HTTP status, so the front end maps errors
//! to wire replies in one place (`SearchError::es_type`, `SearchError::status`).

use thiserror::Error;

/// Everything an index operation can fail with.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The named index does not exist.
    #[error("no such index [{0}]")]
    IndexNotFound(String),
    /// An index of that name exists already.
    #[error("index [{0}] already exists")]
    IndexExists(String),
    /// The index name breaks Elasticsearch's naming rules.
    #[error("Invalid index name [{name}], {reason}")]
    InvalidIndexName {
        /// The rejected name.
        name: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// `create` of an existing id, or an `if_seq_no`/`if_primary_term` mismatch.
    #[error("[{id}]: version conflict, {detail}")]
    VersionConflict {
        /// The document id.
        id: String,
        /// What was expected and what was found.
        detail: String,
    },
    /// The document does not exist (update of a missing document).
    #[error("[{id}]: document missing")]
    DocumentMissing {
        /// The document id.
        id: String,
    },
    /// A mapping (or a value checked against one) is malformed.
    #[error("{0}")]
    MapperParsing(String),
    /// A document is not JSON or a value does not fit its mapping.
    #[error("{0}")]
    DocumentParsing(String),
    /// A new field in a document under `dynamic: strict`.
    #[error("{0}")]
    StrictDynamicMapping(String),
    /// A query or request body could not be understood.
    #[error("{0}")]
    Parsing(String),
    /// A query cannot run against a field (unmapped or of the wrong type).
    #[error("{0}")]
    QueryShard(String),
    /// A well-formed request asks for something invalid or unsupported.
    #[error("{0}")]
    IllegalArgument(String),
    /// The translog failed; nothing more is acknowledged.
    #[error("translog: {0}")]
    Translog(#[from] strata_log::LogError),
    /// The index's translog cannot write (the disk is full): writes are
    /// refused until it can, as Elasticsearch blocks writes at its
    /// flood-stage disk watermark and lifts the block once space is freed.
    #[error(
        "index [{index}] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage \
         watermark, index has read-only-allow-delete block];"
    )]
    DiskFull {
        /// The index written to.
        index: String,
    },
    /// tantivy failed.
    #[error("index engine: {0}")]
    Engine(tantivy::TantivyError),
    /// A file operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The alias name breaks Elasticsearch's naming rules or names an index.
    #[error("Invalid alias name [{name}]: {reason}")]
    InvalidAliasName {
        /// The rejected name.
        name: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// Aliases named explicitly that do not exist (comma-joined).
    #[error("aliases [{0}] missing")]
    AliasesNotFound(String),
    /// A named resource (template, rollover target) does not exist.
    #[error("{0}")]
    ResourceNotFound(String),
    /// A legacy index template that does not exist.
    #[error("index_template [{0}] missing")]
    IndexTemplateMissing(String),
    /// An index template that cannot be stored as given.
    #[error("index_template [{name}] invalid, cause [{reason}]")]
    InvalidIndexTemplate {
        /// The template's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A request Elasticsearch's validation refuses before running it.
    #[error("Validation Failed: 1: {0};")]
    ActionValidation(String),
    /// A circuit breaker refused the memory a request needed (429; the
    /// breakers are transient: retrying later may succeed).
    #[error("{reason}")]
    CircuitBreaking {
        /// The breaker's message (`[request] Data too large, ...`).
        reason: String,
        /// What the breaker would have held with the request's bytes.
        bytes_wanted: u64,
        /// The breaker's limit.
        bytes_limit: u64,
    },
    /// A cluster-level limit (`cluster.max_shards_per_node`) refuses
    /// the request: Elasticsearch's `validation_exception`.
    #[error("Validation Failed: 1: {0};")]
    Validation(String),
    /// A script failed to compile or run (`script_exception`).
    #[error("{0}")]
    Script(Box<strata_script::ScriptError>),
    /// An `_update` script failed: Elasticsearch's
    /// `illegal_argument_exception` "failed to execute script", caused by
    /// the `script_exception` (or the refusal of the script's `lang`).
    #[error("failed to execute script")]
    UpdateScript(Box<SearchError>),
    /// A request field whose value its parser refused
    /// (`x_content_parse_exception`, "[agg] failed to parse field [f]"),
    /// caused by the parser's own error when it has one.
    #[error("{reason}")]
    FieldParse {
        /// What failed to parse.
        reason: String,
        /// The parser's error.
        cause: Option<Box<SearchError>>,
    },
    /// Every shard searched failed (Elasticsearch's
    /// `search_phase_execution_exception`, "all shards failed"): the
    /// first shard's failure is the cause.
    #[error("all shards failed")]
    ShardsFailed {
        /// The phase the shards failed in (`query`, `fetch`).
        phase: &'static str,
        /// The first shard's failure.
        cause: Box<SearchError>,
    },
    /// A parse error of the query DSL (a `parsing_exception` or an
    /// `x_content_parse_exception`) with where in the query it happened:
    /// the keys and indices from the query object down to the offending
    /// query (`bool.must[1].range.ts`). Transparent: its message, type,
    /// status and cause are `error`'s; the path places it in the request.
    #[error("{error}")]
    InQuery {
        /// From the query object's kind down.
        path: Vec<QueryStep>,
        /// The error itself.
        error: Box<SearchError>,
    },
}

/// One step of the path of a [`SearchError::InQuery`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryStep {
    /// The value of an object's key.
    Key(String),
    /// An element of an array.
    Index(usize),
}

impl From<tantivy::TantivyError> for SearchError {
    /// tantivy's error, or the script failure a scoring query carried
    /// through it (`script::run::carry`).
    fn from(e: tantivy::TantivyError) -> SearchError {
        if let tantivy::TantivyError::IoError(io) = &e {
            if let Some(script) = io
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<strata_script::ScriptError>())
            {
                return SearchError::Script(Box::new(script.clone()));
            }
        }
        SearchError::Engine(e)
    }
}

/// Result alias of this crate.
pub type Result<T, E = SearchError> = std::result::Result<T, E>;

impl SearchError {
    /// The Elasticsearch error `type` of this error.
    pub fn es_type(&self) -> &'static str {
        match self {
            SearchError::IndexNotFound(_) => "index_not_found_exception",
            SearchError::IndexExists(_) => "resource_already_exists_exception",
            SearchError::InvalidIndexName { .. } => "invalid_index_name_exception",
            SearchError::VersionConflict { .. } => "version_conflict_engine_exception",
            SearchError::DocumentMissing { .. } => "document_missing_exception",
            SearchError::MapperParsing(_) => "mapper_parsing_exception",
            SearchError::DocumentParsing(_) => "document_parsing_exception",
            SearchError::StrictDynamicMapping(_) => "strict_dynamic_mapping_exception",
            SearchError::Parsing(_) => "parsing_exception",
            SearchError::QueryShard(_) => "query_shard_exception",
            SearchError::IllegalArgument(_) => "illegal_argument_exception",
            // tantivy's argument errors come from the request (a query
            // expanding past its clause limit, a field that cannot serve).
            SearchError::Engine(tantivy::TantivyError::InvalidArgument(_)) => {
                "illegal_argument_exception"
            }
            SearchError::Translog(_) | SearchError::Engine(_) | SearchError::Io { .. } => {
                "exception"
            }
            SearchError::DiskFull { .. } => "cluster_block_exception",
            SearchError::InvalidAliasName { .. } => "invalid_alias_name_exception",
            SearchError::AliasesNotFound(_) => "aliases_not_found_exception",
            SearchError::ResourceNotFound(_) => "resource_not_found_exception",
            SearchError::IndexTemplateMissing(_) => "index_template_missing_exception",
            SearchError::InvalidIndexTemplate { .. } => "invalid_index_template_exception",
            SearchError::ActionValidation(_) => "action_request_validation_exception",
            SearchError::CircuitBreaking { .. } => "circuit_breaking_exception",
            SearchError::Validation(_) => "validation_exception",
            SearchError::Script(_) => "script_exception",
            SearchError::UpdateScript(_) => "illegal_argument_exception",
            SearchError::FieldParse { .. } => "x_content_parse_exception",
            SearchError::ShardsFailed { .. } => "search_phase_execution_exception",
            SearchError::InQuery { error, .. } => error.es_type(),
        }
    }

    /// The HTTP status Elasticsearch answers this error with.
    pub fn status(&self) -> u16 {
        match self {
            SearchError::IndexNotFound(_) | SearchError::DocumentMissing { .. } => 404,
            SearchError::VersionConflict { .. } => 409,
            SearchError::IndexExists(_)
            | SearchError::InvalidIndexName { .. }
            | SearchError::MapperParsing(_)
            | SearchError::DocumentParsing(_)
            | SearchError::StrictDynamicMapping(_)
            | SearchError::Parsing(_)
            | SearchError::QueryShard(_)
            | SearchError::IllegalArgument(_)
            | SearchError::Engine(tantivy::TantivyError::InvalidArgument(_)) => 400,
            SearchError::Translog(_) | SearchError::Engine(_) | SearchError::Io { .. } => 500,
            SearchError::DiskFull { .. } => 429,
            SearchError::InvalidAliasName { .. }
            | SearchError::InvalidIndexTemplate { .. }
            | SearchError::ActionValidation(_)
            | SearchError::Validation(_)
            | SearchError::Script(_)
            | SearchError::UpdateScript(_)
            | SearchError::FieldParse { .. } => 400,
            SearchError::CircuitBreaking { .. } => 429,
            SearchError::AliasesNotFound(_)
            | SearchError::ResourceNotFound(_)
            | SearchError::IndexTemplateMissing(_) => 404,
            SearchError::ShardsFailed { cause, .. } => cause.status(),
            SearchError::InQuery { error, .. } => error.status(),
        }
    }

    /// The index the error is about, if any (Elasticsearch reports it).
    pub fn index(&self) -> Option<&str> {
        match self {
            SearchError::IndexNotFound(name) | SearchError::IndexExists(name) => Some(name),
            SearchError::InvalidIndexName { name, .. } => Some(name),
            _ => None,
        }
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> SearchError {
        SearchError::Io {
            context: context.into(),
            source,
        }
    }

    pub(crate) fn parsing(msg: impl Into<String>) -> SearchError {
        SearchError::Parsing(msg.into())
    }

    pub(crate) fn illegal(msg: impl Into<String>) -> SearchError {
        SearchError::IllegalArgument(msg.into())
    }

    /// Elasticsearch's "[owner] failed to parse field [field]", caused by
    /// `cause`.
    pub(crate) fn field_parse(owner: &str, field: &str, cause: SearchError) -> SearchError {
        SearchError::FieldParse {
            reason: format!("[{owner}] failed to parse field [{field}]"),
            cause: Some(Box::new(cause)),
        }
    }

    /// This error found at `step` of a query, before the steps it already
    /// carries. Only the DSL's parse errors (`parsing_exception`,
    /// `x_content_parse_exception`) carry a path; others stay as they are.
    pub(crate) fn in_query(self, step: QueryStep) -> SearchError {
        match self {
            SearchError::InQuery { mut path, error } => {
                path.insert(0, step);
                SearchError::InQuery { path, error }
            }
            e @ (SearchError::Parsing(_) | SearchError::FieldParse { .. }) => {
                SearchError::InQuery {
                    path: vec![step],
                    error: Box::new(e),
                }
            }
            other => other,
        }
    }

    /// Where in the query a DSL parse error happened (see
    /// [`SearchError::InQuery`]).
    pub fn query_path(&self) -> Option<&[QueryStep]> {
        match self {
            SearchError::InQuery { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The error that caused this one, as Elasticsearch reports it in
    /// `caused_by`.
    pub fn cause(&self) -> Option<&SearchError> {
        match self {
            SearchError::UpdateScript(cause) => Some(cause),
            SearchError::FieldParse { cause, .. } => cause.as_deref(),
            SearchError::ShardsFailed { cause, .. } => Some(cause),
            SearchError::InQuery { error, .. } => error.cause(),
            _ => None,
        }
    }
}
