//! Reading the server's replies: what a `_bulk`, `_msearch`, `_count`, `_stats` or
//! `_cat/segments` reply says, and which replies count as errors.
//!
//! A reply counts as failed when its status is not 2xx, when a bulk reply says
//! `errors: true` (each failed item counts) or lists fewer items than documents sent, and
//! when an `_msearch` reply carries an `error` for one of its searches. Nothing here panics
//! on a malformed reply: it becomes an error message instead.

use serde_json::Value;

use super::http::{error_summary, snippet, Reply};

/// What one `_bulk` request achieved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkOutcome {
    /// Documents the server acknowledged as indexed.
    pub indexed: u64,
    /// Documents not indexed (failed items, or all of them when the request failed).
    pub failed: u64,
    /// The first failure, quoted.
    pub first_error: Option<String>,
}

impl BulkOutcome {
    /// The whole request failed: no document counts as indexed.
    pub fn failed(docs: u64, why: String) -> Self {
        Self {
            indexed: 0,
            failed: docs,
            first_error: Some(why),
        }
    }
}

/// Reads the reply to a `_bulk` request of `docs` documents.
pub fn bulk_outcome(reply: &Reply, docs: u64) -> BulkOutcome {
    if !reply.is_success() {
        return BulkOutcome::failed(docs, reply.describe());
    }
    let value = match reply.json() {
        Ok(v) => v,
        Err(e) => return BulkOutcome::failed(docs, format!("{e}: {}", snippet(&reply.body))),
    };
    let Some(items) = value["items"].as_array() else {
        return BulkOutcome::failed(docs, "bulk reply without items".into());
    };
    let mut failed = 0u64;
    let mut first_error = None;
    if value["errors"].as_bool() != Some(false) {
        for item in items {
            // Each item is {"<action>": {"status": .., "error": ..}}.
            let Some(result) = item.as_object().and_then(|m| m.values().next()) else {
                continue;
            };
            let status = result["status"].as_u64().unwrap_or(0);
            if result.get("error").is_some() || !(200..300).contains(&status) {
                failed += 1;
                if first_error.is_none() {
                    let why = error_summary(&result["error"]).unwrap_or_default();
                    first_error = Some(format!("bulk item status {status}: {why}"));
                }
            }
        }
    }
    // Items beyond the documents sent are ignored; missing items count as failed.
    let answered = (items.len() as u64).min(docs);
    let indexed = answered - failed.min(answered);
    if answered < docs {
        first_error.get_or_insert_with(|| {
            format!("bulk reply has {} items for {docs} documents", items.len())
        });
    }
    BulkOutcome {
        indexed,
        failed: docs - indexed,
        first_error,
    }
}

/// The errors in the reply to an `_msearch` of `searches` searches: how many failed and the
/// first failure.
pub fn msearch_errors(reply: &Reply, searches: usize) -> (u64, Option<String>) {
    if !reply.is_success() {
        return (searches as u64, Some(reply.describe()));
    }
    let value = match reply.json() {
        Ok(v) => v,
        Err(e) => return (searches as u64, Some(e)),
    };
    let Some(responses) = value["responses"].as_array() else {
        return (
            searches as u64,
            Some("msearch reply without responses".into()),
        );
    };
    let mut failed = 0;
    let mut first = None;
    for (at, response) in responses.iter().enumerate() {
        let status = response["status"].as_u64().unwrap_or(200);
        if response.get("error").is_some() || !(200..300).contains(&status) {
            failed += 1;
            let why = error_summary(&response["error"]).unwrap_or_default();
            first.get_or_insert_with(|| {
                format!("search {at} of the msearch, status {status}: {why}")
            });
        }
    }
    if responses.len() < searches {
        failed += (searches - responses.len()) as u64;
        first.get_or_insert_with(|| {
            format!(
                "msearch reply has {} responses for {searches} searches",
                responses.len()
            )
        });
    }
    (failed, first)
}

/// The `count` of a `_count` reply.
pub fn count(reply: &Reply) -> Result<u64, String> {
    if !reply.is_success() {
        return Err(reply.describe());
    }
    reply.json()?["count"]
        .as_u64()
        .ok_or_else(|| format!("no count in {}", snippet(&reply.body)))
}

/// Store size and segment count from an `/<index>/_stats` reply, where present.
pub fn store_and_segments(stats: &Value, index: &str) -> (Option<u64>, Option<u64>) {
    let totals = [
        &stats["indices"][index]["primaries"],
        &stats["_all"]["primaries"],
        &stats["indices"][index]["total"],
        &stats["_all"]["total"],
    ];
    let find = |path: &str| {
        totals
            .iter()
            .find_map(|t| t.pointer(path).and_then(Value::as_u64))
    };
    (find("/store/size_in_bytes"), find("/segments/count"))
}

/// The number of segments listed by `_cat/segments?format=json`.
pub fn cat_segments(reply: &Value) -> Option<u64> {
    reply.as_array().map(|rows| rows.len() as u64)
}

/// The `value` of a single-value aggregation named `name` (e.g. `min` of `@timestamp`).
pub fn agg_value(search: &Value, name: &str) -> Option<f64> {
    search["aggregations"][name]["value"].as_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use serde_json::json;

    fn reply(status: u16, body: Value) -> Reply {
        Reply {
            status,
            body: Bytes::from(body.to_string()),
        }
    }

    fn item(status: u64, error: Option<&str>) -> Value {
        let mut result = json!({ "_index": "elasticlogs", "status": status });
        if let Some(kind) = error {
            result["error"] = json!({ "type": kind, "reason": "boom" });
        }
        json!({ "index": result })
    }

    #[test]
    fn bulk_items_are_counted() {
        let ok = reply(
            200,
            json!({ "errors": false, "items": [item(201, None), item(201, None)] }),
        );
        assert_eq!(
            bulk_outcome(&ok, 2),
            BulkOutcome {
                indexed: 2,
                failed: 0,
                first_error: None
            }
        );
        let mixed = json!({ "errors": true, "items": [item(201, None), item(429, Some("es_rejected_execution_exception")), item(400, Some("mapper_parsing_exception"))] });
        let outcome = bulk_outcome(&reply(200, mixed), 3);
        assert_eq!((outcome.indexed, outcome.failed), (1, 2));
        let first = outcome.first_error.unwrap();
        assert!(
            first.contains("429") && first.contains("es_rejected_execution_exception"),
            "{first}"
        );
        let short = bulk_outcome(
            &reply(200, json!({ "errors": false, "items": [item(201, None)] })),
            3,
        );
        assert_eq!((short.indexed, short.failed), (1, 2));
        let refused = reply(
            429,
            json!({ "error": { "type": "rejected", "reason": "busy" }, "status": 429 }),
        );
        let outcome = bulk_outcome(&refused, 5);
        assert_eq!((outcome.indexed, outcome.failed), (0, 5));
        assert_eq!(
            outcome.first_error.as_deref(),
            Some("HTTP 429: rejected: busy")
        );
        let garbage = Reply {
            status: 200,
            body: Bytes::from_static(b"<html>"),
        };
        assert_eq!(bulk_outcome(&garbage, 4).failed, 4);
    }

    #[test]
    fn msearch_errors_are_counted_per_search() {
        let body = json!({ "responses": [
            { "status": 200, "hits": {} },
            { "status": 400, "error": { "type": "parsing_exception", "reason": "no [geohash_grid]" } },
        ]});
        let (failed, first) = msearch_errors(&reply(200, body), 3);
        assert_eq!(failed, 2);
        assert!(first.unwrap().contains("parsing_exception"));
        assert_eq!(
            msearch_errors(&reply(200, json!({ "responses": [{}] })), 1),
            (0, None)
        );
        assert_eq!(msearch_errors(&reply(500, json!({})), 7).0, 7);
    }

    #[test]
    fn counts_stats_and_aggregations_are_read() {
        assert_eq!(count(&reply(200, json!({ "count": 12 }))), Ok(12));
        assert!(count(&reply(404, json!({ "error": "no index" }))).is_err());
        assert!(count(&reply(200, json!({ "total": 1 }))).is_err());
        let stats = json!({ "_all": { "primaries": { "store": { "size_in_bytes": 4096 }, "segments": { "count": 7 } } } });
        assert_eq!(store_and_segments(&stats, "x"), (Some(4096), Some(7)));
        assert_eq!(store_and_segments(&json!({}), "x"), (None, None));
        assert_eq!(cat_segments(&json!([{}, {}])), Some(2));
        let search = json!({ "aggregations": { "min": { "value": 1.5e12 } } });
        assert_eq!(agg_value(&search, "min"), Some(1.5e12));
    }
}
