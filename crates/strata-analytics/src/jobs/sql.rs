//! `strata job sql`: queries over the input (table `input`, or the name
//! given), optionally materialized once as a cached table that every
//! query scans. Each query's result streams: the first rows are printed,
//! the rest counted, and the last query's whole result may go to a file.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::csv::Writer as CsvWriter;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::execution::memory_pool::MemoryPool;
use datafusion::parquet::arrow::ArrowWriter;
use futures::StreamExt;
use serde::Serialize;

use super::args::SqlArgs;
use super::input::Input;
use super::progress::Unit;
use super::run::JobRun;
use crate::cache::build::resident_share;
use crate::cache::table::cached_table;
use crate::cache::{CacheOptions, CachedDataset, SEGMENT_BYTES};
use crate::error::AnalyticsError;

/// One query's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct QueryResult {
    /// The query.
    pub query: String,
    /// Rows in the result.
    pub rows: u64,
    /// The first rows, as a table for a terminal.
    #[serde(skip)]
    pub shown: String,
}

/// Where the last result goes.
enum Sink {
    Csv(CsvWriter<File>),
    Parquet(ArrowWriter<File>),
}

impl Sink {
    fn open(path: &Path, schema: &SchemaRef) -> Result<Sink, AnalyticsError> {
        let file = File::create(path)
            .map_err(|e| AnalyticsError::io(format!("creating {}", path.display()), e))?;
        let parquet = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
        Ok(match parquet {
            true => Sink::Parquet(
                ArrowWriter::try_new(file, schema.clone(), None)
                    .map_err(|e| AnalyticsError::Engine(e.to_string()))?,
            ),
            false => Sink::Csv(CsvWriter::new(file)),
        })
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<(), String> {
        match self {
            Sink::Csv(w) => w.write(batch).map_err(|e| e.to_string()),
            Sink::Parquet(w) => w.write(batch).map_err(|e| e.to_string()),
        }
    }

    fn finish(self) -> Result<(), String> {
        match self {
            Sink::Csv(_) => Ok(()),
            Sink::Parquet(w) => w.close().map(|_| ()).map_err(|e| e.to_string()),
        }
    }
}

/// Runs `args`' queries over `input`; returns their outcomes and the
/// cached table, if one was made.
pub async fn sql(
    run: &mut JobRun,
    input: &Input,
    args: &SqlArgs,
) -> Result<(Vec<QueryResult>, Option<Arc<CachedDataset>>), AnalyticsError> {
    let engine_error = |e| AnalyticsError::from_engine(e, &input.path);
    let ctx = run.engine.ctx.clone();
    let partitions = run.engine.partitions;
    let mut cached = None;
    if args.cache {
        input
            .register(&ctx, "strata_input", partitions, Arc::default())
            .await?;
        let frame = ctx.table("strata_input").await.map_err(engine_error)?;
        let schema = Arc::new(frame.schema().as_arrow().clone());
        let streams = frame
            .execute_stream_partitioned()
            .await
            .map_err(engine_error)?;
        let bar = run.stage("cache", Unit::Rows);
        let options = CacheOptions {
            share: resident_share(
                run.engine.plan.pool,
                run.engine.pool.reserved(),
                args.cache_args.cache_share,
                partitions,
            ),
            compression: args.cache_args.cache_compression,
            residency: args.cache_args.cache_policy,
            segment_bytes: SEGMENT_BYTES,
        };
        let progress = Arc::new(move |rows: u64, _bytes: u64| bar.inc(rows));
        let dataset =
            CachedDataset::build(schema, streams, run.engine.area.clone(), options, progress)
                .await
                .map_err(engine_error)?;
        let dataset = Arc::new(dataset);
        ctx.deregister_table("strata_input").map_err(engine_error)?;
        let table = cached_table(dataset.clone(), partitions).map_err(engine_error)?;
        ctx.register_table(args.table.as_str(), Arc::new(table))
            .map_err(engine_error)?;
        cached = Some(dataset);
    } else {
        input
            .register(&ctx, &args.table, partitions, Arc::default())
            .await?;
    }
    let mut results = Vec::new();
    for (i, query) in args.queries.iter().enumerate() {
        let frame = ctx.sql(query).await.map_err(engine_error)?;
        let schema: SchemaRef = Arc::new(frame.schema().as_arrow().clone());
        let bar = run.stage(&format!("query {}", i + 1), Unit::Rows);
        let last = i + 1 == args.queries.len();
        let mut sink = match (&args.output, last) {
            (Some(path), true) => Some(Sink::open(path, &schema)?),
            _ => None,
        };
        let mut stream = frame.execute_stream().await.map_err(engine_error)?;
        let (mut rows, mut shown, mut kept) = (0u64, Vec::new(), 0usize);
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(engine_error)?;
            rows += batch.num_rows() as u64;
            bar.inc(batch.num_rows() as u64);
            if kept < args.max_rows {
                let take = (args.max_rows - kept).min(batch.num_rows());
                shown.push(batch.slice(0, take));
                kept += take;
            }
            if let Some(sink) = &mut sink {
                sink.write(&batch).map_err(|e| {
                    AnalyticsError::io("writing the result", std::io::Error::other(e))
                })?;
            }
        }
        if let Some(sink) = sink {
            sink.finish()
                .map_err(|e| AnalyticsError::io("writing the result", std::io::Error::other(e)))?;
        }
        let mut table = pretty_format_batches(&shown)
            .map(|t| t.to_string())
            .unwrap_or_default();
        if shown.is_empty() {
            table = format!("(no rows; columns: {})", column_names(&schema));
        } else if rows > kept as u64 {
            table.push_str(&format!("\n({} more rows not shown)", rows - kept as u64));
        }
        results.push(QueryResult {
            query: query.clone(),
            rows,
            shown: table,
        });
    }
    run.end_stage();
    Ok((results, cached))
}

fn column_names(schema: &SchemaRef) -> String {
    schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
