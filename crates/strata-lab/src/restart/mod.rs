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
//! - `args`: the options and scenarios; `report`: the result table and JSON.

mod args;
pub(crate) mod info;
pub mod report;

pub use args::{RestartArgs, Scenario};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::kv::run_kv;
use crate::spawn::ServerProcess;
use crate::LabError;
use report::{RestartResult, ScenarioResult};

/// How long a restart may take before the run fails.
const RESTART_TIMEOUT: Duration = Duration::from_secs(600);

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
