//! `score_mode` and `boost_mode`: how `function_score`'s function values
//! combine with each other and with the query's score.

use crate::error::{Result, SearchError};

/// `score_mode`: how function values combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreMode {
    /// The product of the values.
    Multiply,
    /// The sum.
    Sum,
    /// The mean, weighted by each function's weight.
    Avg,
    /// The first matching function's value.
    First,
    /// The largest.
    Max,
    /// The smallest.
    Min,
}

impl ScoreMode {
    /// Parses a mode name.
    pub fn parse(name: &str) -> Result<ScoreMode> {
        Ok(match name {
            "multiply" => ScoreMode::Multiply,
            "sum" => ScoreMode::Sum,
            "avg" => ScoreMode::Avg,
            "first" => ScoreMode::First,
            "max" => ScoreMode::Max,
            "min" => ScoreMode::Min,
            other => {
                return Err(SearchError::illegal(format!(
                    "failed to parse [function_score] query. illegal score_mode [{other}]"
                )))
            }
        })
    }

    /// Combines `(weighted value, weight)` pairs of the matching functions.
    pub fn combine(self, values: &[(f64, f64)]) -> f64 {
        let it = values.iter().map(|(v, _)| *v);
        match self {
            ScoreMode::Multiply => it.product(),
            ScoreMode::Sum => it.sum(),
            ScoreMode::Avg => {
                let weights: f64 = values.iter().map(|(_, w)| *w).sum();
                it.sum::<f64>() / weights
            }
            ScoreMode::First => values[0].0,
            ScoreMode::Max => it.fold(f64::NEG_INFINITY, f64::max),
            ScoreMode::Min => it.fold(f64::INFINITY, f64::min),
        }
    }
}

/// `boost_mode`: how the functions' score combines with the query's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoostMode {
    /// Query score times the functions' score.
    Multiply,
    /// The functions' score only.
    Replace,
    /// Their sum.
    Sum,
    /// Their mean.
    Avg,
    /// The larger.
    Max,
    /// The smaller.
    Min,
}

impl BoostMode {
    /// Parses a mode name.
    pub fn parse(name: &str) -> Result<BoostMode> {
        Ok(match name {
            "multiply" => BoostMode::Multiply,
            "replace" => BoostMode::Replace,
            "sum" => BoostMode::Sum,
            "avg" => BoostMode::Avg,
            "max" => BoostMode::Max,
            "min" => BoostMode::Min,
            other => {
                return Err(SearchError::illegal(format!(
                    "failed to parse [function_score] query. illegal boost_mode [{other}]"
                )))
            }
        })
    }

    /// The final score from the query's and the functions'.
    pub fn combine(self, query: f64, functions: f64) -> f64 {
        match self {
            BoostMode::Multiply => query * functions,
            BoostMode::Replace => functions,
            BoostMode::Sum => query + functions,
            BoostMode::Avg => (query + functions) / 2.0,
            BoostMode::Max => query.max(functions),
            BoostMode::Min => query.min(functions),
        }
    }
}
