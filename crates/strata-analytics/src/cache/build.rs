//! [`CachedDataset::build`]: materializing DataFusion partitions into
//! segments, each kept in DRAM or written to the SSD as it is made.

use std::sync::Arc;

use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use parking_lot::Mutex;

use super::codec::{BatchCodec, CacheCompression};
use super::dataset::{CachedDataset, Segment, State, SEGMENT_BYTES};
use super::residency::{Residency, ResidentSet};
use crate::tier::{SpillArea, TierCounters};

/// How a dataset is cached.
#[derive(Debug, Clone, Copy)]
pub struct CacheOptions {
    /// Bytes of DRAM the resident segments may hold at most.
    pub share: usize,
    /// Compression of segments on the SSD.
    pub compression: CacheCompression,
    /// Replacement policy.
    pub residency: Residency,
    /// Target in-memory size of a segment.
    pub segment_bytes: usize,
}

impl CacheOptions {
    /// The defaults with a DRAM share of `share` bytes.
    pub fn with_share(share: usize) -> CacheOptions {
        CacheOptions {
            share,
            compression: CacheCompression::None,
            residency: Residency::Stable,
            segment_bytes: SEGMENT_BYTES,
        }
    }
}

/// Bytes of the operators' pool a cached table may keep resident:
/// `percent` of what is left once the pool's current reservations (the
/// SSD tier's write block and idle read buffers) and the buffers of a scan
/// are set aside: per partition, [`READ_AHEAD`](super::scan::READ_AHEAD)
/// segments read ahead and the one being computed on (a segment is decoded
/// in place in the buffer it was read into). `None` (no budget): everything.
pub fn resident_share(pool: Option<u64>, reserved: usize, percent: u8, partitions: usize) -> usize {
    let Some(pool) = pool else {
        return usize::MAX;
    };
    let scans = partitions.max(1) * (super::scan::READ_AHEAD + 1) * SEGMENT_BYTES;
    let free = (pool as usize).saturating_sub(reserved + scans);
    (free as f64 * f64::from(percent) / 100.0) as usize
}

/// Called after each segment with (rows, in-memory bytes) of it.
pub type BuildProgress = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// What the partitions' builders share.
struct Builder {
    area: Arc<SpillArea>,
    codec: BatchCodec,
    options: CacheOptions,
    /// Bytes of the share admitted so far.
    admitted: Mutex<usize>,
    resident: MemoryReservation,
    progress: BuildProgress,
}

impl CachedDataset {
    /// Reads `partitions` to the end, concurrently, and caches their rows:
    /// partition 0's segments first, then partition 1's, and so on. A
    /// segment is admitted to DRAM while it fits the share and the pool
    /// grants it; otherwise (and under [`Residency::Lru`] always) it is
    /// encoded and written to the SSD at once, so DRAM never holds more
    /// than the share plus the segments being assembled.
    pub async fn build(
        schema: SchemaRef,
        partitions: Vec<SendableRecordBatchStream>,
        area: Arc<SpillArea>,
        options: CacheOptions,
        progress: BuildProgress,
    ) -> Result<CachedDataset> {
        let codec = BatchCodec::new(options.compression)?;
        let resident = MemoryConsumer::new("cached dataset").register(area.pool());
        let builder = Arc::new(Builder {
            area: area.clone(),
            codec: codec.clone(),
            options,
            admitted: Mutex::new(0),
            resident,
            progress,
        });
        let tasks: Vec<_> = partitions
            .into_iter()
            .map(|stream| tokio::spawn(builder.clone().partition(stream)))
            .collect();
        let mut segments = Vec::new();
        let mut failure = None;
        for task in tasks {
            match task.await {
                Ok(Ok(built)) => segments.extend(built),
                Ok(Err(e)) => failure = failure.or(Some(e)),
                Err(e) => failure = failure.or(Some(DataFusionError::External(Box::new(e)))),
            }
        }
        let builder = Arc::into_inner(builder).expect("every partition task ended");
        if let Some(e) = failure {
            for segment in segments {
                segment.extents.into_iter().for_each(|e| area.release(e));
            }
            return Err(e);
        }
        let mut set = ResidentSet::new(options.residency, options.share);
        for (index, segment) in segments.iter().enumerate() {
            set.add(index, segment.size, segment.dram.is_some());
        }
        let rows = segments.iter().map(|s| s.rows as u64).sum();
        Ok(CachedDataset {
            schema,
            area,
            codec,
            state: Mutex::new(State { segments, set }),
            resident: builder.resident,
            rows,
            compression: options.compression,
            share: options.share,
        })
    }
}

impl Builder {
    /// Builds the segments of one partition, in order.
    async fn partition(
        self: Arc<Self>,
        mut stream: SendableRecordBatchStream,
    ) -> Result<Vec<Segment>> {
        let mut pending: Vec<RecordBatch> = Vec::new();
        let mut pending_rows = 0;
        let mut segment_rows = None;
        let schema = stream.schema();
        let mut guard = SegmentsGuard {
            area: &self.area,
            segments: Vec::new(),
        };
        while let Some(batch) = stream.next().await {
            let mut batch = batch?;
            let rows = *segment_rows.get_or_insert_with(|| self.segment_rows(&batch));
            while batch.num_rows() > 0 {
                let take = (rows - pending_rows).min(batch.num_rows());
                pending.push(batch.slice(0, take));
                pending_rows += take;
                batch = batch.slice(take, batch.num_rows() - take);
                if pending_rows == rows {
                    let segment = self.segment(&schema, std::mem::take(&mut pending))?;
                    guard.segments.push(segment);
                    pending_rows = 0;
                }
            }
        }
        if pending_rows > 0 {
            let segment = self.segment(&schema, pending)?;
            guard.segments.push(segment);
        }
        Ok(std::mem::take(&mut guard.segments))
    }

    /// Rows per segment: about the target size, from the first batch's
    /// row width (the data decides, never the budget).
    fn segment_rows(&self, batch: &RecordBatch) -> usize {
        let width = batch.get_array_memory_size() / batch.num_rows().max(1);
        (self.options.segment_bytes / width.max(1)).max(1)
    }

    /// Makes one segment of `slices` (copied into fresh buffers, so that
    /// its size is what it holds) and places it.
    fn segment(&self, schema: &SchemaRef, slices: Vec<RecordBatch>) -> Result<Segment> {
        let batch = concat_batches(schema, &slices)?;
        drop(slices);
        let size = batch.get_array_memory_size();
        let rows = batch.num_rows();
        let resident = {
            let mut admitted = self.admitted.lock();
            let fits = *admitted + size <= self.options.share;
            let granted = fits && self.resident.try_grow(size).is_ok();
            if granted {
                *admitted += size;
            }
            granted
        };
        let on_ssd = !resident || self.options.residency == Residency::Lru;
        let extents = if on_ssd {
            self.write(&batch)?
        } else {
            Vec::new()
        };
        (self.progress)(rows as u64, size as u64);
        Ok(Segment {
            rows,
            size,
            dram: resident.then_some(batch),
            extents,
        })
    }

    /// Encodes `batch` and appends it to the SSD in pieces.
    fn write(&self, batch: &RecordBatch) -> Result<Vec<crate::tier::Extent>> {
        let bytes = self.codec.encode(batch)?;
        let mut extents = Vec::new();
        for piece in bytes.chunks(self.area.max_payload()) {
            match self.area.append(piece) {
                Ok(extent) => extents.push(extent),
                Err(fault) => {
                    extents.into_iter().for_each(|e| self.area.release(e));
                    return Err(DataFusionError::IoError(fault.into_io()));
                }
            }
        }
        TierCounters::add(&self.area.counters().cache_written, bytes.len());
        Ok(extents)
    }
}

/// Releases the extents of segments built so far if a partition fails.
struct SegmentsGuard<'a> {
    area: &'a SpillArea,
    segments: Vec<Segment>,
}

impl Drop for SegmentsGuard<'_> {
    fn drop(&mut self) {
        for segment in self.segments.drain(..) {
            segment
                .extents
                .into_iter()
                .for_each(|e| self.area.release(e));
        }
    }
}
