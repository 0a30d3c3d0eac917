//! `composite`: buckets of every combination of its sources' keys
//! (`terms`, `histogram`, `date_histogram`), in the order of the sources
//! (each `asc` or `desc`, `null` keys of `missing_bucket` first or last),
//! one page of `size` at a time after the `after` key; `after_key` is the
//! last bucket's key, which the next page passes as `after`.
//!
//! A part (segment, shard) keeps only its `size` smallest keys above
//! `after`: any key of the final page is among the smallest of every part
//! that holds it, so counts are exact and memory is bounded by the page.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::env::ScanEnv;
use super::params::{check_keys, count_param, field_param};
use super::values::{Key, Num, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::bucket_limit::max_buckets;
use crate::search::date_histogram::DateHistogram;

/// Most key combinations one document may add (a document with many
/// values in several sources multiplies them).
const MAX_COMBINATIONS: usize = 10_000;

/// How a source turns values into keys.
enum Grouping {
    Terms,
    Histogram(f64),
    DateHistogram(Box<DateHistogram>, bool),
}

/// Where `null` keys sort.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NullOrder {
    First,
    Last,
}

struct Source {
    name: String,
    field: String,
    kind: ValueKind,
    grouping: Grouping,
    descending: bool,
    missing_bucket: bool,
    nulls: NullOrder,
}

impl Source {
    fn parse(agg: &str, entry: &Value, mappings: &Mappings) -> Result<Source> {
        let (name, body) = match entry.as_object().map(|o| (o.len(), o.iter().next())) {
            Some((1, Some((name, body)))) => (name.clone(), body),
            _ => {
                return Err(SearchError::parsing(format!(
                    "[composite] sources of [{agg}] must be objects with one named source each"
                )))
            }
        };
        let (ty, params) = match body.as_object().map(|o| (o.len(), o.iter().next())) {
            Some((1, Some((ty, params)))) => (ty.as_str(), params),
            _ => {
                return Err(SearchError::parsing(format!(
                    "[composite] source [{name}] of [{agg}] must have one type"
                )))
            }
        };
        let common = [
            "field",
            "order",
            "missing_bucket",
            "missing_order",
            "value_type",
        ];
        let field = field_param(agg, "composite", params)?.to_string();
        let kind = ValueKind::of(mappings, &field, agg)?.unwrap_or(ValueKind::Str);
        let grouping = match ty {
            "terms" => {
                check_keys(agg, "composite", params, &common)?;
                Grouping::Terms
            }
            "histogram" => {
                check_keys(
                    agg,
                    "composite",
                    params,
                    &[&common[..], &["interval"]].concat(),
                )?;
                let interval = params
                    .get("interval")
                    .and_then(Value::as_f64)
                    .filter(|i| *i > 0.0 && i.is_finite())
                    .ok_or_else(|| {
                        SearchError::illegal(format!(
                            "[interval] must be a positive number in [histogram] source [{name}] of [{agg}]"
                        ))
                    })?;
                if kind == ValueKind::Str {
                    return Err(SearchError::illegal(format!(
                        "Field [{field}] of type [keyword] is not supported for aggregation [histogram]"
                    )));
                }
                Grouping::Histogram(interval)
            }
            "date_histogram" => {
                let mut own = params.as_object().cloned().unwrap_or_default();
                for k in common {
                    if k != "field" {
                        own.remove(k);
                    }
                }
                for k in own.keys() {
                    let known = [
                        "field",
                        "calendar_interval",
                        "fixed_interval",
                        "interval",
                        "time_zone",
                        "offset",
                        "format",
                    ];
                    if !known.contains(&k.as_str()) {
                        return Err(SearchError::parsing(format!(
                            "[date_histogram] unknown field [{k}] in source [{name}] of [{agg}]"
                        )));
                    }
                }
                let formatted = own.contains_key("format");
                let h = DateHistogram::parse(agg, &field, &own, mappings, 0)?;
                if kind != ValueKind::Date && mappings.leaf(&field).is_some() {
                    return Err(SearchError::illegal(format!(
                        "Field [{field}] is not a date field, as [date_histogram] source [{name}] needs"
                    )));
                }
                Grouping::DateHistogram(Box::new(h), formatted)
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "Invalid source type: [{other}] in [{agg}]"
                )))
            }
        };
        let descending = match params.get("order").and_then(Value::as_str) {
            None | Some("asc") => false,
            Some("desc") => true,
            Some(o) => {
                return Err(SearchError::parsing(format!(
                    "Unknown order [{o}] in source [{name}] of [{agg}]"
                )))
            }
        };
        let missing_bucket = match params.get("missing_bucket") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(v) => {
                return Err(SearchError::parsing(format!(
                    "[missing_bucket] must be a boolean, got [{v}]"
                )))
            }
        };
        let nulls = match params.get("missing_order").and_then(Value::as_str) {
            None | Some("default") => {
                if descending {
                    NullOrder::Last
                } else {
                    NullOrder::First
                }
            }
            Some("first") => NullOrder::First,
            Some("last") => NullOrder::Last,
            Some(o) => {
                return Err(SearchError::parsing(format!(
                    "Unknown missing_order [{o}] in source [{name}] of [{agg}]"
                )))
            }
        };
        Ok(Source {
            name,
            field,
            kind,
            grouping,
            descending,
            missing_bucket,
            nulls,
        })
    }

    /// The keys a value falls in.
    fn key(&self, value: &Key) -> Option<Key> {
        match &self.grouping {
            Grouping::Terms => Some(value.clone()),
            Grouping::Histogram(interval) => {
                let v = value.num()?;
                Some(Key::Num(Num((v / interval).floor() * interval)))
            }
            Grouping::DateHistogram(h, _) => {
                let v = value.num()? as i64;
                Some(Key::Num(Num(h.rounding.round_down(v) as f64)))
            }
        }
    }

    fn cmp(&self, a: &Option<Key>, b: &Option<Key>) -> Ordering {
        match (a, b) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) if self.nulls == NullOrder::First => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => self.cmp(b, a).reverse(),
            (Some(x), Some(y)) if self.descending => y.cmp(x),
            (Some(x), Some(y)) => x.cmp(y),
        }
    }

    /// A request key (`after`) of this source.
    fn parse_key(&self, agg: &str, value: &Value) -> Result<Option<Key>> {
        if value.is_null() {
            return Ok(None);
        }
        let kind = match self.grouping {
            Grouping::Terms => self.kind,
            Grouping::Histogram(_) => ValueKind::Double,
            Grouping::DateHistogram(..) => ValueKind::Date,
        };
        kind.key_of(value).map(Some).ok_or_else(|| {
            SearchError::illegal(format!(
                "invalid value [{value}] of source [{}] in [after] of [{agg}]",
                self.name
            ))
        })
    }

    /// A key as the response writes it.
    fn write(&self, key: &Option<Key>) -> Value {
        let Some(key) = key else {
            return Value::Null;
        };
        match (&self.grouping, self.kind) {
            (Grouping::DateHistogram(h, true), _) => {
                json!(h.key_as_string(key.num().unwrap_or(0.0) as i64))
            }
            (Grouping::DateHistogram(..), _) => json!(key.num().unwrap_or(0.0) as i64),
            (Grouping::Histogram(_), _) => json!(key.num().unwrap_or(0.0)),
            (Grouping::Terms, ValueKind::Bool) => json!(key.num().is_some_and(|n| n != 0.0)),
            (Grouping::Terms, kind) => kind.write(key).0,
        }
    }

    /// The documents of a bucket with `key` for this source.
    fn filter(&self, key: &Option<Key>) -> Value {
        let Some(key) = key else {
            return json!({"bool": {"must_not": {"exists": {"field": self.field}}}});
        };
        let n = key.num().unwrap_or(0.0);
        match &self.grouping {
            Grouping::Terms => self.kind.filter(&self.field, key),
            Grouping::Histogram(i) => json!({"range": {&self.field: {"gte": n, "lt": n + i}}}),
            Grouping::DateHistogram(h, _) => {
                let start = n as i64;
                json!({"range": {&self.field: {"gte": start, "lt": h.bucket_end(start),
                    "format": "epoch_millis"}}})
            }
        }
    }
}

/// A parsed `composite`.
pub struct Composite {
    sources: Vec<Source>,
    size: usize,
    after: Option<Vec<Option<Key>>>,
}

/// Counts per composite key, and whether a document had too many combinations.
#[derive(Default)]
pub struct Page {
    counts: HashMap<Vec<Option<Key>>, u64>,
    overflow: bool,
}

impl Composite {
    pub fn parse(name: &str, params: &Value, mappings: &Mappings) -> Result<Composite> {
        check_keys(name, "composite", params, &["sources", "size", "after"])?;
        let sources = match params.get("sources") {
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .map(|s| Source::parse(name, s, mappings))
                .collect::<Result<Vec<_>>>()?,
            _ => {
                return Err(SearchError::illegal(format!(
                    "Composite [sources] cannot be null or empty (aggregation [{name}])"
                )))
            }
        };
        for (i, s) in sources.iter().enumerate() {
            if sources[..i].iter().any(|o| o.name == s.name) {
                return Err(SearchError::illegal(format!(
                    "Composite source names must be unique, found duplicates: [{}]",
                    s.name
                )));
            }
        }
        let size = count_param(name, params, "size", 10)?;
        if size == 0 || size as usize > max_buckets() {
            return Err(SearchError::illegal(format!(
                "[size] must be within [1, {}] for composite aggregation [{name}], got [{size}]",
                max_buckets()
            )));
        }
        let after = match params.get("after") {
            None | Some(Value::Null) => None,
            Some(Value::Object(obj)) => {
                if obj.len() != sources.len() || sources.iter().any(|s| !obj.contains_key(&s.name))
                {
                    return Err(SearchError::illegal(format!(
                        "[after] has {} value(s) but [sources] has {} (aggregation [{name}])",
                        obj.len(),
                        sources.len()
                    )));
                }
                Some(
                    sources
                        .iter()
                        .map(|s| s.parse_key(name, &obj[&s.name]))
                        .collect::<Result<Vec<_>>>()?,
                )
            }
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "[after] of composite [{name}] must be an object, got [{other}]"
                )))
            }
        };
        Ok(Composite {
            sources,
            size: size as usize,
            after,
        })
    }

    fn cmp(&self, a: &[Option<Key>], b: &[Option<Key>]) -> Ordering {
        for ((s, x), y) in self.sources.iter().zip(a).zip(b) {
            match s.cmp(x, y) {
                Ordering::Equal => continue,
                other => return other,
            }
        }
        Ordering::Equal
    }

    /// Keeps the `size` smallest keys of `page`.
    fn prune(&self, page: &mut Page) {
        let mut entries: Vec<_> = page.counts.drain().collect();
        entries.sort_by(|a, b| self.cmp(&a.0, &b.0));
        entries.truncate(self.size);
        page.counts.extend(entries);
    }

    pub fn run(self, env: &ScanEnv<'_>, sub: Option<&Value>) -> Result<Value> {
        let sources_json: Vec<String> = self.sources.iter().map(|s| s.name.clone()).collect();
        let plan = std::sync::Arc::new(self);
        let page = env.scan(env.query, PlanRef(std::sync::Arc::clone(&plan)))?;
        if page.overflow {
            return Err(SearchError::illegal(format!(
                "a document gives more than [{MAX_COMBINATIONS}] composite keys"
            )));
        }
        let mut entries: Vec<_> = page.counts.into_iter().collect();
        entries.sort_by(|a, b| plan.cmp(&a.0, &b.0));
        entries.truncate(plan.size);
        let mut buckets = Vec::with_capacity(entries.len());
        for (key, count) in &entries {
            let mut key_json = Map::new();
            let mut filters = Vec::new();
            for ((name, source), k) in sources_json.iter().zip(&plan.sources).zip(key) {
                key_json.insert(name.clone(), source.write(k));
                filters.push(source.filter(k));
            }
            let mut b = Map::new();
            b.insert("key".into(), Value::Object(key_json));
            b.insert("doc_count".into(), json!(count));
            if let Some(sub) = sub {
                b.extend(env.bucket_aggs(&json!({"bool": {"filter": filters}}), sub)?);
            }
            buckets.push(Value::Object(b));
        }
        let mut out = Map::new();
        if let Some(last) = buckets.last() {
            out.insert("after_key".into(), last["key"].clone());
        }
        out.insert("buckets".into(), Value::Array(buckets));
        Ok(Value::Object(out))
    }
}

/// The plan shared with the collectors.
struct PlanRef(std::sync::Arc<Composite>);

impl Scan for PlanRef {
    type Acc = Page;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        self.0
            .sources
            .iter()
            .map(|s| {
                let kind = match s.grouping {
                    Grouping::Terms => s.kind,
                    _ => ValueKind::Double,
                };
                (s.field.clone(), kind)
            })
            .collect()
    }

    fn doc(&self, values: &[Vec<Key>], page: &mut Page) {
        let plan = &*self.0;
        let mut per_source: Vec<Vec<Option<Key>>> = Vec::with_capacity(plan.sources.len());
        for (source, vals) in plan.sources.iter().zip(values) {
            let mut keys: Vec<Option<Key>> = Vec::new();
            for v in vals {
                if let Some(k) = source.key(v) {
                    if !keys.iter().any(|e| e.as_ref() == Some(&k)) {
                        keys.push(Some(k));
                    }
                }
            }
            if keys.is_empty() {
                if !source.missing_bucket {
                    return;
                }
                keys.push(None);
            }
            per_source.push(keys);
        }
        let combinations = per_source.iter().map(Vec::len).product::<usize>();
        if combinations > MAX_COMBINATIONS {
            page.overflow = true;
            return;
        }
        let mut index = vec![0usize; per_source.len()];
        for _ in 0..combinations {
            let key: Vec<Option<Key>> = index
                .iter()
                .zip(&per_source)
                .map(|(&i, keys)| keys[i].clone())
                .collect();
            let past_after = plan
                .after
                .as_ref()
                .is_none_or(|after| plan.cmp(&key, after) == Ordering::Greater);
            if past_after {
                *page.counts.entry(key).or_insert(0) += 1;
            }
            for (i, keys) in index.iter_mut().zip(&per_source) {
                *i += 1;
                if *i < keys.len() {
                    break;
                }
                *i = 0;
            }
        }
        if page.counts.len() > plan.size * 2 + 64 {
            plan.prune(page);
        }
    }

    fn merge(&self, into: &mut Page, part: Page) {
        into.overflow |= part.overflow;
        for (k, n) in part.counts {
            *into.counts.entry(k).or_insert(0) += n;
        }
        if into.counts.len() > self.0.size * 2 + 64 {
            self.0.prune(into);
        }
    }
}
