//! [`NumericType`]: a sort criterion's `numeric_type`, the type its values
//! are converted to before they are compared and shown (Elasticsearch uses
//! it to sort indices that map one field as `long` here and `double`
//! there, or `date` and `date_nanos`, on one scale). A leaf of `search`.

use super::sort::SortValue;
use crate::error::{Result, SearchError};

/// The `numeric_type` of a sort criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericType {
    /// Whole numbers: a float is truncated toward zero (Java's `(long)`).
    Long,
    /// Floating point.
    Double,
    /// Milliseconds since the epoch, a whole number.
    Date,
    /// Nanoseconds since the epoch: a `date` field's milliseconds times a
    /// million (saturating; Elasticsearch refuses dates outside 1970-2262
    /// there).
    DateNanos,
}

impl NumericType {
    /// Parses `long`, `double`, `date` or `date_nanos` (any case), with
    /// Elasticsearch's error otherwise.
    pub fn parse(text: &str) -> Result<NumericType> {
        let lower = text.to_lowercase();
        Ok(match lower.as_str() {
            "long" => NumericType::Long,
            "double" => NumericType::Double,
            "date" => NumericType::Date,
            "date_nanos" => NumericType::DateNanos,
            _ => {
                return Err(SearchError::illegal(format!(
                    "invalid value for [numeric_type], must be [long, double, date, date_nanos], got {lower}"
                )))
            }
        })
    }

    /// `value` converted; `from_date`: it is a `date` field's (in
    /// milliseconds). Missing values and strings pass unchanged.
    pub fn convert(self, value: SortValue, from_date: bool) -> SortValue {
        match (self, value) {
            (NumericType::Double, SortValue::Int(n)) => SortValue::Float(n as f64),
            // `as` truncates toward zero and saturates, NaN giving 0, as
            // Java's `(long)` cast does.
            (NumericType::Long | NumericType::Date, SortValue::Float(f)) => {
                SortValue::Int(f as i64)
            }
            (NumericType::DateNanos, SortValue::Int(ms)) if from_date => {
                SortValue::Int(ms.saturating_mul(1_000_000))
            }
            (NumericType::DateNanos, SortValue::Float(f)) => SortValue::Int(f as i64),
            (_, value) => value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_four_types_in_any_case_and_refuses_others_in_elasticsearchs_words() {
        assert_eq!(NumericType::parse("LONG").unwrap(), NumericType::Long);
        assert_eq!(
            NumericType::parse("date_nanos").unwrap(),
            NumericType::DateNanos
        );
        let err = NumericType::parse("Float").unwrap_err().to_string();
        assert!(
            err.contains("invalid value for [numeric_type], must be [long, double, date, date_nanos], got float"),
            "{err}"
        );
    }

    #[test]
    fn converts_between_scales() {
        use NumericType::*;
        assert_eq!(
            Long.convert(SortValue::Float(-2.9), false),
            SortValue::Int(-2)
        );
        assert_eq!(
            Long.convert(SortValue::Float(f64::NAN), false),
            SortValue::Int(0)
        );
        assert_eq!(
            Double.convert(SortValue::Int(3), false),
            SortValue::Float(3.0)
        );
        assert_eq!(
            DateNanos.convert(SortValue::Int(1_500), true),
            SortValue::Int(1_500_000_000)
        );
        assert_eq!(
            DateNanos.convert(SortValue::Int(1_500), false),
            SortValue::Int(1_500)
        );
        assert_eq!(
            DateNanos.convert(SortValue::Int(i64::MAX / 10), true),
            SortValue::Int(i64::MAX)
        );
        assert_eq!(Date.convert(SortValue::Missing, true), SortValue::Missing);
        assert_eq!(
            Long.convert(SortValue::Str("a".into()), false),
            SortValue::Str("a".into())
        );
    }
}
