//! [`Placement`]: which memory tier holds the index and which holds the
//! records.

use std::fmt;
use std::str::FromStr;

/// Where the hash index lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexTier {
    /// Ordinary memory: rebuilt at every start.
    #[default]
    Dram,
    /// The persistent arena: mapped and served at once after a restart.
    Pmem,
}

/// Where the item records live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataTier {
    /// Ordinary memory (anonymous mappings).
    #[default]
    Dram,
    /// The persistent arena: records survive restarts in place.
    Pmem,
    /// Write blocks on an SSD behind a DRAM record cache.
    Ssd,
}

/// The placement of a keyspace: `index = dram | pmem`, `data = dram | pmem | ssd`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Placement {
    /// Tier of the hash index.
    pub index: IndexTier,
    /// Tier of the records.
    pub data: DataTier,
}

impl Placement {
    /// Whether the keyspace needs the persistent arena.
    pub fn uses_pmem(&self) -> bool {
        self.index == IndexTier::Pmem || self.data == DataTier::Pmem
    }

    /// Whether the records survive a restart in their tier (so the tier,
    /// not the command log, is where a restart finds them).
    pub fn data_persists(&self) -> bool {
        self.data != DataTier::Dram
    }

    /// Whether a restart serves from the persistent index as it is,
    /// without rebuilding it: the index and the records both persist.
    pub fn instant_restart(&self) -> bool {
        self.index == IndexTier::Pmem && self.data_persists()
    }

    /// A stable code for the persistent directory (index | data << 8).
    pub(crate) fn code(&self) -> u64 {
        let index = match self.index {
            IndexTier::Dram => 0,
            IndexTier::Pmem => 1,
        };
        let data = match self.data {
            DataTier::Dram => 0,
            DataTier::Pmem => 1,
            DataTier::Ssd => 2,
        };
        index | data << 8
    }
}

impl fmt::Display for IndexTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IndexTier::Dram => "dram",
            IndexTier::Pmem => "pmem",
        })
    }
}

impl fmt::Display for DataTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DataTier::Dram => "dram",
            DataTier::Pmem => "pmem",
            DataTier::Ssd => "ssd",
        })
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "index={} data={}", self.index, self.data)
    }
}

impl FromStr for IndexTier {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "dram" => Ok(IndexTier::Dram),
            "pmem" => Ok(IndexTier::Pmem),
            other => Err(format!("index tier '{other}' is not one of dram, pmem")),
        }
    }
}

impl FromStr for DataTier {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "dram" => Ok(DataTier::Dram),
            "pmem" => Ok(DataTier::Pmem),
            "ssd" => Ok(DataTier::Ssd),
            other => Err(format!("data tier '{other}' is not one of dram, pmem, ssd")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        assert_eq!("PMEM".parse::<IndexTier>(), Ok(IndexTier::Pmem));
        assert_eq!("ssd".parse::<DataTier>(), Ok(DataTier::Ssd));
        assert!("disk".parse::<DataTier>().is_err());
        let p = Placement {
            index: IndexTier::Pmem,
            data: DataTier::Ssd,
        };
        assert_eq!(p.to_string(), "index=pmem data=ssd");
        assert!(p.instant_restart() && p.uses_pmem());
        assert!(!Placement::default().uses_pmem());
    }
}
