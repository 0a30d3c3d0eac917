//! `strata bench restart`: how long a server takes to serve again after a
//! crash, per placement of the index and the records.
//!
//! For each scenario: start `strata serve` with the scenario's options
//! (persistent memory in a file under `--pmem-dir`), load `--keys` keys with
//! pipelined sets, kill the server with SIGKILL, start it again and time
//! the process start until it accepts connections (it listens only once its
//! keyspace is restored), then read every key back over a sample and
//! require no miss. Scenarios:
//! - `pmem-pmem`: index and records in persistent memory (the index is
//!   adopted as found: instant restart);
//! - `dram-pmem`: records in persistent memory, index rebuilt by scanning
//!   them;
//! - `dram-log`: everything in DRAM, rebuilt from a snapshot
//!   (`--persistence async`, automatic checkpoints off, a SAVE after the
//!   load);
//! - `dram-ssd`: records on the SSD tier (a file under `--ssd-dir`), index
//!   rebuilt by scanning its write blocks (the kill comes a second after
//!   the load, once the periodic flush has made it durable);
//! - `pmem-ssd`: records on the SSD tier, index and stubs in persistent
//!   memory (adopted as found, the SSD's block headers checked: instant
//!   restart).
//!
//! - `info`: reading `INFO tiers` / `INFO persistence` fields over RESP.
//! - `report`: the result table and JSON.

pub(crate) mod info;
pub mod report;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use crate::kv::{run_kv, KvArgs};
use crate::spawn::ServerProcess;
use crate::LabError;
use report::{RestartResult, ScenarioResult};

/// How long a restart may take before the run fails.
const RESTART_TIMEOUT: Duration = Duration::from_secs(600);

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
    fn options(self, pmem: &std::path::Path, pmem_size: u64, ssd: &std::path::Path) -> Vec<String> {
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
    fn pmem_size(&self) -> u64 {
        let record = self.value_size as u64 + 40;
        (self.keys * record * 2 + self.keys * 32 + (256 << 20)).next_multiple_of(1 << 20)
    }

    fn kv_args(&self, port: u16, ratio: &str, requests: u64) -> Result<KvArgs, LabError> {
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

/// Runs every scenario and prints the table.
pub async fn run_restart(args: &RestartArgs) -> Result<RestartResult, LabError> {
    args.validate()?;
    let mut scenarios = Vec::new();
    for &scenario in &args.scenarios {
        scenarios.push(run_scenario(args, scenario).await?);
    }
    Ok(RestartResult::new(args, scenarios))
}

async fn run_scenario(args: &RestartArgs, scenario: Scenario) -> Result<ScenarioResult, LabError> {
    let pmem = args.pmem_dir.join(format!(
        "strata-bench-restart-{}-{}.pmem",
        std::process::id(),
        scenario.name()
    ));
    let ssd = args.ssd_dir.join(format!(
        "strata-bench-restart-{}-{}.ssd",
        std::process::id(),
        scenario.name()
    ));
    let _remove = (RemoveOnDrop(pmem.clone()), RemoveOnDrop(ssd.clone()));
    let mut options = args.server_args.clone();
    options.extend(["--memory-limit".into(), "64gb".into()]);
    options.extend(scenario.options(&pmem, args.pmem_size(), &ssd));
    let mut server = ServerProcess::start(args.server_binary.as_deref(), &options).await?;
    let port = server.port(crate::kv::protocol::Protocol::Resp);

    eprintln!("{}: loading {} keys", scenario.name(), args.keys);
    let load_started = Instant::now();
    let load = run_kv(&args.kv_args(port, "1:0", args.keys)?).await?;
    let load_secs = load_started.elapsed().as_secs_f64();
    if load.errors > 0 {
        return Err(LabError::Check(format!(
            "{}: {} errors while loading",
            scenario.name(),
            load.errors
        )));
    }
    if scenario == Scenario::DramLog {
        info::save(port).await?;
    }
    if matches!(scenario, Scenario::DramSsd | Scenario::PmemSsd) {
        // Ten flush intervals: everything loaded is durable.
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    server.kill_now();
    eprintln!("{}: killed; restarting", scenario.name());
    let restart = server.restart(RESTART_TIMEOUT).await?;
    let fields = info::fields(port).await?;
    let check = run_kv(&args.kv_args(port, "0:1", args.keys.min(200_000))?).await?;
    server.stop_in_place().await?;
    let server_ms = fields
        .get("tier_restart_ms")
        .or_else(|| fields.get("tier_ssd_rebuild_ms"))
        .or_else(|| fields.get("strata_recovery_ms"))
        .and_then(|v| v.parse().ok());
    let items = fields.get("keys").and_then(|v| v.parse().ok());
    Ok(ScenarioResult {
        scenario,
        keys: args.keys,
        load_secs,
        load_ops_per_sec: load.ops_per_sec,
        restart_secs: restart.as_secs_f64(),
        server_restore_ms: server_ms,
        items_restored: items,
        checked: check.gets,
        misses: check.misses,
        errors: check.errors,
    })
}

/// Removes a scenario's persistent-memory file or SSD directory when the
/// scenario ends, however it ends.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
