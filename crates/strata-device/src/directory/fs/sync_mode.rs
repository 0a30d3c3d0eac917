//! [`SyncMode`]: how a file device makes its writes durable.

use std::fmt;
use std::str::FromStr;

/// How the files of an [`FsDirectory`](crate::FsDirectory) reach stable
/// storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SyncMode {
    /// Buffered writes through the page cache; `sync` calls `fdatasync`
    /// (`fsync` after a length change made by `set_len`). Written `fdatasync`.
    #[default]
    Fdatasync,
    /// Files opened with `O_DIRECT | O_DSYNC`: every write bypasses the page
    /// cache and is durable when it returns, so `sync` only persists a
    /// pending length change. I/O goes through 4096-byte aligned bounce
    /// buffers inside the device; unaligned writes read, patch and rewrite
    /// the blocks they touch. Written `direct`.
    DirectDsync,
}

impl SyncMode {
    /// The name used in configuration and stats.
    pub fn as_str(self) -> &'static str {
        match self {
            SyncMode::Fdatasync => "fdatasync",
            SyncMode::DirectDsync => "direct",
        }
    }
}

impl fmt::Display for SyncMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A sync mode name that is neither `fdatasync` nor `direct`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sync mode {0:?}: expected \"fdatasync\" or \"direct\"")]
pub struct ParseSyncModeError(String);

impl FromStr for SyncMode {
    type Err = ParseSyncModeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "fdatasync" => Ok(SyncMode::Fdatasync),
            "direct" => Ok(SyncMode::DirectDsync),
            other => Err(ParseSyncModeError(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in [SyncMode::Fdatasync, SyncMode::DirectDsync] {
            assert_eq!(mode.to_string().parse::<SyncMode>(), Ok(mode));
        }
        assert!("fsync".parse::<SyncMode>().is_err());
    }
}
