//! The eventdata phases against one server (index and dashboards, then the
//! mixed phase at each target), each recorded as a measurement.

use std::collections::BTreeMap;

use super::plan::{Sizes, TARGETS};
use crate::eventdata::{run_eventdata, EventdataArgs, EventdataResult};
use crate::lab::run::{Measurement, Run};
use crate::LabError;

fn eventdata_args(url: &str, extra: &[String]) -> Result<EventdataArgs, LabError> {
    let mut argv = vec![
        format!("--url={url}"),
        "--quiet".into(),
        "--threads=1".into(),
    ];
    argv.extend(extra.iter().cloned());
    EventdataArgs::try_parse_from(&argv).map_err(|e| LabError::Config(e.to_string()))
}

/// Runs every phase of a round against `url`, recording each as `label`.
pub(super) async fn phases(
    run: &mut Run,
    sizes: &Sizes,
    round: usize,
    label: &str,
    url: &str,
) -> Result<(), LabError> {
    run.progress.step(
        label,
        &format!(
            "round {}: indexing {} documents, then dashboards",
            round + 1,
            sizes.docs
        ),
    );
    let extra = vec![
        "--phases=index,query".into(),
        "--fresh".into(),
        format!("--docs={}", sizes.docs),
        format!("--query-iterations={}", sizes.query_iterations),
    ];
    let result = run_eventdata(&eventdata_args(url, &extra)?).await?;
    result.check()?;
    let rate = result.index.as_ref().map_or(0.0, |i| i.docs_per_sec);
    let mut figures = BTreeMap::new();
    figures.insert("docs_per_sec".to_owned(), rate);
    if let Some(ms) = kind_mean(&result, "relative", false) {
        figures.insert("search_ms".into(), ms);
    }
    if let Some(ms) = kind_mean(&result, "current", false) {
        figures.insert("search_current_ms".into(), ms);
    }
    record(
        run,
        (label, "index+query", round),
        url,
        &extra,
        figures,
        &result,
    );
    for (target, fraction) in TARGETS {
        run.progress.step(
            label,
            &format!(
                "round {}: mixed at {target} of the indexing rate",
                round + 1
            ),
        );
        let extra = vec![
            "--phases=mixed".into(),
            format!("--mixed-rate={:.0}", (rate * fraction).max(50.0)),
            format!("--mixed-duration={}", sizes.mixed_secs),
            format!("--query-iterations={}", sizes.query_iterations),
        ];
        let result = run_eventdata(&eventdata_args(url, &extra)?).await?;
        result.check()?;
        let mut figures = BTreeMap::new();
        if let Some(m) = &result.mixed {
            figures.insert("achieved_docs_per_sec".to_owned(), m.achieved_docs_per_sec);
        }
        for kind in ["relative", "current"] {
            if let Some(ms) = kind_mean(&result, kind, true) {
                figures.insert(format!("{kind}_ms"), ms);
            }
        }
        record(
            run,
            (label, &format!("mixed {target}"), round),
            url,
            &extra,
            figures,
            &result,
        );
    }
    Ok(())
}

/// Mean dashboard latency of one kind of window (query or mixed phase).
fn kind_mean(result: &EventdataResult, kind: &str, mixed: bool) -> Option<f64> {
    let by_kind = if mixed {
        &result.mixed.as_ref()?.by_kind
    } else {
        &result.query.as_ref()?.by_kind
    };
    let k = by_kind.iter().find(|k| {
        serde_json::to_value(k.kind)
            .ok()
            .and_then(|v| v.as_str().map(|s| s == kind))
            == Some(true)
    })?;
    (k.runs > 0).then_some(k.latency_ms.mean)
}

fn record(
    run: &mut Run,
    (config, step, round): (&str, &str, usize),
    url: &str,
    extra: &[String],
    figures: BTreeMap<String, f64>,
    result: &EventdataResult,
) {
    run.measured(Measurement {
        config: config.into(),
        step: step.into(),
        round,
        command: format!(
            "strata bench eventdata --url={url} --threads=1 {}",
            extra.join(" ")
        ),
        figures,
        raw: serde_json::to_value(result).unwrap_or_default(),
    });
}
