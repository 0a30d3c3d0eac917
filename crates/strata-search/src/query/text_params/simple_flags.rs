//! `simple_query_string`'s `flags`: which operators the syntax reads
//! (`ALL`, `NONE`, `AND`, `OR`, `NOT`, `PREFIX`, `PHRASE`, `PRECEDENCE`,
//! `ESCAPE`, `WHITESPACE`, `FUZZY`, `NEAR`, `SLOP`), as a `|`-separated
//! string or Elasticsearch's integer bit mask.

use serde_json::Value;

use crate::error::{Result, SearchError};

/// The enabled operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Flags {
    pub and: bool,
    pub or: bool,
    pub not: bool,
    pub prefix: bool,
    pub phrase: bool,
    pub precedence: bool,
    pub escape: bool,
    pub whitespace: bool,
    pub fuzzy: bool,
    /// `~N` after a phrase (`NEAR` and `SLOP` are the same flag).
    pub slop: bool,
}

const NAMES: [&str; 10] = [
    "AND",
    "NOT",
    "OR",
    "PREFIX",
    "PHRASE",
    "PRECEDENCE",
    "ESCAPE",
    "WHITESPACE",
    "FUZZY",
    "NEAR",
];

impl Flags {
    /// Every operator.
    pub const ALL: Flags = Flags::from_bits(u32::MAX);

    /// Lucene's bit layout: AND=1, NOT=2, OR=4, PREFIX=8, PHRASE=16,
    /// PRECEDENCE=32, ESCAPE=64, WHITESPACE=128, FUZZY=256, NEAR=512.
    const fn from_bits(bits: u32) -> Flags {
        Flags {
            and: bits & 1 != 0,
            not: bits & (1 << 1) != 0,
            or: bits & (1 << 2) != 0,
            prefix: bits & (1 << 3) != 0,
            phrase: bits & (1 << 4) != 0,
            precedence: bits & (1 << 5) != 0,
            escape: bits & (1 << 6) != 0,
            whitespace: bits & (1 << 7) != 0,
            fuzzy: bits & (1 << 8) != 0,
            slop: bits & (1 << 9) != 0,
        }
    }

    /// Parses the `flags` parameter.
    pub fn parse(value: &Value) -> Result<Flags> {
        let text = match value {
            Value::Number(n) => {
                let bits = n
                    .as_i64()
                    .ok_or_else(|| SearchError::illegal(format!("Unknown flags [{n}]")))?;
                // -1 (all bits) is ALL; Elasticsearch sends ints as well.
                return Ok(Flags::from_bits(bits as u32));
            }
            Value::String(s) => s,
            other => {
                return Err(SearchError::parsing(format!(
                    "[simple_query_string] [flags] must be a string or a number, got [{other}]"
                )))
            }
        };
        let mut bits = 0u32;
        for name in text.split('|').map(str::trim).filter(|n| !n.is_empty()) {
            let upper = name.to_ascii_uppercase();
            bits |= match upper.as_str() {
                "ALL" => u32::MAX,
                "NONE" => 0,
                "SLOP" => 1 << 9,
                other => match NAMES.iter().position(|n| *n == other) {
                    Some(i) => 1 << i,
                    None => {
                        return Err(SearchError::illegal(format!(
                            "Unknown simple_query_string flag [{name}]"
                        )))
                    }
                },
            };
        }
        Ok(Flags::from_bits(bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_masks() {
        assert_eq!(Flags::parse(&json!("ALL")).unwrap(), Flags::ALL);
        assert_eq!(Flags::parse(&json!(-1)).unwrap(), Flags::ALL);
        let none = Flags::parse(&json!("NONE")).unwrap();
        assert!(!none.and && !none.whitespace && !none.prefix);
        let some = Flags::parse(&json!("OR|prefix|WHITESPACE")).unwrap();
        assert!(some.or && some.prefix && some.whitespace && !some.not && !some.phrase);
        assert!(Flags::parse(&json!("OR|BOGUS")).is_err());
        assert!(Flags::parse(&json!([1])).is_err());
        assert_eq!(
            Flags::parse(&json!(4)).unwrap(),
            Flags::parse(&json!("OR")).unwrap()
        );
    }
}
