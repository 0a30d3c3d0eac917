//! How far a fuzzy term reaches: [`Fuzziness`] (the `fuzziness` parameter
//! `fuzzy` and `match_bool_prefix` share) and [`FuzzyOptions`] (the
//! `fuzzy_*` parameters, as Lucene's `FuzzyQuery` takes them).

use serde_json::Value;

use super::Rewrite;
use crate::error::{Result, SearchError};

/// An edit distance, or Elasticsearch's `AUTO` rule by term length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fuzziness {
    /// This many edits (0 to 2).
    Edits(u8),
    /// 0 edits below `low` characters, 1 below `high`, 2 from `high` on.
    Auto { low: usize, high: usize },
}

impl Fuzziness {
    /// `AUTO:3,6`, Elasticsearch's default `AUTO`.
    pub const AUTO: Fuzziness = Fuzziness::Auto { low: 3, high: 6 };

    /// Parses a `fuzziness` value of a `kind` query.
    pub fn parse(kind: &str, value: &Value) -> Result<Fuzziness> {
        let bad = || SearchError::parsing(format!("[{kind}] failed to parse fuzziness [{value}]"));
        let text = match value {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.trim().to_string(),
            _ => return Err(bad()),
        };
        if text.eq_ignore_ascii_case("auto") {
            return Ok(Fuzziness::AUTO);
        }
        if let Some(rest) = text
            .get(..5)
            .filter(|p| p.eq_ignore_ascii_case("auto:"))
            .map(|_| &text[5..])
        {
            let (low, high) = rest.split_once(',').ok_or_else(bad)?;
            let low: usize = low.trim().parse().map_err(|_| bad())?;
            let high: usize = high.trim().parse().map_err(|_| bad())?;
            if low > high {
                return Err(bad());
            }
            return Ok(Fuzziness::Auto { low, high });
        }
        // Elasticsearch takes `1.0` as 1 and refuses more than 2 edits.
        let edits: f64 = text.parse().map_err(|_| bad())?;
        if !(0.0..=2.0).contains(&edits) || edits.fract() != 0.0 {
            return Err(SearchError::illegal(format!(
                "Valid edit distances are [0, 1, 2] but was [{text}]"
            )));
        }
        Ok(Fuzziness::Edits(edits as u8))
    }

    /// The edits allowed for `term`.
    pub fn edits(self, term: &str) -> u8 {
        match self {
            Fuzziness::Edits(n) => n,
            Fuzziness::Auto { low, high } => {
                let len = term.chars().count();
                if len < low {
                    0
                } else if len < high {
                    1
                } else {
                    2
                }
            }
        }
    }
}

/// `value~N` options (`query_string`'s `fuzzy_*` parameters), as Lucene's
/// `FuzzyQuery` takes them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FuzzyOptions {
    /// Leading characters that must match exactly.
    pub prefix_length: usize,
    /// Most terms a value expands to (the default rewrite's N).
    pub max_expansions: usize,
    /// A swap of two adjacent characters is one edit, not two.
    pub transpositions: bool,
    /// `None`: `top_terms_blended_freqs_{max_expansions}`, as Lucene.
    pub rewrite: Option<Rewrite>,
}

impl Default for FuzzyOptions {
    fn default() -> Self {
        FuzzyOptions {
            prefix_length: 0,
            max_expansions: 50,
            transpositions: true,
            rewrite: None,
        }
    }
}

impl FuzzyOptions {
    /// Sets the option named by a `kind` query's parameter (`fuzzy_*`);
    /// false if `key` is not one.
    pub fn set(&mut self, kind: &str, key: &str, value: &Value) -> Result<bool> {
        let bad = || {
            SearchError::parsing(format!(
                "[{kind}] [{key}] must be {}, got [{value}]",
                if key == "fuzzy_transpositions" {
                    "a boolean"
                } else {
                    "a non-negative integer"
                }
            ))
        };
        let count = || {
            value
                .as_u64()
                .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(bad)
        };
        match key {
            "fuzzy_prefix_length" => self.prefix_length = count()?,
            "fuzzy_max_expansions" => {
                self.max_expansions = count()?;
                if self.max_expansions == 0 {
                    return Err(SearchError::illegal(format!(
                        "[{kind}] [fuzzy_max_expansions] must be greater than 0"
                    )));
                }
            }
            "fuzzy_transpositions" => self.transpositions = value.as_bool().ok_or_else(bad)?,
            "fuzzy_rewrite" => self.rewrite = Some(Rewrite::parse(kind, Some(value))?),
            _ => return Ok(false),
        }
        Ok(true)
    }
    /// Reads `max_expansions`, `prefix_length`, `transpositions` and
    /// `rewrite` (each under its `fuzzy_` name when `prefixed`) of a `kind`
    /// query's `params`; other keys are left to the caller.
    pub fn read(&mut self, kind: &str, params: &Value, prefixed: bool) -> Result<()> {
        let Some(obj) = params.as_object() else {
            return Ok(());
        };
        for (key, value) in obj {
            let name = if prefixed {
                match key.strip_prefix("fuzzy_") {
                    Some(_) => key.clone(),
                    None if key == "max_expansions" || key == "prefix_length" => {
                        format!("fuzzy_{key}")
                    }
                    None => continue,
                }
            } else {
                match key.as_str() {
                    "max_expansions" | "prefix_length" | "transpositions" | "rewrite" => {
                        format!("fuzzy_{key}")
                    }
                    _ => continue,
                }
            };
            self.set(kind, &name, value)?;
        }
        Ok(())
    }
}
