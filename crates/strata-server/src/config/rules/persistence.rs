//! What the persistence settings mean: their bounds, and the persistence
//! layer's configuration derived from them.

use std::path::Path;

use strata_device::SyncMode;
use strata_log::RecoveryPolicy;
use strata_persist::{Durability, PersistConfig};

use crate::config::persistence::{
    LogDevice, PersistenceMode, RecoveryMode, MAX_GROUP_COMMIT_DELAY,
};
use crate::config::settings::ServerConfig;
use strata_units::ByteSize;

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
    use crate::config::persistence::HumanDuration;
    use std::time::Duration;

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
