//! `strata job logreg`: the seed's logistic regression. The input is read
//! once into a [`CachedDataset`] (its share of the budget in DRAM, the
//! rest on the SSD); each iteration scans it whole, one scan partition
//! per core, and moves the weights by `step` times the mean gradient.
//!
//! Per-segment sums are added in segment order, so the model and the
//! losses are the same at every budget, whichever segments were resident.

pub mod gradient;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::DataFusionError;
use datafusion::execution::memory_pool::MemoryPool;
use futures::StreamExt;
use serde::Serialize;

use super::args::{CacheArgs, LogregArgs};
use super::input::{Input, InputFormat};
use super::progress::Unit;
use super::run::JobRun;
use crate::cache::build::resident_share;
use crate::cache::{CacheOptions, CachedDataset, SEGMENT_BYTES};
use crate::error::AnalyticsError;
use gradient::{partial, Partial};

/// The fitted model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogregResult {
    /// The feature columns, in the order of `weights`.
    pub features: Vec<String>,
    /// The weights after the last iteration.
    pub weights: Vec<f64>,
    /// Mean logistic loss at the start of each iteration.
    pub losses: Vec<f64>,
    /// Rows (points).
    pub rows: u64,
}

/// Loads `input` into a cached dataset named `points`' columns cast to
/// doubles, label first; returns it and the feature names.
async fn load(
    run: &mut JobRun,
    input: &Input,
    label: &str,
    cache: &CacheArgs,
) -> Result<(Arc<CachedDataset>, Vec<String>), AnalyticsError> {
    if matches!(input.format, InputFormat::Text | InputFormat::Auto) {
        return Err(AnalyticsError::Input {
            path: input.path.clone(),
            reason: "logistic regression needs a CSV, TSV or Parquet table of labelled points \
                     (pass --format csv if the extension does not say it)"
                .into(),
        });
    }
    let engine_error = |e| AnalyticsError::from_engine(e, &input.path);
    let ctx = run.engine.ctx.clone();
    input
        .register(&ctx, "points", run.engine.partitions, Arc::default())
        .await?;
    let table = ctx.table("points").await.map_err(engine_error)?;
    let schema = table.schema().as_arrow().clone();
    let mut features = Vec::new();
    let mut has_label = false;
    for field in schema.fields() {
        if !field.data_type().is_numeric() && *field.data_type() != DataType::Boolean {
            return Err(AnalyticsError::Input {
                path: input.path.clone(),
                reason: format!(
                    "column `{}` is {}, not numeric: every column but the label must be a feature",
                    field.name(),
                    field.data_type()
                ),
            });
        }
        match field.name() == label {
            true => has_label = true,
            false => features.push(field.name().clone()),
        }
    }
    if !has_label || features.is_empty() {
        let columns: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
        return Err(AnalyticsError::Input {
            path: input.path.clone(),
            reason: format!(
                "needs a label column `{label}` (--label) and at least one feature; columns: {columns:?}"
            ),
        });
    }
    let quoted = |name: &str| format!("\"{}\"", name.replace('"', "\"\""));
    let select: Vec<String> = std::iter::once(label)
        .chain(features.iter().map(String::as_str))
        .map(|c| format!("CAST({} AS DOUBLE) AS {}", quoted(c), quoted(c)))
        .collect();
    let frame = ctx
        .sql(&format!("SELECT {} FROM points", select.join(", ")))
        .await
        .map_err(engine_error)?;
    let out_schema = frame.schema().as_arrow().clone();
    let streams = frame
        .execute_stream_partitioned()
        .await
        .map_err(engine_error)?;
    let bar = run.stage("load", Unit::Rows);
    let share = resident_share(
        run.engine.plan.pool,
        run.engine.pool.reserved(),
        cache.cache_share,
        run.engine.partitions,
    );
    let options = CacheOptions {
        share,
        compression: cache.cache_compression,
        residency: cache.cache_policy,
        segment_bytes: SEGMENT_BYTES,
    };
    let cached = Arc::new(AtomicU64::new(0));
    let progress = {
        let (bar, cached) = (bar.clone(), cached.clone());
        Arc::new(move |rows: u64, bytes: u64| {
            bar.inc(rows);
            let total = cached.fetch_add(bytes, Ordering::Relaxed) + bytes;
            bar.set_message(format!("{} cached", strata_units::human(total)));
        })
    };
    let dataset = CachedDataset::build(
        Arc::new(out_schema),
        streams,
        run.engine.area.clone(),
        options,
        progress,
    )
    .await
    .map_err(engine_error)?;
    Ok((Arc::new(dataset), features))
}

/// One pass over `dataset` at weights `w`: the sums, per-segment sums
/// added in segment order.
pub async fn pass(
    dataset: &Arc<CachedDataset>,
    w: &Arc<Vec<f64>>,
    partitions: usize,
) -> Result<Partial, DataFusionError> {
    let tasks: Vec<_> = (0..partitions)
        .map(|part| {
            let mut scan = dataset.scan_partition(part, partitions);
            let w = w.clone();
            tokio::spawn(async move {
                let mut partials = Vec::new();
                while let Some(item) = scan.next().await {
                    let (index, batch) = item?;
                    let sums = partial(&batch, &w).map_err(DataFusionError::Execution)?;
                    partials.push((index, sums));
                }
                Ok::<_, DataFusionError>(partials)
            })
        })
        .collect();
    let mut partials = Vec::new();
    for task in tasks {
        let done = task
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        partials.extend(done?);
    }
    partials.sort_by_key(|(index, _)| *index);
    let mut total = Partial::zero(w.len());
    for (_, sums) in &partials {
        total.add(sums);
    }
    Ok(total)
}

/// Runs the logistic regression of `args` over `input`.
pub async fn logreg(
    run: &mut JobRun,
    input: &Input,
    args: &LogregArgs,
) -> Result<(LogregResult, Arc<CachedDataset>), AnalyticsError> {
    let (dataset, features) = load(run, input, &args.label, &args.cache).await?;
    if dataset.rows() == 0 {
        return Err(AnalyticsError::Input {
            path: input.path.clone(),
            reason: "holds no points".into(),
        });
    }
    let bar = run.stage("iterate", Unit::Steps(args.iterations as u64));
    let mut weights = vec![0.0; features.len()];
    let mut losses = Vec::with_capacity(args.iterations);
    for _ in 0..args.iterations {
        let w = Arc::new(weights.clone());
        let sums = pass(&dataset, &w, run.engine.partitions)
            .await
            .map_err(|e| match e {
                DataFusionError::Execution(m) => AnalyticsError::Input {
                    path: input.path.clone(),
                    reason: m,
                },
                other => AnalyticsError::from_engine(other, &input.path),
            })?;
        let n = sums.rows as f64;
        losses.push(sums.loss / n);
        for (wj, gj) in weights.iter_mut().zip(&sums.gradient) {
            *wj -= args.step * gj / n;
        }
        bar.inc(1);
        bar.set_message(format!("loss {:.6}", sums.loss / n));
    }
    run.end_stage();
    Ok((
        LogregResult {
            features,
            weights,
            losses,
            rows: dataset.rows(),
        },
        dataset,
    ))
}

/// The result for a terminal.
pub fn render(result: &LogregResult) -> String {
    let mut out = format!(
        "{} points, {} features\n",
        result.rows,
        result.features.len()
    );
    for (i, loss) in result.losses.iter().enumerate() {
        out.push_str(&format!("iteration {:>3}: loss {loss:.6}\n", i + 1));
    }
    out.push_str("weights:\n");
    let width = result.features.iter().map(String::len).max().unwrap_or(1);
    for (name, w) in result.features.iter().zip(&result.weights) {
        out.push_str(&format!("  {name:<width$}  {w:.6}\n"));
    }
    out
}
