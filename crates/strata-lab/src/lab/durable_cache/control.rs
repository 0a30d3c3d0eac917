//! durable-cache's checkpoint tables and plots (see `checkpoint` for
//! the runs): the issue-3 table (each checkpoint's lowest second against the
//! median second outside it) and the issue-35 comparison, which pools over
//! every pair the seconds that overlap the checkpoint in the checkpointed run
//! and the same seconds of its control run, and compares their 5th
//! percentiles and medians; the first timelines, and the checkpointed runs'
//! per-second medians against the control runs'.

use std::collections::BTreeMap;

use super::checkpoint::{
    overlaps, AGAINST_CONTROL, CHECKPOINT, CHECKPOINTED, CONTROLLED, STEP_CHECKPOINT, STEP_CONTROL,
};
use crate::lab::plot::{line_chart, Line};
use crate::lab::run::{median, Measurement, Run};
use crate::lab::table::{number, ratio, Cell, Table};

/// A configuration's per-second points and its checkpoint's span.
type Timeline = (String, Vec<(f64, f64)>, (f64, f64));

/// The `q` quantile (0..=1) by linear interpolation between closest ranks.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let at = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    Some(v[lo] + (v[hi] - v[lo]) * (at - lo as f64))
}

/// (second, ops/s) of a measurement's timeline.
fn seconds(m: &Measurement) -> Vec<(u64, f64)> {
    m.raw.as_array().map_or_else(Vec::new, |a| {
        a.iter()
            .filter_map(|s| Some((s["second"].as_u64()?, s["ops_per_sec"].as_f64()?)))
            .collect()
    })
}

fn span(m: &Measurement) -> Option<(f64, f64)> {
    Some((
        *m.figures.get("checkpoint_start_s")?,
        *m.figures.get("checkpoint_end_s")?,
    ))
}

/// The seconds during each checkpoint and the same seconds of its pair's
/// control run, pooled; and how many control runs were left out because an
/// automatic checkpoint ran in them.
fn pooled(run: &Run) -> (Vec<f64>, Vec<f64>, usize) {
    let ms = &run.results.measurements;
    let (mut during, mut control, mut spoiled) = (Vec::new(), Vec::new(), 0);
    for t in ms
        .iter()
        .filter(|m| m.config == CONTROLLED && m.step == STEP_CHECKPOINT)
    {
        let Some(window) = span(t) else { continue };
        let pair = t.figures.get("pair");
        let Some(c) = ms.iter().find(|m| {
            m.config == CONTROLLED
                && m.step == STEP_CONTROL
                && m.round == t.round
                && m.figures.get("pair") == pair
        }) else {
            continue;
        };
        if c.figures
            .get("checkpoints_finished")
            .is_some_and(|&n| n > 0.0)
        {
            spoiled += 1;
            continue;
        }
        let inside = |m: &Measurement| -> Vec<f64> {
            seconds(m)
                .into_iter()
                .filter(|&(s, _)| overlaps(s, window))
                .map(|(_, v)| v)
                .collect()
        };
        during.extend(inside(t));
        control.extend(inside(c));
    }
    (during, control, spoiled)
}

/// The issue-3 table (lowest second against the median outside) and the
/// issue-35 table (against the control runs).
pub fn tables(run: &mut Run, skipped: &dyn Fn(&str) -> bool) {
    let cols = [
        "checkpoint s",
        "median ops/s outside",
        "lowest ops/s during",
        "lowest / median",
        "median ops/s after",
    ];
    let figs = [
        "checkpoint_secs",
        "median_ops_outside",
        "lowest_ops_during",
        "lowest_over_median",
        "median_ops_after",
    ];
    let mut cp = Table::new(
        CHECKPOINT,
        "per-second throughput while a BGSAVE checkpoint runs",
        &cols,
    );
    for label in CHECKPOINTED {
        let cells = figs
            .iter()
            .map(|f| {
                if skipped(label) {
                    Cell::Skipped("not installed".into())
                } else {
                    Cell::from_option(run.median(label, STEP_CHECKPOINT, f), "no measurement")
                }
            })
            .collect();
        cp.push(label, cells, None);
    }
    let s = CONTROLLED;
    let dip = cp.get(s, "lowest / median");
    let recovered = ratio(
        cp.get(s, "median ops/s after"),
        cp.get(s, "median ops/s outside"),
    );
    cp.verdict = match (dip, recovered) {
        (Some(d), Some(r)) => format!(
            "The seed: a checkpoint causes a visible, temporary throughput dip. Here Strata's \
             lowest second during the checkpoint is {:.0}% of the median second outside it (a \
             dip {}), and after it throughput is {:.0}% of that median ({}).",
            d * 100.0,
            if d < 0.9 { "is visible, as in the seed" } else { "is not visible: the paced checkpoint avoids the seed's dip" },
            r * 100.0,
            if r >= 0.9 { "temporary" } else { "not recovered within the run" }
        ),
        _ => "The checkpoint's dip could not be computed (the checkpoint outlasted the run or was not measured).".into(),
    };
    run.results.tables.push(cp);
    run.results.tables.push(against_control(run));
}

fn against_control(run: &Run) -> Table {
    let (during, control, spoiled) = pooled(run);
    let p5 = (quantile(&during, 0.05), quantile(&control, 0.05));
    let mid = (median(&during), median(&control));
    let (p5_ratio, mid_ratio) = (ratio(p5.0, p5.1), ratio(mid.0, mid.1));
    let mut t = Table::new(
        AGAINST_CONTROL,
        "per-second throughput (operations/s) of the seconds a checkpoint overlaps, \
         pooled over every pair, against the same seconds of the pair's control run",
        &[
            "p5 during checkpoint",
            "p5 control",
            "p5 ratio",
            "median during checkpoint",
            "median control",
            "median ratio",
            "seconds",
        ],
    );
    let cells = [p5.0, p5.1, p5_ratio, mid.0, mid.1, mid_ratio]
        .into_iter()
        .map(|v| Cell::from_option(v, "no measurement"))
        .chain([Cell::Value(during.len() as f64)])
        .collect();
    t.push(CONTROLLED, cells, None);
    let spoiled = if spoiled > 0 {
        format!(" {spoiled} control run(s) were left out: an automatic checkpoint ran during them.")
    } else {
        String::new()
    };
    t.verdict = match (p5_ratio, mid_ratio) {
        (Some(p), Some(m)) => {
            let met = p >= 0.95 && (0.97..=1.03).contains(&m);
            format!(
                "Issue 35's target: the 5th-percentile second during the checkpoint at least \
                 0.95x that of the control runs, and the median within 3%. Here {} seconds: \
                 p5 {} against {} ops/s = {p:.3}x, median {} against {} = {m:.3}x: {}.{spoiled}",
                during.len(),
                number(p5.0.unwrap_or_default()),
                number(p5.1.unwrap_or_default()),
                number(mid.0.unwrap_or_default()),
                number(mid.1.unwrap_or_default()),
                if met { "met" } else { "missed" },
            )
        }
        _ => format!("No checkpoint and control pair was measured.{spoiled}"),
    };
    t
}

/// Per-second medians over the runs of `step` (the x of each point is the middle of its second).
fn median_timeline(run: &Run, step: &str) -> Vec<(f64, f64)> {
    let mut by_second: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for m in run
        .results
        .measurements
        .iter()
        .filter(|m| m.config == CONTROLLED && m.step == step)
    {
        for (s, v) in seconds(m) {
            by_second.entry(s).or_default().push(v);
        }
    }
    by_second
        .into_iter()
        .filter_map(|(s, v)| Some((s as f64 + 0.5, median(&v)?)))
        .collect()
}

/// The first round's timelines (Strata and Redis), and Strata's checkpointed
/// runs against its control runs (per-second medians over the runs).
pub fn plots(run: &mut Run) {
    let firsts: Vec<Timeline> = CHECKPOINTED
        .iter()
        .filter_map(|label| {
            let m = run
                .results
                .measurements
                .iter()
                .find(|m| m.config == *label && m.step == STEP_CHECKPOINT)?;
            let points = seconds(m)
                .into_iter()
                .map(|(s, v)| (s as f64 + 0.5, v))
                .collect();
            Some(((*label).to_owned(), points, span(m)?))
        })
        .collect();
    if !firsts.is_empty() {
        let lines: Vec<Line<'_>> = firsts
            .iter()
            .map(|(n, p, span)| Line {
                name: n,
                points: p.clone(),
                spans: vec![*span],
            })
            .collect();
        let out = line_chart(
            &run.dir,
            "checkpoint-timeline",
            "1:9 load with a checkpoint (shaded)",
            ("second", "operations/s"),
            &lines,
        );
        run.plotted(out);
    }
    let spans: Vec<(f64, f64)> = run
        .results
        .measurements
        .iter()
        .filter(|m| m.config == CONTROLLED && m.step == STEP_CHECKPOINT)
        .filter_map(span)
        .collect();
    let treated = median_timeline(run, STEP_CHECKPOINT);
    let control = median_timeline(run, STEP_CONTROL);
    if treated.is_empty() || control.is_empty() {
        return;
    }
    let runs = spans.len();
    let (Some(first), Some(last)) = (
        spans.iter().map(|s| s.0).reduce(f64::min),
        spans.iter().map(|s| s.1).reduce(f64::max),
    ) else {
        return;
    };
    let names = (
        format!("{CONTROLLED}, with a checkpoint (median of {runs} runs)"),
        format!("{CONTROLLED}, control: no checkpoint (median of {runs} runs)"),
    );
    let lines = [
        Line {
            name: &names.0,
            points: treated,
            spans: vec![(first, last)],
        },
        Line {
            name: &names.1,
            points: control,
            spans: Vec::new(),
        },
    ];
    let out = line_chart(
        &run.dir,
        "checkpoint-vs-control",
        "1:9 load: checkpointed runs (checkpoints within the shaded span) against control runs",
        ("second", "operations/s"),
        &lines,
    );
    run.plotted(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_ranks() {
        assert_eq!(quantile(&[], 0.05), None);
        assert_eq!(quantile(&[7.0], 0.05), Some(7.0));
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.05), Some(5.0));
        assert_eq!(quantile(&[10.0, 0.0], 0.05), Some(0.5));
        assert_eq!(quantile(&v, 0.5), median(&v));
    }
}
