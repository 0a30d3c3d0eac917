//! What the HTTP crate's `_validate/query`, `_explain` and `_cat`/`_stats`
//! handlers read of an index without searching it: its query translated,
//! one document's score explained, the shards' searchers.

use serde_json::Value;
use tantivy::query::{Explanation, Query};
use tantivy::Searcher;

use super::handle::SearchIndex;
use crate::error::Result;
use crate::query::{self, ParsedQuery, QueryContext};

impl SearchIndex {
    /// `query` translated against the index's mapping, schema and
    /// analyzers, with "now" at `now_millis` (epoch milliseconds), the
    /// default limits and no memory accounting. All shards share the
    /// schema and analyzers, so the first shard's serve (an index has at
    /// least one: `number_of_shards` is 1 to 1024).
    pub fn build_query(&self, query: &Value, now_millis: i64) -> Result<Box<dyn Query>> {
        let mappings = self.mappings();
        let shard = &self.shards[0];
        let ctx = QueryContext::new(
            &mappings,
            shard.fields(),
            shard.tantivy_index().tokenizers(),
            now_millis,
        );
        query::build(&ctx, &ParsedQuery::parse(query.clone())?)
    }

    /// How `query` scores the live document `id` as of the last refresh:
    /// `None` when there is no such document, `Some(Err(_))` when the
    /// query does not match it (tantivy's explanation of a non-match is an
    /// error).
    pub fn explain(
        &self,
        id: &str,
        query: &dyn Query,
    ) -> Result<Option<tantivy::Result<Explanation>>> {
        let shard = self.shard_for(id);
        let searcher = shard.searcher();
        Ok(shard
            .find(&searcher, id)?
            .map(|addr| query.explain(&searcher, addr)))
    }

    /// A searcher over each shard's last refresh, in shard order.
    pub fn searchers(&self) -> Vec<Searcher> {
        self.shards.iter().map(|s| s.searcher()).collect()
    }
}
