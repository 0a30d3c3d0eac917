//! `ip_range`: buckets of addresses of an `ip` field, rewritten to the
//! machinery `filters` uses. Each range becomes a query over the field's
//! column (`range` with `gte`/`lt` as addresses, which `IpQuery` answers;
//! `exists` for a range unbounded at both ends; with `missing`, also the
//! documents without the field when the missing address lies inside),
//! then one tantivy `filter` aggregation named `<name>\u{1f}<i>` with the
//! sub-aggregations beneath. A document counts once in every range that
//! holds one of its addresses, so ranges may overlap.
//! [`IpRangeAgg::reshape`] gathers the filters back into Elasticsearch's
//! buckets: `key` (the given one, a mask's text, or `from-to` with `*` for
//! an unbounded end), `from`/`to` shown as addresses (IPv4-mapped ones as
//! IPv4) and left out when unbounded, `doc_count`, the sub-aggregations;
//! an array, or with `keyed` an object by key (the key then not repeated
//! inside). The parameters were typed and the ranges ordered with the
//! request (`IpRangeParams`).
//!
//! Bounded as the other buckets are: more ranges than
//! `search.max_buckets` are refused before any search (every range is a
//! bucket of the reply), and the filters run under the request's memory
//! account as `filters`' do.

use serde_json::{json, Map, Value};

use super::agg_filters::KEY_SEPARATOR;
use super::agg_tree::IpRangeParams;
use super::bucket_limit;
use crate::error::{Result, SearchError};
use crate::mapping::{FieldType, Mappings};
use crate::query::ip_range::format_ip;
use crate::query::ParsedQuery;

/// One range's reply fields and the query selecting its documents.
#[derive(Debug, Clone)]
struct Bucket {
    key: String,
    from: Option<String>,
    to: Option<String>,
    query: ParsedQuery,
}

/// An `ip_range` checked against the mapping, its queries built.
#[derive(Debug, Clone)]
pub struct IpRangeAgg {
    buckets: Vec<Bucket>,
    keyed: bool,
}

impl IpRangeAgg {
    /// The `ip_range` aggregation of parameters `params` over an
    /// index of mapping `mappings`: refused on a field of another type
    /// (an unmapped one has no addresses: every bucket is empty, unless
    /// `missing` fills it) or with more ranges than `search.max_buckets`.
    pub fn new(params: &IpRangeParams, mappings: &Mappings) -> Result<IpRangeAgg> {
        let field = params.field.as_str();
        if let Some(leaf) = mappings.leaf(field).filter(|l| l.ty != FieldType::Ip) {
            return Err(SearchError::illegal(format!(
                "Field [{field}] of type [{}] is not supported for aggregation [ip_range]",
                leaf.ty.name()
            )));
        }
        if params.ranges.len() > bucket_limit::max_buckets() {
            return Err(bucket_limit::too_many(Some(params.ranges.len())));
        }
        let mut buckets = Vec::with_capacity(params.ranges.len());
        for r in &params.ranges {
            let (from, to) = (r.from.map(format_ip), r.to.map(format_ip));
            let key = r.key.clone().unwrap_or_else(|| {
                format!(
                    "{}-{}",
                    from.as_deref().unwrap_or("*"),
                    to.as_deref().unwrap_or("*")
                )
            });
            let missing_inside = params
                .missing
                .is_some_and(|m| r.from.is_none_or(|f| f <= m) && r.to.is_none_or(|t| m < t));
            let query = range_query(field, from.as_deref(), to.as_deref(), missing_inside);
            buckets.push(Bucket {
                key,
                from,
                to,
                query: ParsedQuery::parse(query)?,
            });
        }
        Ok(IpRangeAgg {
            buckets,
            keyed: params.keyed,
        })
    }

    /// The queries of the ranges, in bucket order: the i-th is the filter
    /// `<name>\u{1f}<i>`.
    pub fn queries(&self) -> impl Iterator<Item = &ParsedQuery> {
        self.buckets.iter().map(|b| &b.query)
    }

    /// Replaces the filters of `name` in `result` by Elasticsearch's
    /// `{"buckets": ...}`; `each` fixes the i-th bucket's sub-aggregations.
    pub fn reshape(
        &self,
        result: &mut Value,
        name: &str,
        mut each: impl FnMut(usize, &mut Value) -> Result<()>,
    ) -> Result<()> {
        let Some(obj) = result.as_object_mut() else {
            return Ok(());
        };
        let mut listed = Vec::with_capacity(if self.keyed { 0 } else { self.buckets.len() });
        let mut keyed = Map::new();
        for (i, b) in self.buckets.iter().enumerate() {
            let mut filtered = obj
                .remove(&format!("{name}{KEY_SEPARATOR}{i}"))
                .unwrap_or_else(|| json!({"doc_count": 0}));
            each(i, &mut filtered)?;
            // Elasticsearch's field order: key, from, to, doc_count, subs.
            let mut bucket = Map::new();
            if !self.keyed {
                bucket.insert("key".into(), json!(b.key));
            }
            if let Some(f) = &b.from {
                bucket.insert("from".into(), json!(f));
            }
            if let Some(t) = &b.to {
                bucket.insert("to".into(), json!(t));
            }
            let mut rest = match filtered {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            let count = rest.remove("doc_count").unwrap_or(json!(0));
            bucket.insert("doc_count".into(), count);
            bucket.extend(rest);
            if self.keyed {
                keyed.insert(b.key.clone(), Value::Object(bucket));
            } else {
                listed.push(Value::Object(bucket));
            }
        }
        let buckets = if self.keyed {
            Value::Object(keyed)
        } else {
            Value::Array(listed)
        };
        obj.insert(name.to_string(), json!({ "buckets": buckets }));
        Ok(())
    }
}

/// The documents of `field` with an address in [`from`, `to`) (`None`:
/// unbounded), and those without one when `missing_inside`.
fn range_query(field: &str, from: Option<&str>, to: Option<&str>, missing_inside: bool) -> Value {
    let held = match (from, to) {
        (None, None) => json!({"exists": {"field": field}}),
        _ => {
            let mut bounds = Map::new();
            if let Some(f) = from {
                bounds.insert("gte".into(), json!(f));
            }
            if let Some(t) = to {
                bounds.insert("lt".into(), json!(t));
            }
            json!({"range": { field: bounds }})
        }
    };
    if !missing_inside {
        return held;
    }
    json!({"bool": {"should": [
        held,
        {"bool": {"must_not": [{"exists": {"field": field}}]}}
    ], "minimum_should_match": 1}})
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::range_query;

    #[test]
    fn a_range_is_an_address_range_and_missing_adds_the_documents_without_one() {
        assert_eq!(
            range_query("a", Some("10.0.0.0"), None, false),
            json!({"range": {"a": {"gte": "10.0.0.0"}}})
        );
        assert_eq!(
            range_query("a", None, None, false),
            json!({"exists": {"field": "a"}})
        );
        let with_missing = range_query("a", None, Some("::1"), true);
        assert_eq!(
            with_missing["bool"]["should"][1],
            json!({"bool": {"must_not": [{"exists": {"field": "a"}}]}})
        );
    }
}
