//! A small, deterministic set of access-log documents for the client
//! tests, and the answers to the test's queries and aggregations computed
//! here, in plain Rust over the same documents (never by the server), so
//! each reply can be checked against an independent result.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

/// The first document's hour (epoch milliseconds, a whole hour).
pub const START_MS: i64 = 472_222 * HOUR_MS;
pub const HOUR_MS: i64 = 3_600_000;
/// How many documents [`documents`] makes.
pub const COUNT: usize = 60;

/// One access-log line.
#[derive(Clone, Debug)]
pub struct AccessDoc {
    pub id: String,
    pub timestamp_ms: i64,
    pub method: &'static str,
    pub status: i64,
    pub bytes: i64,
    /// `None`: the document has no `user` field.
    pub user: Option<String>,
    pub message: String,
}

impl AccessDoc {
    /// The `_source` sent to the server.
    pub fn source(&self) -> Value {
        let mut source = json!({
            "@timestamp": self.timestamp_ms,
            "method": self.method,
            "status": self.status,
            "bytes": self.bytes,
            "message": self.message,
        });
        if let Some(user) = &self.user {
            source["user"] = json!(user);
        }
        source
    }
}

/// The documents: seven minutes apart, methods with distinct frequencies,
/// every fifth one without a user.
pub fn documents() -> Vec<AccessDoc> {
    const STATUSES: [i64; 7] = [200, 200, 201, 404, 500, 200, 301];
    (0..COUNT)
        .map(|i| {
            let method = match i % 15 {
                0..=7 => "GET",
                8..=11 => "POST",
                12 | 13 => "PUT",
                _ => "DELETE",
            };
            let status = STATUSES[(i * 37 + 11) % STATUSES.len()];
            let outcome = match status {
                500.. => "server error",
                400.. => "client error not found",
                _ => "ok",
            };
            AccessDoc {
                id: format!("doc-{i}"),
                timestamp_ms: START_MS + i as i64 * 7 * 60_000,
                method,
                status,
                bytes: (i as i64 * 7919) % 5000 + 100,
                user: (i % 5 != 0).then(|| format!("user{}", i % 9)),
                message: format!("{method} /path/{} {outcome}", i % 4),
            }
        })
        .collect()
}

/// The ids of the documents `keep` selects.
pub fn ids(docs: &[AccessDoc], keep: impl Fn(&AccessDoc) -> bool) -> BTreeSet<String> {
    docs.iter()
        .filter(|d| keep(d))
        .map(|d| d.id.clone())
        .collect()
}

/// The ids of a search reply's hits.
pub fn hit_ids(reply: &Value) -> BTreeSet<String> {
    reply["hits"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["_id"].as_str().expect("_id").to_string())
        .collect()
}

/// A `terms` aggregation's buckets: count descending, then key ascending,
/// at most `size`.
pub fn terms<K: Ord + Clone>(keys: impl Iterator<Item = K>, size: usize) -> Vec<(K, u64)> {
    let mut counts: BTreeMap<K, u64> = BTreeMap::new();
    for key in keys {
        *counts.entry(key).or_default() += 1;
    }
    let mut buckets: Vec<(K, u64)> = counts.into_iter().collect();
    buckets.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    buckets.truncate(size);
    buckets
}

/// A `date_histogram` with `fixed_interval` `interval_ms` and the default
/// `min_doc_count` 0: every bucket from the first to the last non-empty one.
pub fn histogram(times: impl Iterator<Item = i64>, interval_ms: i64) -> Vec<(i64, u64)> {
    let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
    for t in times {
        *counts
            .entry(t.div_euclid(interval_ms) * interval_ms)
            .or_default() += 1;
    }
    let (Some(&first), Some(&last)) = (counts.keys().next(), counts.keys().last()) else {
        return Vec::new();
    };
    (0..=(last - first) / interval_ms)
        .map(|step| {
            let key = first + step * interval_ms;
            (key, counts.get(&key).copied().unwrap_or(0))
        })
        .collect()
}

/// `stats` over `values`: (count, min, max, avg, sum).
pub fn stats(values: &[i64]) -> (u64, f64, f64, f64, f64) {
    let sum: i64 = values.iter().sum();
    let min = *values.iter().min().expect("values");
    let max = *values.iter().max().expect("values");
    let count = values.len() as u64;
    (
        count,
        min as f64,
        max as f64,
        sum as f64 / count as f64,
        sum as f64,
    )
}

/// Asserts two floats agree to a relative 1e-9.
pub fn assert_close(got: &Value, want: f64, what: &str) {
    let got = got
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {got}"));
    assert!(
        (got - want).abs() <= want.abs() * 1e-9 + 1e-9,
        "{what}: got {got}, want {want}"
    );
}
