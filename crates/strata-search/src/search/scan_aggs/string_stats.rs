//! `string_stats` of a keyword field (Elasticsearch's x-pack analytics
//! `InternalStringStats`): the number of values, their shortest, longest
//! and average length, and the Shannon entropy (base 2) of all their
//! characters together, with `show_distribution` each character's share.
//!
//! Lengths count UTF-16 code units, as Java's `String.length()` does.
//! Characters are Unicode scalar values, so a character beyond the Basic
//! Multilingual Plane is one character here where Elasticsearch counts
//! its two surrogate halves; the shares are over the characters counted,
//! so they sum to 1 either way.
//!
//! Memory: the accumulator holds one count per distinct character (at
//! most the 1,112,064 scalar values), reserved on the search's account
//! once the scan is merged.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::env::ScanEnv;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::{FieldType, Mappings};
use crate::search::agg_tree::StringStatsParams;

/// Bytes one distinct character's count holds in the accumulator's map
/// (the key, the count, the table's overhead).
const CHAR_BYTES: u64 = 24;

/// A parsed `string_stats`.
pub struct StringStats {
    field: String,
    /// The field is mapped (as a keyword: others are refused).
    mapped: bool,
    missing: Option<Key>,
    show_distribution: bool,
}

/// What the values seen add up to.
#[derive(Default)]
pub struct Tally {
    count: u64,
    /// Sum of the values' lengths, in UTF-16 code units.
    total_length: u64,
    /// Shortest and longest length (meaningful when `count > 0`).
    min_length: u64,
    max_length: u64,
    /// Occurrences of each character.
    chars: HashMap<char, u64>,
}

impl Tally {
    fn add(&mut self, value: &str) {
        let length = value.encode_utf16().count() as u64;
        if self.count == 0 {
            (self.min_length, self.max_length) = (length, length);
        } else {
            self.min_length = self.min_length.min(length);
            self.max_length = self.max_length.max(length);
        }
        self.count += 1;
        self.total_length += length;
        for c in value.chars() {
            *self.chars.entry(c).or_default() += 1;
        }
    }

    /// Each character's share of all characters, most frequent first
    /// (ties by character, for a stable answer).
    fn distribution(&self) -> Vec<(char, f64)> {
        let total: u64 = self.chars.values().sum();
        let mut out: Vec<(char, u64)> = self.chars.iter().map(|(c, n)| (*c, *n)).collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.into_iter()
            .map(|(c, n)| (c, n as f64 / total as f64))
            .collect()
    }
}

/// `-sum(p * log2 p)` over the shares `probabilities`, summed with
/// Kahan's compensation as Elasticsearch sums it.
fn entropy(probabilities: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut compensation) = (0.0f64, 0.0f64);
    for p in probabilities.filter(|p| *p > 0.0) {
        let y = p * p.log2() - compensation;
        let t = sum + y;
        compensation = (t - sum) - y;
        sum = t;
    }
    -sum
}

impl StringStats {
    /// The statistics `params` of the aggregation `name` asks for, over
    /// the field's type in `mappings`: a keyword field, or an unmapped
    /// one (no values but `missing`); any other type is refused.
    pub fn new(name: &str, params: &StringStatsParams, mappings: &Mappings) -> Result<StringStats> {
        let field = params.field.clone();
        let mapped = match mappings.leaf(&field).map(|l| l.ty) {
            None => false,
            Some(FieldType::Keyword) => true,
            // Text's own refusal, in Elasticsearch's words.
            Some(FieldType::Text) => ValueKind::of(mappings, &field, name).map(|_| true)?,
            Some(other) => {
                return Err(SearchError::illegal(format!(
                    "Field [{field}] of type [{}] is not supported for aggregation [string_stats]",
                    other.name()
                )))
            }
        };
        let missing = params.missing.as_ref().map(|v| match v {
            Value::String(s) => Key::Str(s.as_str().into()),
            other => Key::Str(other.to_string().into()),
        });
        Ok(StringStats {
            field,
            mapped,
            missing,
            show_distribution: params.show_distribution,
        })
    }

    /// The result, as Elasticsearch writes it (an empty one: `count` 0,
    /// lengths `null`, `entropy` 0.0, `distribution` `null`).
    pub fn run(self, env: &ScanEnv<'_>, name: &str) -> Result<Value> {
        let show = self.show_distribution;
        let tally = if self.mapped || self.missing.is_some() {
            env.scan(env.query, self)?
        } else {
            Tally::default()
        };
        env.req.memory.reserve(
            tally.chars.capacity() as u64 * CHAR_BYTES,
            &format!("<agg [{name}]>"),
        )?;
        if tally.count == 0 {
            let mut out = json!({"count": 0, "min_length": null, "max_length": null,
                                 "avg_length": null, "entropy": 0.0});
            if show {
                out["distribution"] = Value::Null;
            }
            return Ok(out);
        }
        let distribution = tally.distribution();
        let mut out = json!({
            "count": tally.count,
            "min_length": tally.min_length,
            "max_length": tally.max_length,
            "avg_length": tally.total_length as f64 / tally.count as f64,
            "entropy": entropy(distribution.iter().map(|(_, p)| *p)),
        });
        if show {
            let shares: Map<String, Value> = distribution
                .into_iter()
                .map(|(c, p)| (c.to_string(), json!(p)))
                .collect();
            out["distribution"] = Value::Object(shares);
        }
        Ok(out)
    }
}

impl Scan for StringStats {
    type Acc = Tally;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        vec![(self.field.clone(), ValueKind::Str)]
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut Tally) {
        let own = &values[0];
        let keys = if own.is_empty() {
            self.missing.as_slice()
        } else {
            own.as_slice()
        };
        for key in keys {
            if let Key::Str(s) = key {
                acc.add(s);
            }
        }
    }

    fn merge(&self, into: &mut Tally, part: Tally) {
        if part.count == 0 {
            return;
        }
        if into.count == 0 {
            (into.min_length, into.max_length) = (part.min_length, part.max_length);
        } else {
            into.min_length = into.min_length.min(part.min_length);
            into.max_length = into.max_length.max(part.max_length);
        }
        into.count += part.count;
        into.total_length += part.total_length;
        for (c, n) in part.chars {
            *into.chars.entry(c).or_default() += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{entropy, Tally};

    #[test]
    fn lengths_count_utf16_units_and_entropy_is_base_two() {
        let mut t = Tally::default();
        for v in ["a", "b"] {
            t.add(v);
        }
        let d = t.distribution();
        assert_eq!(d, [('a', 0.5), ('b', 0.5)]);
        assert_eq!(entropy(d.iter().map(|x| x.1)), 1.0);
        let mut t = Tally::default();
        t.add("𝄞é");
        assert_eq!((t.min_length, t.max_length, t.total_length), (3, 3, 3));
        assert_eq!(t.chars.len(), 2);
        assert_eq!(entropy([1.0].into_iter()), 0.0);
    }

    #[test]
    fn the_most_frequent_character_comes_first() {
        let mut t = Tally::default();
        t.add("abb");
        t.add("");
        let d = t.distribution();
        assert_eq!(d[0].0, 'b');
        assert_eq!((t.count, t.min_length, t.max_length), (2, 0, 3));
    }
}
