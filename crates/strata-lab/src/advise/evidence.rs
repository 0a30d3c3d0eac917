//! The lab's recorded runs under `--results DIR`: every `results.json` found
//! (up to three directories deep), read leniently (only what the advisor
//! needs), and the choice of the run that covers a question.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::lab::run::{median, Binary, Measurement};
use crate::LabError;

/// One `results.json`, as much of it as the advisor reads.
#[derive(Debug, Clone, Deserialize)]
pub struct RecordedRun {
    /// Where it was read from.
    #[serde(skip)]
    pub path: PathBuf,
    /// `kv-placement`, `durable-cache`, `search-tiers`, ...
    pub experiment: String,
    /// Start of the run, UTC.
    #[serde(default)]
    pub started_utc: String,
    /// The checkout's commit when the run was made.
    #[serde(default)]
    pub commit: Option<String>,
    /// The binary that measured and its commit (absent in older runs).
    #[serde(default)]
    pub binary: Option<Binary>,
    /// Whether quick sizes were used.
    #[serde(default)]
    pub quick: bool,
    /// Sizes and settings.
    #[serde(default)]
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// Raw figures.
    #[serde(default)]
    pub measurements: Vec<Measurement>,
}

impl RecordedRun {
    /// Median over rounds of `figure` of `config` at `step`.
    pub fn median(&self, config: &str, step: &str, figure: &str) -> Option<f64> {
        let values: Vec<f64> = self
            .measurements
            .iter()
            .filter(|m| m.config == config && m.step == step)
            .filter_map(|m| m.figures.get(figure).copied())
            .collect();
        median(&values)
    }

    /// A numeric parameter.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.parameters.get(name)?.as_f64()
    }

    /// How the run is cited: file, date, commit, sizes.
    pub fn cite(&self) -> String {
        format!(
            "{} ({}{}{})",
            self.path.display(),
            self.started_utc,
            match (&self.binary, &self.commit) {
                (Some(b), _) => format!(", commit {}", b.label()),
                (None, Some(c)) => format!(", commit {c}"),
                (None, None) => String::new(),
            },
            if self.quick { ", quick sizes" } else { "" }
        )
    }
}

/// Every recorded run found, and the files that could not be read.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// The runs.
    pub runs: Vec<RecordedRun>,
    /// `results.json` files skipped, with why.
    pub unreadable: Vec<String>,
}

impl Evidence {
    /// Reads every `results.json` under `dir`.
    pub fn load(dir: &Path) -> Result<Self, LabError> {
        if !dir.is_dir() {
            return Err(LabError::Config(format!(
                "--results {}: not a directory",
                dir.display()
            )));
        }
        let mut files = Vec::new();
        collect(dir, 0, &mut files);
        files.sort();
        let mut evidence = Self::default();
        for path in files {
            let parsed = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<RecordedRun>(&t).map_err(|e| e.to_string()));
            match parsed {
                Ok(mut run) => {
                    run.path = path;
                    evidence.runs.push(run);
                }
                Err(e) => evidence.unreadable.push(format!("{}: {e}", path.display())),
            }
        }
        Ok(evidence)
    }

    /// The run of `experiment` that best covers `value_size` (within a factor
    /// of two of it: values' cost per byte is not extrapolated further), full
    /// sizes before quick ones, then the newest. `Err` says what is missing.
    pub fn pick(&self, experiment: &str, value_size: Option<u64>) -> Result<&RecordedRun, String> {
        let of_kind: Vec<&RecordedRun> = self
            .runs
            .iter()
            .filter(|r| r.experiment == experiment)
            .collect();
        if of_kind.is_empty() {
            return Err(format!(
                "no `strata lab {experiment}` results under --results"
            ));
        }
        let distance = |r: &RecordedRun| match (value_size, r.number("value_size")) {
            (Some(want), Some(have)) if have > 0.0 && want > 0 => {
                Some((want as f64 / have).ln().abs())
            }
            (Some(_), _) => None,
            (None, _) => Some(0.0),
        };
        let covering: Vec<(&RecordedRun, f64)> = of_kind
            .iter()
            .filter_map(|r| Some((*r, distance(r)?)))
            .filter(|(_, d)| *d <= 2f64.ln() + 1e-9)
            .collect();
        let best = covering.into_iter().min_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then(a.0.quick.cmp(&b.0.quick))
                .then(b.0.started_utc.cmp(&a.0.started_utc))
        });
        best.map(|(r, _)| r).ok_or_else(|| {
            let sizes: Vec<String> = of_kind
                .iter()
                .filter_map(|r| r.number("value_size"))
                .map(|v| format!("{v:.0} B"))
                .collect();
            format!(
                "no `strata lab {experiment}` run at a value size near {} B (runs at: {})",
                value_size.unwrap_or(0),
                if sizes.is_empty() {
                    "unknown".to_owned()
                } else {
                    sizes.join(", ")
                }
            )
        })
    }
}

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && depth < 3 {
            collect(&path, depth + 1, out);
        } else if path.file_name().is_some_and(|n| n == "results.json") {
            out.push(path);
        }
    }
}

/// A figure at a read share, from figures measured at some read shares:
/// exact when measured, else interpolated on time per operation (a mix's
/// time per operation is its reads' and writes' weighted sum) between the two
/// nearest; `None` outside the measured range.
pub fn at_read_share(points: &[(f64, f64)], share: f64) -> Option<(f64, String)> {
    let mut p: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(_, v)| v.is_finite() && *v > 0.0)
        .collect();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    if let Some(&(s, v)) = p.iter().find(|(s, _)| (s - share).abs() < 0.005) {
        return Some((v, format!("measured at {:.0}% reads", s * 100.0)));
    }
    let hi = p.iter().position(|(s, _)| *s > share)?;
    let (s0, v0) = *p.get(hi.checked_sub(1)?)?;
    let (s1, v1) = p[hi];
    let w = (share - s0) / (s1 - s0);
    let per_op = (1.0 - w) / v0 + w / v1;
    Some((
        1.0 / per_op,
        format!(
            "interpolated between {:.0}% and {:.0}% reads",
            s0 * 100.0,
            s1 * 100.0
        ),
    ))
}

/// The measured point nearest a read share (for latencies, not interpolated).
pub fn nearest(points: &[(f64, f64)], share: f64) -> Option<(f64, f64)> {
    points
        .iter()
        .copied()
        .filter(|(_, v)| v.is_finite())
        .min_by(|a, b| (a.0 - share).abs().total_cmp(&(b.0 - share).abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_time_per_operation() {
        let points = [(0.0, 100.0), (0.5, 200.0), (1.0, 400.0)];
        assert_eq!(at_read_share(&points, 0.5).unwrap().0, 200.0);
        // Halfway between 200 and 400 ops/s in time per op: 1 / (0.0025 + 0.00125).
        let (v, how) = at_read_share(&points, 0.75).unwrap();
        assert!((v - 266.666).abs() < 0.01, "{v}");
        assert!(how.contains("50% and 100%"));
        assert!(at_read_share(&[(0.5, 1.0), (1.0, 2.0)], 0.2).is_none());
        assert_eq!(nearest(&points, 0.8), Some((1.0, 400.0)));
    }
}
