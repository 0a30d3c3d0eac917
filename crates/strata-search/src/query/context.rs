//! What every query translator is handed: the [`QueryContext`] (mapping,
//! schema, analyzers, limits, memory account) and the nesting limit.
//!
//! A leaf of the query module: it names no translator. The queries that
//! hold queries (`bool`, `dis_max`, `nested`, `function_score`, ...)
//! recurse into the dispatcher in `query/mod.rs` through the
//! `ast::Translate` they are passed, so they do not depend on their
//! parent.

use tantivy::tokenizer::TokenizerManager;

use crate::breaker::MemoryAccount;
use crate::index_limits::IndexLimits;
use crate::mapping::{FieldMapping, Mappings};
use crate::store::SchemaFields;

/// The account of translations made without a request (alias filters,
/// filters inside aggregations): counts nothing.
static UNACCOUNTED: MemoryAccount = MemoryAccount::unaccounted();

/// What a translation needs: the mapping, the schema and the analyzers,
/// the index's limits and where expansions are reserved.
pub(crate) struct QueryContext<'a> {
    /// The index mapping.
    pub(crate) mappings: &'a Mappings,
    /// The shard schema.
    pub(crate) fields: &'a SchemaFields,
    /// The index's analyzers.
    pub(crate) tokenizers: &'a TokenizerManager,
    /// "now" for date math, epoch milliseconds.
    pub(crate) now_millis: i64,
    /// `index.max_terms_count` and the other per-index limits.
    pub(crate) limits: IndexLimits,
    /// Where the query's expansions (terms lists, automata) are reserved.
    pub(crate) memory: &'a MemoryAccount,
    /// The nested object whose documents the query runs on (inside a
    /// `nested` query or aggregation), `None` for root documents.
    pub(crate) nested_scope: Option<String>,
    /// The search's runtime fields (`None`: no search, or none).
    pub(crate) runtime: Option<&'a crate::script::fields::ScriptedFields>,
}

impl<'a> QueryContext<'a> {
    /// A context with the default limits that reserves nothing.
    pub(crate) fn new(
        mappings: &'a Mappings,
        fields: &'a SchemaFields,
        tokenizers: &'a TokenizerManager,
        now_millis: i64,
    ) -> QueryContext<'a> {
        QueryContext {
            mappings,
            fields,
            tokenizers,
            now_millis,
            limits: IndexLimits::default(),
            memory: &UNACCOUNTED,
            nested_scope: None,
            runtime: None,
        }
    }

    /// This context for the documents of the nested object at `path`.
    pub(crate) fn in_nested(&self, path: &str) -> QueryContext<'a> {
        QueryContext {
            mappings: self.mappings,
            fields: self.fields,
            tokenizers: self.tokenizers,
            now_millis: self.now_millis,
            limits: self.limits.clone(),
            memory: self.memory,
            nested_scope: Some(path.to_string()),
            runtime: self.runtime,
        }
    }

    /// The leaf mapping of `path`, if mapped.
    pub(crate) fn leaf(&self, path: &str) -> Option<&FieldMapping> {
        self.mappings.leaf(path)
    }
}

/// Deepest nesting of queries inside compound queries, the outermost
/// query being level 1: Elasticsearch's `indices.query.bool.max_nested_depth`
/// default. Translation and tantivy's weights and scorers recurse once per
/// level, so this bounds their stack use.
pub const MAX_NESTED_DEPTH: usize = 30;
