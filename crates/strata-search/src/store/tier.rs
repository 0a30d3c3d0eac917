//! [`StoreTier`]: where an index keeps its segment files
//! (`index.store.tier`), fixed when the index is created.
//!
//! - `dram`: fresh segments in DRAM; persisted segments are read whole
//!   into DRAM the first time a reader opens them and stay there (no
//!   budget, no page cache).
//! - `ssd`: fresh segments in DRAM until a flush; persisted segments are
//!   read in blocks through the node's budgeted [`BlockCache`](super::BlockCache).
//! - `pmem`: fresh segments written as files in the persistent-memory
//!   directory and made durable at every refresh, so a restart opens them
//!   instead of replaying the translog; persisted segments are read like
//!   `ssd`.

use std::fmt;

use crate::error::{Result, SearchError};

/// The placement of one index's segment files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StoreTier {
    /// Everything in DRAM.
    #[default]
    Dram,
    /// Fresh segments in persistent memory, durable at refresh.
    Pmem,
    /// Persisted segments read through the budgeted block cache.
    Ssd,
}

impl StoreTier {
    /// Every value, in the order error messages list them.
    pub(crate) const ALL: [StoreTier; 3] = [StoreTier::Dram, StoreTier::Pmem, StoreTier::Ssd];

    /// The setting's value (`dram`, `pmem`, `ssd`).
    pub fn as_str(self) -> &'static str {
        match self {
            StoreTier::Dram => "dram",
            StoreTier::Pmem => "pmem",
            StoreTier::Ssd => "ssd",
        }
    }

    /// Parses a setting value (case-insensitive); anything else is a 400
    /// `illegal_argument_exception` naming the allowed values.
    pub(crate) fn parse(text: &str) -> Result<StoreTier> {
        StoreTier::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| {
                SearchError::illegal(format!(
                    "unknown value [{text}] for setting [index.store.tier]: must be one of [dram, pmem, ssd]"
                ))
            })
    }
}

impl fmt::Display for StoreTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_value_and_refuses_others() {
        for tier in StoreTier::ALL {
            assert_eq!(StoreTier::parse(tier.as_str()).unwrap(), tier);
        }
        assert_eq!(StoreTier::parse("SSD").unwrap(), StoreTier::Ssd);
        let err = StoreTier::parse("nvme").unwrap_err();
        assert_eq!(err.es_type(), "illegal_argument_exception");
        assert!(err.to_string().contains("[nvme]"));
    }
}
