//! DBx1000 beside Strata's engine: its source tree (given, or kept by
//! `scripts/peers/dbx1000 --install` in `target/peers/dbx1000/src`), and a
//! round of it per concurrency control through that script, whose one
//! result line becomes a measurement.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::plan::CCS;
use crate::lab::run::{Measurement, Run};

/// Where `scripts/peers/dbx1000 --install` (or `clone`) keeps the source.
const INSTALLED_DBX1000: &str = "target/peers/dbx1000/src";

/// DBx1000's source tree, or why DBx1000 does not run.
pub(super) fn dbx1000_source(given: Option<&Path>, no_peer: bool) -> Result<PathBuf, String> {
    if let Some(src) = given {
        return Ok(src.to_owned());
    }
    if no_peer {
        return Err("--no-peer given".into());
    }
    let installed = PathBuf::from(INSTALLED_DBX1000);
    if installed.join("config.h").is_file() {
        return Ok(installed);
    }
    Err(format!(
        "no --dbx1000-src given and none installed in {INSTALLED_DBX1000} \
         (scripts/peers/dbx1000 --install SRC keeps a source tree there)"
    ))
}

/// One round of DBx1000 with each concurrency control: `peers_dir`'s
/// `dbx1000` script builds (once per configuration) and runs it.
pub(super) fn dbx1000(
    run: &mut Run,
    (peers_dir, src): (&Path, &Path),
    round: usize,
    (threads, warehouses): (usize, u32),
    planned: Duration,
) {
    let script = peers_dir.join("dbx1000");
    for (cc_label, _, alg) in CCS {
        let config = format!("DBx1000 {cc_label}");
        run.progress.step(&config, &format!("round {}", round + 1));
        let argv = [
            src.display().to_string(),
            "--cc".into(),
            alg.into(),
            "--threads".into(),
            threads.to_string(),
            "--warehouses".into(),
            warehouses.to_string(),
        ];
        let command = format!("{} {}", script.display(), argv.join(" "));
        let output = std::process::Command::new(&script).args(&argv).output();
        let line = match output {
            Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
                .lines()
                .last()
                .unwrap_or("")
                .to_owned(),
            Ok(o) => {
                let why = String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("failed")
                    .to_owned();
                run.skip(&config, &format!("{command}: {why}"));
                continue;
            }
            Err(e) => {
                run.skip(&config, &format!("{command}: {e}"));
                continue;
            }
        };
        let figures: BTreeMap<String, f64> = line
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .filter_map(|(k, v)| Some((k.to_owned(), v.parse::<f64>().ok()?)))
            .collect();
        run.measured(Measurement {
            config,
            step: "tpcc".into(),
            round,
            command,
            figures,
            raw: serde_json::Value::String(line),
        });
        run.progress.done(planned);
    }
}
