//! durable-cache's checkpoint under load (issues 3 and 35): a 1:9 load with a
//! per-second timeline and a `BGSAVE` a third of the way in (`INFO
//! persistence` polled every 50 ms to learn when it ends), and, for Strata,
//! control runs of the same length and load with no checkpoint, alternated
//! with the checkpointed runs on the same server (issue 35: a checkpoint is
//! judged against the seconds the same load gives without one, not against
//! the seconds around it).
//!
//! Their tables and plots are in `control`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::kv::Protocol;
use crate::lab::kv_step::{kv, At};
use crate::lab::run::{median, Measurement, Run};
use crate::lab::table::ratio;
use crate::LabError;

/// Configurations whose checkpoint under load is timed.
pub const CHECKPOINTED: [&str; 2] = ["strata, async logging", "redis, appendfsync everysec"];
/// The configuration also run without a checkpoint, as the control.
pub const CONTROLLED: &str = "strata, async logging";

/// Title of the checkpoint table (issue 3).
pub const CHECKPOINT: &str = "Checkpoint under a 1:9 load";
/// Title of the control comparison (issue 35).
pub const AGAINST_CONTROL: &str = "Checkpoint against interleaved control runs";

/// Step of the checkpointed runs.
pub const STEP_CHECKPOINT: &str = "checkpoint";
/// Step of the control runs.
pub const STEP_CONTROL: &str = "control";

/// Whether a timeline run checkpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `BGSAVE` a third of the way in.
    Checkpoint,
    /// The same load with no checkpoint.
    Control,
}

/// What a timeline run drives: the load's port and protocol, and the RESP
/// port for `BGSAVE` and `INFO`.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// Port of the load.
    pub port: u16,
    /// Protocol of the load.
    pub protocol: Protocol,
    /// RESP port of the same server.
    pub resp_port: u16,
}

/// The load of a timeline run.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// Key space.
    pub keys: u64,
    /// Value size, bytes.
    pub value: usize,
    /// Client connections.
    pub connections: usize,
    /// Length of the run, seconds.
    pub secs: f64,
}

/// Where a run belongs: configuration, round and pair within the round.
#[derive(Debug, Clone, Copy)]
pub struct Slot<'a> {
    /// Row of the tables.
    pub label: &'a str,
    /// Round from 0.
    pub round: usize,
    /// Pair (checkpointed run and control run) within the round, from 0.
    pub pair: usize,
}

/// Runs `pairs` checkpointed runs and, for [`CONTROLLED`], as many control
/// runs, alternating which comes first from pair to pair and round to round.
pub async fn timelines(
    run: &mut Run,
    load: Load,
    target: Target,
    (label, round): (&str, usize),
    pairs: usize,
) -> Result<(), LabError> {
    let controlled = label == CONTROLLED;
    for pair in 0..if controlled { pairs } else { 1 } {
        let slot = Slot { label, round, pair };
        let order = if !controlled {
            &[Kind::Checkpoint][..]
        } else if (round + pair) % 2 == 0 {
            &[Kind::Checkpoint, Kind::Control][..]
        } else {
            &[Kind::Control, Kind::Checkpoint][..]
        };
        for &kind in order {
            timeline(run, load, target, slot, kind).await?;
        }
    }
    Ok(())
}

/// Checkpoints finished so far, from `INFO persistence`.
async fn checkpoints(resp_port: u16) -> Result<f64, LabError> {
    let text = crate::restart::info::call(resp_port, &["INFO", "persistence"]).await?;
    Ok(text
        .lines()
        .find_map(|l| {
            let (k, v) = l.trim().split_once(':')?;
            ["strata_checkpoints", "rdb_saves"]
                .contains(&k)
                .then(|| v.parse::<f64>().ok())
                .flatten()
        })
        .unwrap_or(0.0))
}

/// One timeline run (see the module docs), recorded as step `checkpoint` or `control`.
async fn timeline(
    run: &mut Run,
    load: Load,
    target: Target,
    slot: Slot<'_>,
    kind: Kind,
) -> Result<(), LabError> {
    let Slot { label, round, pair } = slot;
    let what = match kind {
        Kind::Checkpoint => "checkpoint under load",
        Kind::Control => "control run, no checkpoint",
    };
    run.progress.step(
        label,
        &format!("round {}: {what} ({})", round + 1, pair + 1),
    );
    let argv = [
        "--ratio=1:9".to_owned(),
        format!("--key-max={}", load.keys),
        format!("--value-size={}", load.value),
        format!("--connections={}", load.connections),
        "--key-prefix=memtier-".into(),
        format!("--duration={}", load.secs),
        "--timeline".into(),
        format!("--seed={}", round * 100 + pair + 1),
    ];
    let resp_port = target.resp_port;
    let before = checkpoints(resp_port).await?;
    let started = Instant::now();
    let delay = Duration::from_secs_f64(load.secs / 3.0);
    let watch = async move {
        if kind == Kind::Control {
            return Ok::<_, LabError>(None);
        }
        tokio::time::sleep(delay).await;
        let begin = started.elapsed().as_secs_f64();
        crate::restart::info::call(resp_port, &["BGSAVE"]).await?;
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let text = crate::restart::info::call(resp_port, &["INFO", "persistence"]).await?;
            let busy = text.lines().any(|l| {
                [
                    "strata_checkpoint_in_progress:1",
                    "rdb_bgsave_in_progress:1",
                ]
                .contains(&l.trim())
            });
            if !busy || Instant::now() > deadline {
                return Ok(Some((begin, started.elapsed().as_secs_f64())));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let step = match kind {
        Kind::Checkpoint => "checkpoint timeline",
        Kind::Control => "control timeline",
    };
    let at = At {
        config: label,
        step,
        round,
    };
    let (result, span) = tokio::join!(kv(run, at, target.port, target.protocol, &argv), watch);
    let timeline = result?.timeline.unwrap_or_default();
    let span = span?;
    let during_run = checkpoints(resp_port).await? - before;
    let mut figures: BTreeMap<String, f64> =
        [("pair", pair as f64), ("checkpoints_finished", during_run)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
    let all: Vec<f64> = timeline.iter().map(|s| s.ops_per_sec).collect();
    if let Some(m) = median(&all) {
        figures.insert("median_ops".into(), m);
    }
    let command = match span {
        Some((begin, end)) => {
            let split = |inside: bool| -> Vec<f64> {
                timeline
                    .iter()
                    .filter(|s| overlaps(s.second, (begin, end)) == inside)
                    .map(|s| s.ops_per_sec)
                    .collect()
            };
            let (during, outside) = (split(true), split(false));
            let after: Vec<f64> = timeline
                .iter()
                .filter(|s| s.second as f64 >= end)
                .map(|s| s.ops_per_sec)
                .collect();
            let median_outside = median(&outside);
            let lowest = during.iter().copied().reduce(f64::min);
            for (name, value) in [
                ("checkpoint_start_s", Some(begin)),
                ("checkpoint_end_s", Some(end)),
                ("checkpoint_secs", Some(end - begin)),
                ("median_ops_outside", median_outside),
                ("lowest_ops_during", lowest),
                ("lowest_over_median", ratio(lowest, median_outside)),
                ("median_ops_after", median(&after)),
            ] {
                if let Some(v) = value {
                    figures.insert(name.into(), v);
                }
            }
            format!("BGSAVE on port {resp_port} {begin:.1} s into the timeline run above; INFO persistence every 50 ms")
        }
        None => "the timeline run above, no BGSAVE (the control)".into(),
    };
    run.measured(Measurement {
        config: label.into(),
        step: match kind {
            Kind::Checkpoint => STEP_CHECKPOINT,
            Kind::Control => STEP_CONTROL,
        }
        .into(),
        round,
        command,
        figures,
        raw: serde_json::to_value(&timeline).unwrap_or_default(),
    });
    Ok(())
}

/// Whether timeline second `second` overlaps the span `(begin, end)`.
pub fn overlaps(second: u64, (begin, end): (f64, f64)) -> bool {
    (second as f64) < end && (second as f64 + 1.0) > begin
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_overlaps_a_span_that_touches_its_inside() {
        assert!(overlaps(10, (10.5, 12.0)));
        assert!(overlaps(11, (10.5, 12.0)));
        assert!(!overlaps(12, (10.5, 12.0)));
        assert!(!overlaps(9, (10.0, 12.0)));
    }
}
