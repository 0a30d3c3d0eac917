//! The options of `strata bench tpcc`.

use std::path::PathBuf;

use clap::Parser;

use crate::mix::Mix;

/// The concurrency control to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CcName {
    /// Two-phase locking, abort on conflict.
    #[value(name = "no_wait")]
    NoWait,
    /// Optimistic concurrency control with epochs.
    Silo,
}

/// Run TPC-C in process on Strata's transaction engine.
#[derive(Debug, Clone, Parser)]
pub struct TpccArgs {
    /// Concurrency control.
    #[arg(long, value_enum, default_value = "silo")]
    pub cc: CcName,
    /// Log device: none, file (fdatasync), file-direct (O_DIRECT|O_DSYNC),
    /// ramdisk (a file on tmpfs), pmem (strata-pmem files; emulated on
    /// tmpfs).
    #[arg(long, default_value = "none", value_parser = ["none", "file", "file-direct", "ramdisk", "pmem"])]
    pub log: String,
    /// Where the log goes (defaults: ./strata-tpcc-log for file,
    /// /dev/shm/strata-tpcc-log for ramdisk and pmem). Emptied first
    /// unless --keep.
    #[arg(long)]
    pub log_path: Option<PathBuf>,
    /// Warehouses.
    #[arg(long, default_value_t = 2)]
    pub warehouses: u32,
    /// Worker threads (each has a home warehouse: worker % warehouses + 1).
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Seconds to measure (after the warm-up).
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// Stop after this many committed transactions instead.
    #[arg(long)]
    pub transactions: Option<u64>,
    /// Seconds to run before measuring.
    #[arg(long, default_value_t = 2.0)]
    pub warmup: f64,
    /// Transaction mix.
    #[arg(long, value_enum, default_value = "full")]
    pub mix: Mix,
    /// Global epoch interval in milliseconds (Silo's 40).
    #[arg(long, default_value_t = 40)]
    pub epoch_ms: u64,
    /// Take a checkpoint every this many seconds while running (0: never).
    #[arg(long, default_value_t = 0.0)]
    pub checkpoint_every: f64,
    /// After the run, reopen the database from its log and checkpoint
    /// (recovery), time it, and check consistency again.
    #[arg(long)]
    pub recover: bool,
    /// Keep the log directory: recover from it if it holds a database
    /// instead of loading a new one.
    #[arg(long)]
    pub keep: bool,
    /// Seed of the load and the run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the result as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// Crash tests: append every durably acknowledged commit's ORDER or
    /// HISTORY key to this file, as it is acknowledged.
    #[arg(long, hide = true)]
    pub ack_file: Option<PathBuf>,
}

impl TpccArgs {
    /// Checks the options against each other.
    pub fn validate(&self) -> Result<(), String> {
        if self.warehouses == 0 || self.warehouses > 100_000 {
            return Err(format!(
                "--warehouses {} must be 1 to 100000",
                self.warehouses
            ));
        }
        if self.threads == 0 || self.threads > 1024 {
            return Err(format!("--threads {} must be 1 to 1024", self.threads));
        }
        if !(self.duration > 0.0 && self.duration.is_finite()) {
            return Err("--duration must be positive".into());
        }
        if !(self.warmup >= 0.0 && self.warmup.is_finite()) {
            return Err("--warmup must not be negative".into());
        }
        if !(self.checkpoint_every >= 0.0 && self.checkpoint_every.is_finite()) {
            return Err("--checkpoint-every must not be negative".into());
        }
        if self.epoch_ms == 0 || self.epoch_ms > 10_000 {
            return Err(format!("--epoch-ms {} must be 1 to 10000", self.epoch_ms));
        }
        if self.log == "none"
            && (self.recover
                || self.keep
                || self.checkpoint_every > 0.0
                || self.ack_file.is_some()
                || self.log_path.is_some())
        {
            return Err(
                "--log-path, --recover, --keep, --checkpoint-every and --ack-file need a --log device"
                    .into(),
            );
        }
        if self.transactions == Some(0) {
            return Err("--transactions must be positive".into());
        }
        Ok(())
    }

    /// The log directory.
    pub fn log_dir(&self) -> Option<PathBuf> {
        match self.log.as_str() {
            "none" => None,
            "file" | "file-direct" => Some(
                self.log_path
                    .clone()
                    .unwrap_or_else(|| "./strata-tpcc-log".into()),
            ),
            _ => Some(
                self.log_path
                    .clone()
                    .unwrap_or_else(|| "/dev/shm/strata-tpcc-log".into()),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(extra: &[&str]) -> Result<TpccArgs, String> {
        let argv = std::iter::once("tpcc").chain(extra.iter().copied());
        let args = TpccArgs::try_parse_from(argv).map_err(|e| e.to_string())?;
        args.validate()?;
        Ok(args)
    }

    #[test]
    fn good_options_pass_and_bad_ones_are_refused() {
        let args = parse(&["--cc", "no_wait", "--log", "ramdisk", "--mix", "dbx1000"]).unwrap();
        assert_eq!(args.cc, CcName::NoWait);
        assert_eq!(args.mix, Mix::Dbx1000);
        assert_eq!(
            args.log_dir(),
            Some(PathBuf::from("/dev/shm/strata-tpcc-log"))
        );
        for bad in [
            &["--cc", "tictoc"][..],
            &["--log", "tape"],
            &["--mix", "half"],
            &["--warehouses", "0"],
            &["--threads", "0"],
            &["--duration", "0"],
            &["--duration", "NaN"],
            &["--warmup", "-1"],
            &["--epoch-ms", "0"],
            &["--transactions", "0"],
            &["--checkpoint-every", "-2"],
            &["--recover"],
            &["--keep"],
            &["--log-path", "/tmp/x"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
