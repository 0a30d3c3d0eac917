//! [`CachedDataset`]: the segments of a cached table, where each lives
//! (DRAM, SSD or both) and a summary for reports. Built by
//! [`build`](super::build), scanned by [`scan`](super::scan).

use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::memory_pool::MemoryReservation;
use parking_lot::Mutex;
use serde::Serialize;

use super::codec::{BatchCodec, CacheCompression};
use super::residency::{Residency, ResidentSet};
use crate::tier::{Extent, SpillArea};

/// Target in-memory size of a segment: large enough for sequential SSD
/// reads of a megabyte or more, small enough to pipeline.
pub const SEGMENT_BYTES: usize = 1 << 20;

/// A materialized table across DRAM and the SSD tier.
pub struct CachedDataset {
    pub(super) schema: SchemaRef,
    pub(super) area: Arc<SpillArea>,
    pub(super) codec: BatchCodec,
    pub(super) state: Mutex<State>,
    /// The DRAM of resident segments, reserved from the job's pool.
    pub(super) resident: MemoryReservation,
    pub(super) rows: u64,
    pub(super) compression: CacheCompression,
    pub(super) share: usize,
}

/// The segments and which of them are resident, under one lock.
pub(super) struct State {
    pub(super) segments: Vec<Segment>,
    pub(super) set: ResidentSet,
}

/// One segment: in DRAM, on the SSD, or both (under [`Residency::Lru`]).
pub(super) struct Segment {
    pub(super) rows: usize,
    /// In-memory size of the decoded batch.
    pub(super) size: usize,
    pub(super) dram: Option<RecordBatch>,
    /// The encoded batch, in pieces of at most the area's largest payload.
    pub(super) extents: Vec<Extent>,
}

/// What a cached dataset holds, for reports.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct CacheSummary {
    /// Rows.
    pub rows: u64,
    /// Segments.
    pub segments: u64,
    /// Segments in DRAM.
    pub resident_segments: u64,
    /// Bytes of segments in DRAM.
    pub resident_bytes: u64,
    /// In-memory bytes of the segments only on the SSD.
    pub ssd_segment_bytes: u64,
    /// Bytes those take on the SSD (after compression).
    pub ssd_bytes: u64,
    /// The compression of SSD segments.
    pub compression: CacheCompression,
    /// The replacement policy.
    pub residency: Residency,
    /// The DRAM share the dataset may use.
    pub share: u64,
}

impl CachedDataset {
    /// The schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Rows in the dataset.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Segments in the dataset.
    pub fn segments(&self) -> usize {
        self.state.lock().segments.len()
    }

    /// Sizes and placement.
    pub fn summary(&self) -> CacheSummary {
        let state = self.state.lock();
        let mut summary = CacheSummary {
            rows: self.rows,
            segments: state.segments.len() as u64,
            compression: self.compression,
            residency: state.set.policy(),
            share: self.share as u64,
            ..CacheSummary::default()
        };
        for segment in &state.segments {
            if segment.dram.is_some() {
                summary.resident_segments += 1;
                summary.resident_bytes += segment.size as u64;
            } else {
                summary.ssd_segment_bytes += segment.size as u64;
                summary.ssd_bytes += segment.extents.iter().map(|e| e.len() as u64).sum::<u64>();
            }
        }
        summary
    }

    /// Bytes of DRAM the resident segments hold (reserved in the pool).
    pub fn resident_bytes(&self) -> usize {
        self.resident.size()
    }
}

impl Drop for CachedDataset {
    fn drop(&mut self) {
        for segment in &mut self.state.get_mut().segments {
            for extent in segment.extents.drain(..) {
                self.area.release(extent);
            }
        }
    }
}
