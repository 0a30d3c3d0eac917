//! [`SamplerParams`]: the parameters of the `sampler` and
//! `diversified_sampler` aggregations and the checks Elasticsearch 8.15
//! makes of them (`SamplerAggregationBuilder.parse`,
//! `DiversifiedAggregationBuilder`'s object parser and setters,
//! `SamplerAggregator.ExecutionMode.fromString`).
//!
//! `sampler` takes only a number `shard_size` (default 100); any other
//! property, or a `shard_size` that is not a number, is Elasticsearch's
//! `Unsupported property "…" for aggregation "…` (its message has no
//! closing quote). `diversified_sampler` takes `field` (required here:
//! `script` is not supported by this server), `missing`, `shard_size`,
//! `max_docs_per_value` (default 1) and `execution_hint` (`map`,
//! `global_ordinals` or `bytes_hash`: all sample alike here; Elasticsearch's
//! `bytes_hash` compares values by hash, so colliding values would count
//! as one there).
//!
//! Where Strata answers differently: a `sampler` `shard_size` below 1 is
//! refused when parsed, with the message Lucene's top-docs collector
//! gives when Elasticsearch creates it once a document matches (none
//! matching, Elasticsearch answers `doc_count` 0); likewise a sampler
//! without sub-aggregations is refused whether or not documents match;
//! a multi-valued `field` fails the search with a 400 rather than as
//! every shard's failure.

use serde_json::Value;

use super::AggKind;
use crate::error::{Result, SearchError};

/// Elasticsearch's `DEFAULT_SHARD_SAMPLE_SIZE`.
const DEFAULT_SHARD_SIZE: i64 = 100;

/// The execution hints Elasticsearch knows, in its enum's order.
const HINTS: [&str; 3] = ["map", "bytes_hash", "global_ordinals"];

/// What `diversified_sampler` adds to `sampler`.
#[derive(Debug, Clone, PartialEq)]
pub struct Diversify {
    /// `field`: the value at most `max_docs_per_value` documents share.
    pub field: String,
    /// `max_docs_per_value`.
    pub max_docs_per_value: usize,
    /// `missing`: the value of documents without one (`None`: those share
    /// one value of their own).
    pub missing: Option<Value>,
}

/// The parameters of one `sampler` or `diversified_sampler`.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerParams {
    /// `shard_size`: the documents kept per shard (at most the shard's
    /// documents, as Elasticsearch caps it by `maxDoc`).
    pub shard_size: usize,
    /// `diversified_sampler`'s parameters.
    pub diversify: Option<Diversify>,
}

impl SamplerParams {
    /// The parameters `params` of the `kind` (`sampler` or
    /// `diversified_sampler`) aggregation `name`.
    pub fn parse(kind: AggKind, name: &str, params: &Value) -> Result<SamplerParams> {
        match kind {
            AggKind::DiversifiedSampler => diversified(name, params),
            _ => sampler(name, params),
        }
    }

    /// Elasticsearch's refusal of a sampler without sub-aggregations
    /// (`SamplerAggregator`, once a document is collected).
    pub fn check_subs(has_subs: bool) -> Result<()> {
        if has_subs {
            return Ok(());
        }
        Err(SearchError::illegal(
            "Sampler aggregation must be used with child aggregations.",
        ))
    }
}

/// `sampler`: only a number `shard_size`.
fn sampler(name: &str, params: &Value) -> Result<SamplerParams> {
    let obj = params
        .as_object()
        .ok_or_else(|| SearchError::parsing(format!("[sampler] of [{name}] must be an object")))?;
    let mut shard_size = DEFAULT_SHARD_SIZE;
    for (key, value) in obj {
        // Elasticsearch's `parser.intValue()`: a fraction is truncated.
        let n = match (key.as_str(), value) {
            ("shard_size", Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
            _ => None,
        };
        shard_size = n.ok_or_else(|| {
            SearchError::parsing(format!(
                "Unsupported property \"{key}\" for aggregation \"{name}"
            ))
        })?;
    }
    Ok(SamplerParams {
        shard_size: positive(shard_size)?,
        diversify: None,
    })
}

/// A sample size Lucene's top-docs collector accepts (it refuses 0 and
/// negative sizes with this message).
fn positive(n: i64) -> Result<usize> {
    match usize::try_from(n) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(SearchError::illegal(
            "numHits must be > 0; please use TotalHitCountCollector if you do not need to return hits",
        )),
    }
}

/// `diversified_sampler`'s object.
fn diversified(name: &str, params: &Value) -> Result<SamplerParams> {
    const KIND: &str = "diversified_sampler";
    let obj = params
        .as_object()
        .ok_or_else(|| SearchError::parsing(format!("[{KIND}] of [{name}] must be an object")))?;
    let mut shard_size = DEFAULT_SHARD_SIZE;
    let mut per_value = 1;
    let mut field = None;
    let mut missing = None;
    for (key, value) in obj {
        match key.as_str() {
            "field" => match value {
                Value::String(s) => field = Some(s.clone()),
                _ => return Err(wrong_type(KIND, key, value)),
            },
            "missing" => missing = Some(value.clone()),
            // Deprecated in Elasticsearch and unused by a mapped field.
            "value_type" => {}
            "shard_size" => shard_size = at_least_zero(name, key, "shardSize", value)?,
            "max_docs_per_value" => per_value = at_least_zero(name, key, "maxDocsPerValue", value)?,
            "execution_hint" => {
                let hint = value.as_str().ok_or_else(|| wrong_type(KIND, key, value))?;
                if !HINTS.contains(&hint) {
                    return Err(SearchError::illegal(format!(
                        "Unknown `execution_hint`: [{hint}], expected any of [{}]",
                        HINTS.join(", ")
                    )));
                }
            }
            "script" => {
                return Err(SearchError::illegal(format!(
                    "[{KIND}] aggregation [{name}]: [script] is not supported by this server"
                )))
            }
            _ => {
                return Err(SearchError::parsing(format!(
                    "[{KIND}] unknown field [{key}]"
                )))
            }
        }
    }
    let field = field.ok_or_else(|| {
        SearchError::illegal("Required one of fields [field, script], but none were specified.")
    })?;
    Ok(SamplerParams {
        // 0 is accepted: the sample is then empty.
        shard_size: shard_size as usize,
        diversify: Some(Diversify {
            field,
            max_docs_per_value: per_value as usize,
            missing,
        }),
    })
}

/// An int field of the object parser (a whole number in Java's `int`
/// range, or a string of one) that its setter refuses below 0, as
/// `DiversifiedAggregationBuilder`'s setters (`setter` names it there);
/// the object parser wraps the setter's refusal.
fn at_least_zero(name: &str, key: &str, setter: &str, value: &Value) -> Result<i64> {
    const KIND: &str = "diversified_sampler";
    let n = match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    let n = n
        .filter(|n| i32::try_from(*n).is_ok())
        .ok_or_else(|| wrong_type(KIND, key, value))?;
    if n < 0 {
        let msg = format!("[{setter}] must be greater than or equal to 0. Found [{n}] in [{name}]");
        return Err(SearchError::field_parse(
            KIND,
            key,
            SearchError::illegal(msg),
        ));
    }
    Ok(n)
}

/// The object parser's refusal of a value of the wrong type.
fn wrong_type(kind: &str, key: &str, value: &Value) -> SearchError {
    SearchError::field_parse(
        kind,
        key,
        SearchError::illegal(format!("[{key}] cannot be [{value}]")),
    )
}
