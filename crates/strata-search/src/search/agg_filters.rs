//! `filter` and `filters` below other aggregations, on tantivy's filter
//! aggregation: each Elasticsearch query travels in the request as an
//! [`EsQuery`] builder (the query, the index mapping and "now") that
//! tantivy asks per segment for the tantivy query.
//!
//! The queries were checked and parsed with the request's tree
//! (`FilterParams`, `FiltersParams`); tantivy's request carries their
//! JSON (it is serialized), so the builder parses it again, once, when
//! tantivy first asks it for a segment's query, and keeps the tree for
//! the other segments.
//!
//! `filters` becomes one tantivy `filter` per named (or listed) filter,
//! named `<name>\u{1f}<key>`, each with the same sub-aggregations;
//! [`reshape_filters`] gathers them back into Elasticsearch's `buckets`
//! (an object for named filters, an array for listed ones).
//! `other_bucket` is not supported (the tree's parse refuses it).

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tantivy::aggregation::bucket::QueryBuilder;
use tantivy::query::Query;
use tantivy::schema::Schema;
use tantivy::tokenizer::TokenizerManager;
use tantivy::TantivyError;

use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::query::{build, ParsedQuery, QueryContext};
use crate::store::SchemaFields;

/// Separates a `filters` aggregation's name from a filter's key.
pub const KEY_SEPARATOR: char = '\u{1f}';

/// An Elasticsearch query inside a tantivy filter aggregation: the
/// query's and the mapping's JSON (what the serialized request carries),
/// parsed by the first segment that builds the query and shared with the
/// others (tantivy's clones of the builder share it too).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EsQuery {
    query: Value,
    mappings: Value,
    now_millis: i64,
    #[serde(skip)]
    parsed: Arc<OnceLock<(Mappings, ParsedQuery)>>,
}

impl EsQuery {
    /// The mapping and the query, parsed.
    fn parsed(&self) -> Result<&(Mappings, ParsedQuery)> {
        if let Some(parsed) = self.parsed.get() {
            return Ok(parsed);
        }
        let parsed = (
            Mappings::parse(&self.mappings)?,
            ParsedQuery::parse(self.query.clone())?,
        );
        // A segment built at the same time may have set it first: the
        // same values.
        Ok(self.parsed.get_or_init(|| parsed))
    }
}

#[typetag::serde(name = "strata_es_query")]
impl QueryBuilder for EsQuery {
    fn build_query(
        &self,
        schema: &Schema,
        tokenizers: &TokenizerManager,
    ) -> tantivy::Result<Box<dyn Query>> {
        let invalid = |e: SearchError| TantivyError::InvalidArgument(e.to_string());
        let (mappings, query) = self.parsed().map_err(invalid)?;
        let fields = SchemaFields::from_schema(schema.clone())?;
        let ctx = QueryContext::new(mappings, &fields, tokenizers, self.now_millis);
        build(&ctx, query).map_err(invalid)
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{filter_request, EsQuery};
    use crate::mapping::Mappings;

    /// The builder as tantivy gets it: deserialized from the request.
    fn builder(query: serde_json::Value) -> EsQuery {
        let mappings = Mappings::parse(&json!({"properties": {"n": {"type": "long"}}})).unwrap();
        let request = filter_request(&mappings, &query, 0);
        serde_json::from_value(request["filter"].clone()).unwrap()
    }

    #[test]
    fn the_query_is_parsed_once_and_shared_with_clones() {
        let q = builder(json!({"term": {"n": 1}}));
        let copy = q.clone();
        let first = q.parsed().unwrap();
        assert_eq!(first.1.json(), &json!({"term": {"n": 1}}));
        assert!(first.0.leaf("n").is_some());
        assert!(std::ptr::eq(first, copy.parsed().unwrap()));
        assert!(builder(json!({"nope": {}})).parsed().is_err());
    }
}
