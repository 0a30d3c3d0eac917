//! A lab run and its directory: `report.md`, `results.json` and the plots.
//!
//! `results.json` holds every raw figure of every round with the exact command
//! that produced it ([`Measurement`]), every configuration not run with its
//! reason ([`Skip`]), the tables as reported (medians), the machine, the
//! binary that measured ([`Binary`]) and the plots' file names.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub use super::binary::Binary;
use super::machine::MachineInfo;
use super::progress::Progress;
use super::table::Table;
use crate::LabError;

/// One measured step of one configuration in one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// The configuration, as the tables' rows name it.
    pub config: String,
    /// The step (workload or phase), as the tables' columns name it.
    pub step: String,
    /// Round, from 0.
    pub round: usize,
    /// The exact command (or equivalent) that measured it.
    pub command: String,
    /// Named figures, e.g. `ops_per_sec`, `p99_ms`.
    pub figures: BTreeMap<String, f64>,
    /// The load generator's full result.
    #[serde(default)]
    pub raw: serde_json::Value,
}

/// A configuration or peer that was not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skip {
    /// The configuration or peer.
    pub config: String,
    /// Why.
    pub reason: String,
}

/// Everything `results.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The experiment, e.g. `kv-placement`.
    pub experiment: String,
    /// Which seed document it reproduces.
    pub seed: String,
    /// Strata's version.
    pub version: String,
    /// The git commit of the working directory the lab ran in, when it is a
    /// checkout: not necessarily what was measured (see `binary`).
    pub commit: Option<String>,
    /// The `strata` executable that served or measured, with the commit it
    /// was built from; absent in runs recorded before the lab asked it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<Binary>,
    /// Start of the run, UTC.
    pub started_utc: String,
    /// Wall time of the run, seconds.
    pub elapsed_secs: f64,
    /// Whether `--quick` sizes were used.
    pub quick: bool,
    /// Interleaved rounds; tables show medians over them.
    pub rounds: usize,
    /// The command line of the run.
    pub command: String,
    /// The machine.
    pub machine: MachineInfo,
    /// Sizes and settings of the experiment.
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// Every raw figure.
    pub measurements: Vec<Measurement>,
    /// What was not run, and why.
    pub skipped: Vec<Skip>,
    /// The report's tables.
    pub tables: Vec<Table>,
    /// Plot files in the run directory.
    pub plots: Vec<String>,
    /// Remarks made while running.
    pub notes: Vec<String>,
}

impl Results {
    /// Reads a `results.json`.
    pub fn load(path: &Path) -> Result<Self, LabError> {
        let fail = |reason: String| LabError::Config(format!("{}: {reason}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        serde_json::from_str(&text).map_err(|e| fail(e.to_string()))
    }

    /// The table titled `title`.
    pub fn table(&self, title: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.title == title)
    }

    /// The commit the run's figures are labelled with: the measuring
    /// binary's (short, or `unknown` when it named none); for runs recorded
    /// before the binary was asked, the checkout's as then (`not recorded`
    /// when absent).
    pub fn commit_label(&self) -> String {
        match &self.binary {
            Some(binary) => binary.label(),
            None => self
                .commit
                .as_deref()
                .map_or("not recorded".into(), |c| c.chars().take(7).collect()),
        }
    }
}

/// A run in progress.
#[derive(Debug)]
pub struct Run {
    /// What will be written.
    pub results: Results,
    /// The run directory.
    pub dir: PathBuf,
    /// Where servers and probes put their files (a real disk by default).
    pub data_dir: PathBuf,
    /// Persistent memory files go here (tmpfs emulates it).
    pub pmem_dir: PathBuf,
    /// The display.
    pub progress: Progress,
    started: std::time::Instant,
}

impl Run {
    /// Creates the run directory and describes the machine and `binary`, the
    /// `strata` executable that serves or measures (`None`: this one).
    pub fn start(
        experiment: &str,
        seed: &str,
        common: &super::common::CommonArgs,
        planned: Duration,
        binary: Option<&Path>,
    ) -> Result<Self, LabError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let iso = crate::eventdata::timestamp::iso(now.as_millis() as i64);
        let dir = common.out.clone().unwrap_or_else(|| {
            let stamp: String = iso
                .chars()
                .filter(|c| c.is_ascii_digit())
                .take(14)
                .collect();
            PathBuf::from("lab-results").join(format!("{experiment}-{stamp}"))
        });
        let fail = |source| LabError::WriteResult {
            path: dir.clone(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(fail)?;
        std::fs::create_dir_all(&common.data_dir).map_err(fail)?;
        let progress = Progress::new(experiment, planned, !common.no_progress);
        progress.step("machine", "probing fsync latency and random-read IOPS");
        let machine = MachineInfo::probe(&common.data_dir, common.quick).map_err(fail)?;
        let commit = std::process::Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
        let binary = Binary::ask(binary);
        if let Some(why) = &binary.error {
            progress.note(&format!("{}: its commit is unknown: {why}", binary.path));
        }
        let command: Vec<String> = std::env::args().collect();
        Ok(Self {
            results: Results {
                experiment: experiment.into(),
                seed: seed.into(),
                version: env!("CARGO_PKG_VERSION").into(),
                commit,
                binary: Some(binary),
                started_utc: iso,
                elapsed_secs: 0.0,
                quick: common.quick,
                rounds: common.rounds(),
                command: command.join(" "),
                machine,
                parameters: BTreeMap::new(),
                measurements: Vec::new(),
                skipped: Vec::new(),
                tables: Vec::new(),
                plots: Vec::new(),
                notes: Vec::new(),
            },
            dir,
            data_dir: common.data_dir.clone(),
            pmem_dir: common.pmem_dir.clone(),
            progress,
            started: std::time::Instant::now(),
        })
    }

    /// Records a parameter of the experiment.
    pub fn param(&mut self, name: &str, value: impl Serialize) {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.results.parameters.insert(name.into(), value);
    }

    /// Records a configuration not run.
    pub fn skip(&mut self, config: &str, reason: &str) {
        self.progress.note(&format!("{config}: skipped: {reason}"));
        self.results.skipped.push(Skip {
            config: config.into(),
            reason: reason.into(),
        });
    }

    /// Records a remark for the report.
    pub fn note(&mut self, line: String) {
        self.progress.note(&line);
        self.results.notes.push(line);
    }

    /// Records a measurement.
    pub fn measured(&mut self, m: Measurement) {
        self.results.measurements.push(m);
    }

    /// Medians over the rounds of figure `figure` of `config` at `step`.
    pub fn median(&self, config: &str, step: &str, figure: &str) -> Option<f64> {
        let values: Vec<f64> = self
            .results
            .measurements
            .iter()
            .filter(|m| m.config == config && m.step == step)
            .filter_map(|m| m.figures.get(figure).copied())
            .collect();
        median(&values)
    }

    /// Adds plot files, or a note when plots cannot be drawn.
    pub fn plotted(&mut self, outcome: Result<Vec<String>, String>) {
        match outcome {
            Ok(files) => self.results.plots.extend(files),
            Err(why) => {
                if !self.results.notes.iter().any(|n| n.contains(&why)) {
                    self.note(format!("plots not drawn: {why}"));
                }
            }
        }
    }

    /// Writes `results.json` and `report.md`; returns the run directory.
    pub fn finish(mut self, intro: &str) -> Result<PathBuf, LabError> {
        self.progress.finish();
        self.results.elapsed_secs = self.started.elapsed().as_secs_f64();
        let json_path = self.dir.join("results.json");
        let fail = |path: &Path| {
            let path = path.to_owned();
            move |source| LabError::WriteResult { path, source }
        };
        let mut json = serde_json::to_vec_pretty(&self.results)
            .map_err(|e| fail(&json_path)(std::io::Error::other(e)))?;
        json.push(b'\n');
        std::fs::write(&json_path, json).map_err(fail(&json_path))?;
        let report_path = self.dir.join("report.md");
        std::fs::write(&report_path, self.report(intro)).map_err(fail(&report_path))?;
        Ok(self.dir)
    }

    fn report(&self, intro: &str) -> String {
        let r = &self.results;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# strata lab {} (seed {})\n\n{intro}\n",
            r.experiment, r.seed
        );
        let _ = writeln!(
            out,
            "Run {} (Strata {}{}), {} round(s){}, {:.0} s. Command: `{}`\n",
            r.started_utc,
            r.version,
            provenance(r),
            r.rounds,
            if r.quick {
                ", quick sizes (not comparable with full runs)"
            } else {
                ""
            },
            r.elapsed_secs,
            r.command
        );
        let _ = writeln!(out, "## Machine\n\n{}", r.machine.markdown());
        if !r.parameters.is_empty() {
            let _ = writeln!(out, "## Parameters\n");
            for (name, value) in &r.parameters {
                let _ = writeln!(out, "- {name}: {value}");
            }
            out.push('\n');
        }
        let _ = writeln!(out, "## Results\n");
        for table in &r.tables {
            out.push_str(&table.markdown());
        }
        if !r.plots.is_empty() {
            let _ = writeln!(out, "## Plots\n");
            for plot in r.plots.iter().filter(|p| p.ends_with(".png")) {
                let _ = writeln!(out, "![{plot}]({plot})\n");
            }
        }
        if !r.skipped.is_empty() {
            let _ = writeln!(out, "## Not run\n");
            for s in &r.skipped {
                let _ = writeln!(out, "- {}: {}", s.config, s.reason);
            }
            out.push('\n');
        }
        if !r.notes.is_empty() {
            let _ = writeln!(out, "## Notes\n");
            for n in &r.notes {
                let _ = writeln!(out, "- {n}");
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "Every raw figure, per round, with the exact command, is in `results.json`."
        );
        out
    }
}

/// What measured, for the report's first line: the binary, its version line
/// and commit, and the checkout's commit when it differs.
fn provenance(r: &Results) -> String {
    let checkout = r.commit.as_deref();
    let Some(b) = &r.binary else {
        return checkout
            .map(|c| format!(", commit {c}"))
            .unwrap_or_default();
    };
    let mut out = format!(", measured with `{}`", b.path);
    match (&b.version_line, &b.error) {
        (Some(line), _) => out.push_str(&format!(" ({line})")),
        (None, Some(why)) => out.push_str(&format!(" (commit unknown: {why})")),
        (None, None) => {}
    }
    let differs = match (checkout, b.commit.as_deref()) {
        (Some(c), Some(m)) => !m.starts_with(c),
        (Some(_), None) => true,
        _ => false,
    };
    if let (true, Some(c)) = (differs, checkout) {
        out.push_str(&format!("; the checkout is at commit {c}"));
    }
    out
}

/// The median (mean of the middle two for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }
}
