//! Persistence settings: the mode, where the log and snapshots go, the log
//! device, checkpoint policy and what recovery may do with damage.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use strata_device::SyncMode;
use strata_log::RecoveryPolicy;
use strata_persist::{Durability, PersistConfig};

use super::size::ByteSize;
use super::ServerConfig;

/// The `persistence` option's value: off, or which log
/// [`Durability`] (`persist_config` maps it, with `sync_interval`, in one
/// place; the log's type is the one the layers below use).
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

impl ServerConfig {
    /// Checks the persistence settings' bounds; the error names the option.
    pub(crate) fn validate_persistence(&self) -> Result<(), (&'static str, String)> {
        let min = strata_log::Durability::MIN_SYNC_INTERVAL;
        if self.sync_interval.0 < min {
            return Err((
                "sync_interval",
                format!("must be at least {min:?}, got {}", self.sync_interval),
            ));
        }
        if self.group_commit_delay.0 > MAX_GROUP_COMMIT_DELAY {
            return Err((
                "group_commit_delay",
                format!("must be at most 10ms, got {}", self.group_commit_delay),
            ));
        }
        if self.checkpoint_cpu_pct > 100 {
            return Err((
                "checkpoint_cpu_pct",
                format!("must be 0..=100, got {}", self.checkpoint_cpu_pct),
            ));
        }
        if self.log_segment_size < ByteSize::kib(64) {
            return Err((
                "log_segment_size",
                format!("must be at least 64kb, got {}", self.log_segment_size),
            ));
        }
        Ok(())
    }

    /// The persistence layer's settings, or `None` when persistence is off.
    pub fn persist_config(&self) -> Option<PersistConfig> {
        let data_dir: &Path = &self.data_dir;
        let mode = match self.persistence {
            PersistenceMode::Off => return None,
            PersistenceMode::Async => Durability::Async {
                sync_interval: self.sync_interval.0,
            },
            PersistenceMode::Sync => Durability::Sync,
        };
        let mut config = PersistConfig::new(mode, data_dir);
        if let Some(dir) = &self.log_dir {
            config.log_dir = dir.clone();
        }
        if let Some(dir) = &self.snapshot_dir {
            config.snapshot_dir = dir.clone();
        }
        config.log_device = match self.log_device {
            LogDevice::Fdatasync => SyncMode::Fdatasync,
            LogDevice::Direct => SyncMode::DirectDsync,
        };
        config.log_segment_size = self.log_segment_size.bytes();
        config.checkpoint_min_log_size = self.checkpoint_min_log_size.bytes();
        config.checkpoint_log_ratio_pct = self.checkpoint_log_ratio_pct;
        config.checkpoint_io_rate = self.checkpoint_io_rate.bytes();
        config.checkpoint_cpu_pct = self.checkpoint_cpu_pct;
        config.group_commit_delay = self.group_commit_delay.0;
        config.recovery = match self.recovery {
            RecoveryMode::Strict => RecoveryPolicy::Strict,
            RecoveryMode::LastGood => RecoveryPolicy::TruncateToLastGood,
        };
        Some(config)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn durations_need_a_unit_and_parse() {
        let d = |s: &str| s.parse::<HumanDuration>().map(|h| h.0);
        assert_eq!(d("10ms"), Ok(Duration::from_millis(10)));
        assert_eq!(d("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(d("2m"), Ok(Duration::from_secs(120)));
        assert!(d("10").is_err());
        assert!(d("ms").is_err());
        assert!(d("5h").is_err());
        assert!(d("99999999999999999999ms").is_err());
        assert_eq!(d("500us"), Ok(Duration::from_micros(500)));
        assert_eq!(
            HumanDuration(Duration::from_micros(500)).to_string(),
            "500us"
        );
        assert_eq!(HumanDuration(Duration::from_secs(1)).to_string(), "1000ms");
    }

    #[test]
    fn group_commit_delay_reaches_the_layer_and_is_bounded() {
        let mut c = ServerConfig {
            persistence: PersistenceMode::Sync,
            ..ServerConfig::default()
        };
        assert_eq!(
            c.persist_config().unwrap().group_commit_delay,
            Duration::from_micros(500)
        );
        let parsed = ServerConfig::from_toml("group_commit_delay = \"2ms\"").unwrap();
        assert_eq!(parsed.group_commit_delay.0, Duration::from_millis(2));
        c.group_commit_delay = parsed.group_commit_delay;
        assert_eq!(
            c.persist_config().unwrap().group_commit_delay,
            Duration::from_millis(2)
        );
        c.group_commit_delay = HumanDuration(Duration::from_millis(11));
        let (key, _) = c.validate_persistence().unwrap_err();
        assert_eq!(key, "group_commit_delay");
    }

    #[test]
    fn off_has_no_persist_config_and_dirs_default_under_data_dir() {
        let mut c = ServerConfig {
            data_dir: PathBuf::from("/d"),
            ..ServerConfig::default()
        };
        assert!(c.persist_config().is_none());
        c.persistence = PersistenceMode::Sync;
        let p = c.persist_config().unwrap();
        assert_eq!(p.log_dir, PathBuf::from("/d/log"));
        assert_eq!(p.snapshot_dir, PathBuf::from("/d/snapshots"));
        assert_eq!(p.mode, Durability::Sync);
        c.sync_interval = HumanDuration(Duration::from_millis(5));
        assert!(c.validate_persistence().is_err());
    }

    #[test]
    fn checkpoint_cpu_pct_defaults_reaches_the_layer_and_is_bounded() {
        let mut c = ServerConfig {
            persistence: PersistenceMode::Async,
            ..ServerConfig::default()
        };
        assert_eq!(
            c.persist_config().unwrap().checkpoint_cpu_pct,
            PersistConfig::DEFAULT_CPU_PCT
        );
        c.checkpoint_cpu_pct = 0;
        assert_eq!(c.persist_config().unwrap().checkpoint_cpu_pct, 0);
        assert!(c.validate_persistence().is_ok());
        c.checkpoint_cpu_pct = 101;
        let (key, _) = c.validate_persistence().unwrap_err();
        assert_eq!(key, "checkpoint_cpu_pct");
        let parsed = ServerConfig::from_toml("checkpoint_cpu_pct = 20").unwrap();
        assert_eq!(parsed.checkpoint_cpu_pct, 20);
    }
}
