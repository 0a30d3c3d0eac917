//! `filter` and `filters` below other aggregations, on tantivy's filter
//! aggregation: each Elasticsearch query travels in the request as an
//! [`EsQuery`] builder (the query, the index mapping and "now") that
//! tantivy asks per segment for the tantivy query.
//!
//! The queries were checked and parsed with the request's tree
//! (`FilterParams`, `FiltersParams`); tantivy's request carries their
//! JSON (it is serialized), so the builder parses it again when tantivy
//! asks it for a segment's query.
//!
//! `filters` becomes one tantivy `filter` per named (or listed) filter,
//! named `<name>\u{1f}<key>`, each with the same sub-aggregations;
//! [`reshape_filters`] gathers them back into Elasticsearch's `buckets`
//! (an object for named filters, an array for listed ones).
//! `other_bucket` is not supported (the tree's parse refuses it).

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tantivy::aggregation::bucket::QueryBuilder;
use tantivy::query::Query;
use tantivy::schema::Schema;
use tantivy::tokenizer::TokenizerManager;
use tantivy::TantivyError;

use crate::error::SearchError;
use crate::mapping::Mappings;
use crate::query::{build_json, QueryContext};
use crate::store::SchemaFields;

/// Separates a `filters` aggregation's name from a filter's key.
pub const KEY_SEPARATOR: char = '\u{1f}';

/// An Elasticsearch query inside a tantivy filter aggregation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EsQuery {
    query: Value,
    mappings: Value,
    now_millis: i64,
}

#[typetag::serde(name = "strata_es_query")]
impl QueryBuilder for EsQuery {
    fn build_query(
        &self,
        schema: &Schema,
        tokenizers: &TokenizerManager,
    ) -> tantivy::Result<Box<dyn Query>> {
        let invalid = |e: SearchError| TantivyError::InvalidArgument(e.to_string());
        let mappings = Mappings::parse(&self.mappings).map_err(invalid)?;
        let fields = SchemaFields::from_schema(schema.clone())?;
        let ctx = QueryContext::new(&mappings, &fields, tokenizers, self.now_millis);
        build_json(&ctx, &self.query).map_err(invalid)
    }

    fn box_clone(&self) -> Box<dyn QueryBuilder> {
        Box::new(self.clone())
    }
}

/// The tantivy `filter` request for `query`.
pub fn filter_request(mappings: &Mappings, query: &Value, now_millis: i64) -> Value {
    json!({"filter": {
        "type": "strata_es_query",
        "query": query,
        "mappings": mappings.to_json(),
        "now_millis": now_millis
    }})
}

/// Replaces the expanded filters of `name` in `result` by Elasticsearch's
/// `{"buckets": ...}`; `each` fixes every bucket's sub-aggregations.
pub fn reshape_filters(
    result: &mut Value,
    name: &str,
    keys: &[String],
    named: bool,
    mut each: impl FnMut(&mut Value),
) {
    let Some(obj) = result.as_object_mut() else {
        return;
    };
    let mut named_out = Map::new();
    let mut listed_out = Vec::new();
    for key in keys {
        let mut bucket = obj
            .remove(&format!("{name}{KEY_SEPARATOR}{key}"))
            .unwrap_or_else(|| json!({"doc_count": 0}));
        each(&mut bucket);
        if named {
            named_out.insert(key.clone(), bucket);
        } else {
            listed_out.push(bucket);
        }
    }
    let buckets = if named {
        Value::Object(named_out)
    } else {
        Value::Array(listed_out)
    };
    obj.insert(name.to_string(), json!({ "buckets": buckets }));
}
