//! What `strata bench restart` is asked to do: its options
//! ([`RestartArgs`]) and the scenarios it runs ([`Scenario`]). A leaf
//! below the runner and the report.

use crate::kv::KvArgs;
use crate::LabError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `strata bench restart`.
#[derive(Debug, Clone, Args)]
#[non_exhaustive]
pub struct RestartArgs {
    /// Keys loaded before the crash.
    #[arg(long, default_value_t = 1_000_000)]
    pub keys: u64,

    /// Value size in bytes.
    #[arg(long, default_value_t = 32)]
    pub value_size: usize,

    /// Scenarios to run, comma-separated: pmem-pmem, dram-pmem, dram-log,
    /// dram-ssd.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "pmem-pmem,dram-pmem,dram-log,dram-ssd,pmem-ssd"
    )]
    pub scenarios: Vec<Scenario>,

    /// Directory for the persistent-memory files (tmpfs emulates persistent
    /// memory; a DAX mount is the real thing).
    #[arg(long, default_value = "/dev/shm")]
    pub pmem_dir: PathBuf,

    /// Directory under which the `dram-ssd` scenario puts its SSD tier
    /// (a real disk: O_DIRECT is refused on tmpfs).
    #[arg(long, default_value = "/var/tmp")]
    pub ssd_dir: PathBuf,

    /// Connections used to load and to check the keys.
    #[arg(long, default_value_t = 8)]
    pub connections: usize,

    /// The `strata` binary to start [default: this executable].
    #[arg(long, value_name = "PATH")]
    pub server_binary: Option<PathBuf>,

    /// Extra option for every server (repeatable).
    #[arg(long = "server-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub server_args: Vec<String>,

    /// Write the results as JSON to this file.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
}

/// A placement to restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scenario {
    /// Index and records in persistent memory: restart without rebuild.
    PmemPmem,
    /// Records in persistent memory, index rebuilt from them.
    DramPmem,
    /// All in DRAM, rebuilt from snapshot and command log.
    DramLog,
    /// Records on the SSD tier, index rebuilt by scanning its blocks.
    DramSsd,
    /// Records on the SSD tier, index and stubs in persistent memory.
    PmemSsd,
}

impl Scenario {
    /// The scenario's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::PmemPmem => "pmem-pmem",
            Scenario::DramPmem => "dram-pmem",
            Scenario::DramLog => "dram-log",
            Scenario::DramSsd => "dram-ssd",
            Scenario::PmemSsd => "pmem-ssd",
        }
    }

    /// Server options of the scenario; `pmem` is the arena file, `ssd`
    /// the SSD tier's directory.
    pub(super) fn options(
        self,
        pmem: &std::path::Path,
        pmem_size: u64,
        ssd: &std::path::Path,
    ) -> Vec<String> {
        let pmem = pmem.display().to_string();
        let size = format!("{}mb", pmem_size >> 20);
        let placed = |index: &str| {
            [
                "--index",
                index,
                "--data",
                "pmem",
                "--pmem-path",
                &pmem,
                "--pmem-size",
                &size,
            ]
            .map(String::from)
            .to_vec()
        };
        match self {
            Scenario::PmemPmem => placed("pmem"),
            Scenario::DramPmem => placed("dram"),
            // No automatic checkpoint (it would race the SAVE): the
            // restart loads the SAVE's snapshot.
            Scenario::DramLog => ["--persistence", "async", "--checkpoint-min-log-size", "1tb"]
                .map(String::from)
                .to_vec(),
            Scenario::DramSsd | Scenario::PmemSsd => {
                let mut options = vec![
                    "--data".into(),
                    "ssd".into(),
                    "--ssd-path".into(),
                    ssd.display().to_string(),
                    "--ssd-size".into(),
                    format!("{}mb", pmem_size >> 20),
                ];
                if self == Scenario::PmemSsd {
                    // The arena holds the index and the stubs (key, CAS,
                    // location: well under half of a record's pmem size).
                    let size = format!("{}mb", (pmem_size / 2).max(64 << 20) >> 20);
                    options.extend(["--index".into(), "pmem".into(), "--pmem-path".into(), pmem]);
                    options.extend(["--pmem-size".into(), size]);
                }
                options
            }
        }
    }
}

impl RestartArgs {
    /// Checks the combination of arguments.
    pub fn validate(&self) -> Result<(), LabError> {
        if self.keys == 0 || self.value_size == 0 || self.connections == 0 {
            return Err(LabError::Config(
                "--keys, --value-size and --connections must be positive".into(),
            ));
        }
        if self.scenarios.is_empty() {
            return Err(LabError::Config("--scenarios names none".into()));
        }
        Ok(())
    }

    /// Persistent memory for the keys: records, index and slack.
    pub(super) fn pmem_size(&self) -> u64 {
        let record = self.value_size as u64 + 40;
        (self.keys * record * 2 + self.keys * 32 + (256 << 20)).next_multiple_of(1 << 20)
    }

    pub(super) fn kv_args(
        &self,
        port: u16,
        ratio: &str,
        requests: u64,
    ) -> Result<KvArgs, LabError> {
        let args = [
            format!("--port={port}"),
            format!("--ratio={ratio}"),
            format!("--requests={requests}"),
            format!("--key-max={}", self.keys),
            format!("--value-size={}", self.value_size),
            format!("--connections={}", self.connections),
            "--pipeline=32".into(),
            "--quiet".into(),
        ];
        let mut kv = KvArgs::try_parse_from(args).map_err(|e| LabError::Config(e.to_string()))?;
        if ratio == "1:0" {
            kv.key_pattern = crate::kv::keys::KeyPattern::Sequential;
        }
        Ok(kv)
    }
}
