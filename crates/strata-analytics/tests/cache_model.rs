//! The cached dataset against an in-memory copy: random segment reads and
//! full scans with the DRAM share forced small, under both residency
//! policies and every compression; the stable policy keeps its resident
//! part across scans, LRU does not; device faults and a full SSD tier
//! fail cleanly.

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{Float64Array, Int64Array, StringArray};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::memory_pool::MemoryPool;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::StreamExt;
use strata_analytics::bench::generate::SplitMix64;
use strata_analytics::cache::build::CacheOptions;
use strata_analytics::cache::{CacheCompression, CachedDataset, Residency};
use strata_analytics::error::AnalyticsError;
use strata_analytics::{BudgetPool, SpillArea};
use strata_device::{BlockDevice, FaultyBlockDevice, MemBlockDevice};

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("x", DataType::Float64, false),
        Field::new("s", DataType::Utf8, false),
    ]))
}

fn batch(from: i64, rows: i64) -> RecordBatch {
    let ids: Vec<i64> = (from..from + rows).collect();
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(Float64Array::from_iter_values(
                ids.iter().map(|i| *i as f64 * 0.25),
            )),
            Arc::new(StringArray::from_iter_values(
                ids.iter().map(|i| format!("row-{}", i % 97)),
            )),
        ],
    )
    .unwrap()
}

/// `parts` partitions of `batches` batches of `rows` rows each, ids
/// consecutive across the partitions in order.
fn partitions(
    parts: i64,
    batches: i64,
    rows: i64,
) -> (Vec<SendableRecordBatchStream>, RecordBatch) {
    let mut all = Vec::new();
    let mut streams = Vec::new();
    for p in 0..parts {
        let list: Vec<RecordBatch> = (0..batches)
            .map(|b| batch((p * batches + b) * rows, rows))
            .collect();
        all.extend(list.clone());
        let stream = futures::stream::iter(list.into_iter().map(Ok));
        streams.push(Box::pin(RecordBatchStreamAdapter::new(schema(), stream)) as _);
    }
    (streams, concat_batches(&schema(), &all).unwrap())
}

fn area(device: Arc<dyn BlockDevice>, pool: Option<usize>) -> Arc<SpillArea> {
    let pool: Arc<dyn MemoryPool> = Arc::new(BudgetPool::new(pool));
    SpillArea::on_device(device, Path::new("/test"), None, pool).unwrap()
}

async fn build(
    area: &Arc<SpillArea>,
    options: CacheOptions,
) -> Result<Arc<CachedDataset>, AnalyticsError> {
    let (streams, _) = partitions(3, 6, 5000);
    CachedDataset::build(
        schema(),
        streams,
        area.clone(),
        options,
        Arc::new(|_, _| {}),
    )
    .await
    .map(Arc::new)
    .map_err(|e| AnalyticsError::from_engine(e, Path::new("test")))
}

/// A full scan in `parts` partitions, segments put back in order.
async fn scan(dataset: &Arc<CachedDataset>, parts: usize) -> Vec<(usize, RecordBatch)> {
    let mut segments = Vec::new();
    for part in 0..parts {
        let mut stream = dataset.scan_partition(part, parts);
        while let Some(item) = stream.next().await {
            segments.push(item.unwrap());
        }
    }
    segments.sort_by_key(|(i, _)| *i);
    segments
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_reads_and_scans_match_an_in_memory_copy() {
    let (_, expected) = partitions(3, 6, 5000);
    for residency in [Residency::Stable, Residency::Lru] {
        for compression in [
            CacheCompression::None,
            CacheCompression::Lz4,
            CacheCompression::Zstd,
        ] {
            let area = area(Arc::new(MemBlockDevice::new(128 << 20)), Some(64 << 20));
            let options = CacheOptions {
                share: 1 << 20,
                compression,
                residency,
                segment_bytes: 128 << 10,
            };
            let dataset = build(&area, options).await.unwrap();
            let summary = dataset.summary();
            assert!(
                summary.resident_segments > 0 && summary.ssd_segment_bytes > 0,
                "{summary:?}"
            );
            assert_eq!(dataset.rows(), expected.num_rows() as u64);
            // The model: the segments of the first scan, checked against the input.
            let model = scan(&dataset, 2).await;
            let batches: Vec<RecordBatch> = model.iter().map(|(_, b)| b.clone()).collect();
            assert_eq!(concat_batches(&schema(), &batches).unwrap(), expected);
            let mut rng = SplitMix64::new(residency as u64 * 10 + compression as u64);
            let mut full_scan_hits = Vec::new();
            for _ in 0..60 {
                if rng.below(8) == 0 {
                    let before = dataset.summary().resident_segments;
                    let parts = 1 + rng.below(3) as usize;
                    let got = scan(&dataset, parts).await;
                    assert_eq!(got.len(), model.len());
                    for ((i, a), (j, b)) in got.iter().zip(&model) {
                        assert_eq!((i, a), (j, b));
                    }
                    full_scan_hits.push(before);
                } else {
                    let index = rng.below(model.len() as u64) as usize;
                    let got = dataset.read_segment(index).await.unwrap();
                    assert_eq!(got, model[index].1, "segment {index}");
                }
                assert!(dataset.resident_bytes() <= options.share, "{residency:?}");
            }
            if residency == Residency::Stable {
                let resident = dataset.summary().resident_segments;
                assert_eq!(
                    resident, summary.resident_segments,
                    "the stable part never moves"
                );
            }
            assert!(dataset.read_segment(model.len()).await.is_err());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lru_thrashes_on_cyclic_scans_where_stable_keeps_its_part() {
    let mut read_per_scan = Vec::new();
    for residency in [Residency::Stable, Residency::Lru] {
        let area = area(Arc::new(MemBlockDevice::new(128 << 20)), None);
        let options = CacheOptions {
            share: 1 << 20,
            compression: CacheCompression::None,
            residency,
            segment_bytes: 128 << 10,
        };
        let dataset = build(&area, options).await.unwrap();
        scan(&dataset, 1).await;
        let counter = &area.counters().cache_read;
        let before = counter.load(std::sync::atomic::Ordering::Relaxed);
        scan(&dataset, 1).await;
        scan(&dataset, 1).await;
        read_per_scan.push((counter.load(std::sync::atomic::Ordering::Relaxed) - before) / 2);
    }
    let (stable, lru) = (read_per_scan[0], read_per_scan[1]);
    assert!(
        stable > 0 && lru > stable,
        "stable {stable} B/scan, lru {lru} B/scan"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_faults_and_a_full_tier_fail_cleanly() {
    // Writes fail: the build reports the tier's fault.
    let faulty = FaultyBlockDevice::new(Arc::new(MemBlockDevice::new(128 << 20)));
    let area_on_faulty = area(Arc::new(faulty.clone()), None);
    faulty.faults().fail_writes_after(0);
    // More than a write block, so that the device is written.
    let (streams, _) = partitions(2, 4, 50_000);
    let built = CachedDataset::build(
        schema(),
        streams,
        area_on_faulty,
        CacheOptions::with_share(0),
        Arc::new(|_, _| {}),
    )
    .await;
    let error = AnalyticsError::from_engine(built.err().unwrap(), Path::new("test"));
    assert!(matches!(error, AnalyticsError::Tier(_)), "{error:?}");
    assert!(error.to_string().contains("SSD tier I/O failed"), "{error}");

    // A device too small for the data: spill space exhausted, named.
    let small = area(Arc::new(MemBlockDevice::new(6 * (4 << 20))), None);
    let (streams, _) = partitions(2, 10, 50_000);
    let built = CachedDataset::build(
        schema(),
        streams,
        small.clone(),
        CacheOptions::with_share(0),
        Arc::new(|_, _| {}),
    )
    .await;
    let error = AnalyticsError::from_engine(built.err().unwrap(), Path::new("test"));
    assert!(matches!(error, AnalyticsError::SpillSpace(_)), "{error:?}");
    assert!(
        error.to_string().contains("spill space exhausted"),
        "{error}"
    );
    // What the failed build wrote was released: the area takes data again.
    let (streams, _) = partitions(1, 2, 1000);
    CachedDataset::build(
        schema(),
        streams,
        small,
        CacheOptions::with_share(0),
        Arc::new(|_, _| {}),
    )
    .await
    .unwrap();
}
