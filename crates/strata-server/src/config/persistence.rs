//! Persistence settings: the mode, where the log and snapshots go, the log
//! device, checkpoint policy and what recovery may do with damage.

use std::time::Duration;

use serde::Deserialize;

/// The `persistence` option's value: off, or which log
/// [`Durability`](strata_persist::Durability) (`persist_config` maps it,
/// with `sync_interval`, in one place; the log's type is the one the
/// layers below use).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum PersistenceMode {
    /// No log, no snapshots: a pure cache.
    #[default]
    Off,
    /// Log written in the background, synced every `sync_interval`.
    Async,
    /// Writes acknowledged only once their log record is synced.
    Sync,
}

/// How log files are made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogDevice {
    /// Buffered writes, then `fdatasync`.
    #[default]
    Fdatasync,
    /// `O_DIRECT | O_DSYNC` writes (needs a filesystem that supports them).
    Direct,
}

/// What recovery does with damage that is not a torn log tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryMode {
    /// Refuse to start, naming the damaged file and offset.
    #[default]
    Strict,
    /// Start from the last good point: skip damaged snapshots for older
    /// ones, cut the log at its first bad record (data after it is lost).
    LastGood,
}

/// A duration written with a unit: `10ms`, `1s`, `2m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct HumanDuration(pub Duration);

impl std::str::FromStr for HumanDuration {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let split = text
            .find(|c: char| !c.is_ascii_digit())
            .ok_or_else(|| format!("`{text}` needs a unit: us, ms, s or m (e.g. `1s`, `100ms`)"))?;
        let (number, unit) = text.split_at(split);
        let n: u64 = number
            .parse()
            .map_err(|_| format!("`{text}` is not a number followed by us, ms, s or m"))?;
        let duration = match unit.trim() {
            "us" | "\u{b5}s" => Duration::from_micros(n),
            "ms" => Duration::from_millis(n),
            "s" => Duration::from_secs(n),
            "m" => Duration::from_secs(n.saturating_mul(60)),
            other => {
                return Err(format!(
                    "unknown unit `{other}` in `{text}` (use us, ms, s or m)"
                ))
            }
        };
        Ok(HumanDuration(duration))
    }
}

impl std::fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.subsec_nanos() % 1_000_000 == 0 {
            write!(f, "{}ms", self.0.as_millis())
        } else {
            write!(f, "{}us", self.0.as_micros())
        }
    }
}

impl<'de> Deserialize<'de> for HumanDuration {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Longest `group_commit_delay`: every write may wait this long.
pub const MAX_GROUP_COMMIT_DELAY: Duration = Duration::from_millis(10);
