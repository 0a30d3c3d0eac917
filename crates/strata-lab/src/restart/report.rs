//! Results of `strata bench restart`: per scenario, the load and the
//! restart; the table printed and the JSON written.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::{RestartArgs, Scenario};
use crate::kv::report::Machine;
use crate::LabError;

/// One scenario's figures.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioResult {
    /// The placement restarted.
    pub scenario: Scenario,
    /// Keys loaded.
    pub keys: u64,
    /// Time to load them.
    pub load_secs: f64,
    /// Sets per second while loading.
    pub load_ops_per_sec: f64,
    /// Process start until both ports accept connections.
    pub restart_secs: f64,
    /// The server's own restore time (`INFO`), when it reports one.
    pub server_restore_ms: Option<u64>,
    /// Keys the restarted server holds (`INFO keyspace`).
    pub items_restored: Option<u64>,
    /// Keys read back after the restart.
    pub checked: u64,
    /// Of those, missing: must be 0.
    pub misses: u64,
    /// Request errors while reading back: must be 0.
    pub errors: u64,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RestartResult {
    /// The machine the run was on.
    pub machine: Machine,
    /// Value size of the loaded keys.
    pub value_size: usize,
    /// Per scenario, in the order run.
    pub scenarios: Vec<ScenarioResult>,
}

impl RestartResult {
    pub(super) fn new(args: &RestartArgs, scenarios: Vec<ScenarioResult>) -> Self {
        Self {
            machine: Machine::current(),
            value_size: args.value_size,
            scenarios,
        }
    }

    /// Restart time of `slow` divided by that of `fast`, if both ran.
    pub fn speedup(&self, fast: Scenario, slow: Scenario) -> Option<f64> {
        let time = |s| {
            self.scenarios
                .iter()
                .find(|r| r.scenario == s)
                .map(|r| r.restart_secs)
        };
        Some(time(slow)? / time(fast)?)
    }

    /// The human table.
    pub fn render(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<10} {:>11} {:>9} {:>12} {:>11} {:>12} {:>11} {:>8}",
            "scenario", "keys", "load s", "restart s", "server ms", "items", "checked", "misses"
        );
        for r in &self.scenarios {
            let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
            let _ = writeln!(
                t,
                "{:<10} {:>11} {:>9.1} {:>12.3} {:>11} {:>12} {:>11} {:>8}",
                r.scenario.name(),
                r.keys,
                r.load_secs,
                r.restart_secs,
                opt(r.server_restore_ms),
                opt(r.items_restored),
                r.checked,
                r.misses
            );
        }
        for (fast, slow) in [
            (Scenario::PmemPmem, Scenario::DramPmem),
            (Scenario::PmemPmem, Scenario::DramLog),
            (Scenario::PmemSsd, Scenario::DramSsd),
        ] {
            if let Some(x) = self.speedup(fast, slow) {
                let (fast, slow) = (fast.name(), slow.name());
                let _ = writeln!(t, "{fast} restarts {x:.1}x faster than {slow}");
            }
        }
        t
    }

    /// Fails unless every key came back.
    pub fn check(&self) -> Result<(), LabError> {
        match self.scenarios.iter().find(|r| r.misses > 0 || r.errors > 0) {
            Some(r) => Err(LabError::Check(format!(
                "{:?}: {} of {} keys missing and {} errors after the restart",
                r.scenario, r.misses, r.checked, r.errors
            ))),
            None => Ok(()),
        }
    }

    /// Writes the JSON file.
    pub fn write_json(&self, path: &Path) -> Result<(), LabError> {
        let fail = |source| LabError::WriteResult {
            path: path.to_owned(),
            source,
        };
        let mut json = serde_json::to_vec_pretty(self).map_err(|e| fail(e.into()))?;
        json.push(b'\n');
        std::fs::write(path, json).map_err(fail)
    }
}
