//! A query of a request translated for one index (each has its own
//! mapping and limits), its expansions reserved on the request's memory.

use tantivy::query::Query;

use crate::breaker::MemoryAccount;
use crate::error::Result;
use crate::index::SearchIndex;
use crate::query::{build, ParsedQuery, QueryContext};

pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `query` for `index`, reserving nothing (the queries of aggregations,
/// parsed with the request's tree).
pub(super) fn query_for(index: &SearchIndex, query: &ParsedQuery) -> Result<Box<dyn Query>> {
    in_context(index, &MemoryAccount::unaccounted(), None, None, |ctx| {
        build(ctx, query)
    })
}

/// `query` for `index` as found on the documents of the nested object
/// `nested_scope` (`None`: root documents), without narrowing it to them.
pub(super) fn query_at(
    index: &SearchIndex,
    query: &ParsedQuery,
    memory: &MemoryAccount,
    nested_scope: Option<&str>,
    runtime: Option<&crate::script::fields::ScriptedFields>,
) -> Result<Box<dyn Query>> {
    in_context(index, memory, nested_scope, runtime, |ctx| {
        build(ctx, query)
    })
}

/// `translate` in the query context of `index` under its limits, the
/// expansions reserved on `memory`.
fn in_context(
    index: &SearchIndex,
    memory: &MemoryAccount,
    nested_scope: Option<&str>,
    runtime: Option<&crate::script::fields::ScriptedFields>,
    translate: impl FnOnce(&QueryContext<'_>) -> Result<Box<dyn Query>>,
) -> Result<Box<dyn Query>> {
    let mappings = index.mappings();
    let shard = &index.shards()[0];
    let mut ctx = QueryContext::new(
        &mappings,
        shard.fields(),
        shard.tantivy_index().tokenizers(),
        now_millis(),
    );
    ctx.limits = index.limits();
    ctx.memory = memory;
    ctx.nested_scope = nested_scope.map(str::to_string);
    ctx.runtime = runtime;
    translate(&ctx)
}
