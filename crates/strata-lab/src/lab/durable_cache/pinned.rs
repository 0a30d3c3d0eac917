//! durable-cache's pinned comparison (issue 35): Strata's synchronous logging
//! against Redis `appendfsync always`, set-only, with the server's threads on
//! one core and the load generator's (this process's) on the other, as
//! `taskset` would place them, so neither side's throughput is a contest of
//! scheduling with the other. The fsync latency of the data directory's
//! device, probed at the start of the same run, is quoted beside the ratio.

use std::path::Path;

use rustix::process::Pid;
use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};

use crate::kv::Protocol;
use crate::lab::kv_step::{kv, At};
use crate::lab::run::Run;
use crate::lab::table::{number, ratio, Cell, Table};
use crate::LabError;

/// Title of the table.
pub const PINNED: &str = "Sync logging against Redis always, pinned";
/// The step of the measurements.
pub const STEP: &str = "pinned set-only";
/// The rows, in order.
pub const ROWS: [&str; 2] = ["strata, sync logging", "redis, appendfsync always"];
/// The core the servers run on; the client runs on core 0.
const SERVER_CPU: usize = 1;
const CLIENT_CPU: usize = 0;

fn one_cpu(cpu: usize) -> CpuSet {
    let mut set = CpuSet::new();
    set.set(cpu);
    set
}

/// Sets the affinity of every thread of process `pid` (`/proc/<pid>/task`);
/// threads it starts later inherit it from their creator.
pub fn pin(pid: u32, set: &CpuSet) -> std::io::Result<()> {
    for entry in std::fs::read_dir(Path::new("/proc").join(pid.to_string()).join("task"))? {
        let tid = entry?.file_name().to_string_lossy().parse::<i32>().ok();
        if let Some(tid) = tid.and_then(Pid::from_raw) {
            match sched_setaffinity(Some(tid), set) {
                // A thread that exited meanwhile.
                Err(rustix::io::Errno::SRCH) => {}
                other => other?,
            }
        }
    }
    Ok(())
}

/// The load generator on core 0 until dropped, then back where it was.
struct ClientPinned(CpuSet);

impl ClientPinned {
    fn new() -> std::io::Result<Self> {
        let before = sched_getaffinity(None)?;
        pin(std::process::id(), &one_cpu(CLIENT_CPU))?;
        Ok(Self(before))
    }
}

impl Drop for ClientPinned {
    fn drop(&mut self) {
        if let Err(e) = pin(std::process::id(), &self.0) {
            eprintln!("strata lab: could not restore the CPU affinity: {e}");
        }
    }
}

/// Whether the machine has the two cores the comparison needs.
pub fn possible(run: &Run) -> Result<(), String> {
    if run.results.machine.cores < 2 {
        return Err(format!(
            "needs 2 cores (client and server on their own), {} available",
            run.results.machine.cores
        ));
    }
    Ok(())
}

/// Pins the server `pid` to its core and this process to the other, then
/// runs the set-only load (`argv`) against it.
pub async fn measure(
    run: &mut Run,
    (label, round): (&str, usize),
    (pid, port, protocol): (u32, u16, Protocol),
    argv: &[String],
) -> Result<(), LabError> {
    run.progress
        .step(label, &format!("round {}: set-only, pinned", round + 1));
    pin(pid, &one_cpu(SERVER_CPU)).map_err(|source| LabError::Affinity {
        what: format!("the server (pid {pid})"),
        source,
    })?;
    let _client = ClientPinned::new().map_err(|source| LabError::Affinity {
        what: "the load generator".into(),
        source,
    })?;
    kv(
        run,
        At {
            config: label,
            step: STEP,
            round,
        },
        port,
        protocol,
        argv,
    )
    .await?;
    Ok(())
}

/// The table, with the fsync latency probed at the start of the run.
pub fn table(run: &mut Run, skipped: &dyn Fn(&str) -> Option<String>) {
    let mut t = Table::new(
        PINNED,
        "set-only operations/s, median over rounds; server on core 1, client on core 0",
        &["ops/s", "p99 ms"],
    );
    for label in ROWS {
        let cells = ["ops_per_sec", "p99_ms"]
            .iter()
            .map(|f| match skipped(label) {
                Some(why) => Cell::Skipped(why),
                None => Cell::from_option(run.median(label, STEP, f), "no measurement"),
            })
            .collect();
        t.push(label, cells, None);
    }
    let storage = &run.results.machine.storage;
    let (s, r) = (t.get(ROWS[0], "ops/s"), t.get(ROWS[1], "ops/s"));
    t.verdict = match ratio(s, r) {
        Some(x) => format!(
            "Issue 35's target: synchronous logging at least 1.5x Redis `appendfsync always`, \
             each server pinned to its own core and the client to the other. Here {} against {} \
             ops/s = {x:.2}x: {}. The device's fsync latency in this run (4 KiB write + \
             fdatasync, probed before the servers started): p50 {:.0} µs, p99 {:.0} µs.",
            number(s.unwrap_or_default()),
            number(r.unwrap_or_default()),
            if x >= 1.5 { "met" } else { "missed" },
            storage.fsync_p50_us,
            storage.fsync_p99_us,
        ),
        None => "Not measured (see the rows).".into(),
    };
    run.results.tables.push(t);
}
