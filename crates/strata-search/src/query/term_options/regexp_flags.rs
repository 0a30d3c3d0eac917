//! [`Flags`]: the optional operators of Lucene's regular expressions a
//! `regexp` query enables (its `flags` parameter), as parsed.

use crate::error::{Result, SearchError};

/// The optional operators enabled (`flags`: `ALL`, the default, or names
/// joined by `|`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    pub complement: bool,
    pub interval: bool,
    pub intersection: bool,
    pub anystring: bool,
    pub empty: bool,
}

impl Flags {
    /// Every optional operator (`ALL`).
    pub const ALL: Flags = Flags {
        complement: true,
        interval: true,
        intersection: true,
        anystring: true,
        empty: true,
    };

    /// Parses a `flags` value such as `"INTERVAL|ANYSTRING"`.
    pub fn parse(text: &str) -> Result<Flags> {
        let mut flags = Flags {
            complement: false,
            interval: false,
            intersection: false,
            anystring: false,
            empty: false,
        };
        for name in text.split('|').map(str::trim).filter(|n| !n.is_empty()) {
            match name.to_ascii_uppercase().as_str() {
                "ALL" => flags = Flags::ALL,
                "NONE" => {}
                "COMPLEMENT" => flags.complement = true,
                "INTERVAL" => flags.interval = true,
                "INTERSECTION" => flags.intersection = true,
                "ANYSTRING" => flags.anystring = true,
                "EMPTY" => flags.empty = true,
                _ => {
                    return Err(SearchError::illegal(format!(
                        "Unknown regexp flag [{name}]"
                    )))
                }
            }
        }
        Ok(flags)
    }
}
