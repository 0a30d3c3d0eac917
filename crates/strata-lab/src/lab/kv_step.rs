//! One `strata bench kv` step of an experiment, run in process and recorded as a
//! [`Measurement`] with the equivalent command line.

use std::collections::BTreeMap;

use crate::kv::{run_kv, KvArgs, KvResult, Protocol};
use crate::LabError;

use super::run::{Measurement, Run};

/// Where a step belongs: configuration, step name, round.
pub struct At<'a> {
    /// Row of the tables.
    pub config: &'a str,
    /// Column of the tables.
    pub step: &'a str,
    /// Round from 0.
    pub round: usize,
}

/// Runs `strata bench kv <argv> --port P --protocol X --quiet` and records it.
pub async fn kv(
    run: &mut Run,
    at: At<'_>,
    port: u16,
    protocol: Protocol,
    argv: &[String],
) -> Result<KvResult, LabError> {
    let mut full: Vec<String> = vec![
        format!("--port={port}"),
        format!("--protocol={}", protocol.name()),
        "--quiet".into(),
    ];
    full.extend(argv.iter().cloned());
    let args = KvArgs::try_parse_from(&full).map_err(|e| LabError::Config(e.to_string()))?;
    let result = run_kv(&args).await?;
    let l = &result.latency_ms;
    let figures: BTreeMap<String, f64> = [
        ("ops_per_sec", result.ops_per_sec),
        ("mean_ms", l.mean),
        ("p50_ms", l.p50),
        ("p90_ms", l.p90),
        ("p95_ms", l.p95),
        ("p99_ms", l.p99),
        ("p999_ms", l.p999),
        ("max_ms", l.max),
        ("errors", result.errors as f64),
        ("misses", result.misses as f64),
        ("ops", result.ops as f64),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    run.measured(Measurement {
        config: at.config.into(),
        step: at.step.into(),
        round: at.round,
        command: format!("strata bench kv {}", full.join(" ")),
        figures,
        raw: serde_json::to_value(&result).unwrap_or_default(),
    });
    Ok(result)
}

/// `n` bytes as a size option (`64mb`).
pub fn size_arg(bytes: u64) -> String {
    format!("{}mb", bytes.div_ceil(1 << 20).max(1))
}
