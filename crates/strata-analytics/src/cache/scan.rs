//! Scans of a [`CachedDataset`]: a plan made from the residency policy
//! before the scan (so that every SSD read can be issued ahead), then a
//! [`SegmentStream`] per partition that yields resident segments while
//! the SSD reads are in flight and SSD segments as they arrive.
//!
//! Segments come with their index and in no fixed order: a computation
//! that must not depend on the budget combines per-segment results by
//! index.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{DataFusionError, Result};
use futures::{Stream, StreamExt};

use super::dataset::CachedDataset;
use super::residency::Step;
use crate::tier::{chunks::ChunkStream, Extent};

/// Extents a partition's scan keeps in flight.
pub const READ_AHEAD: usize = 3;

/// A segment read from the SSD, waiting for its pieces.
struct Miss {
    index: usize,
    pieces: usize,
    keep: bool,
    evict: Vec<usize>,
}

/// One partition of one scan: `(segment index, batch)` items.
pub struct SegmentStream {
    dataset: Arc<CachedDataset>,
    hits: VecDeque<(usize, RecordBatch)>,
    misses: VecDeque<Miss>,
    chunks: ChunkStream<Vec<Extent>>,
    pieces: Vec<Bytes>,
    failed: bool,
}

impl CachedDataset {
    /// Scans partition `part` of `parts` (the segments whose index is
    /// `part` modulo `parts`, so every partition gets its share of
    /// resident and SSD segments), under the residency policy.
    pub fn scan_partition(self: &Arc<Self>, part: usize, parts: usize) -> SegmentStream {
        let mut state = self.state.lock();
        let indices: Vec<usize> = (0..state.segments.len())
            .filter(|i| i % parts.max(1) == part)
            .collect();
        let steps: Vec<Step> = indices.iter().map(|&i| state.set.visit(i)).collect();
        let mut hits = VecDeque::new();
        let mut misses = VecDeque::new();
        let mut extents = Vec::new();
        for step in steps {
            match step {
                Step::Hit(index) => {
                    let batch = state.segments[index]
                        .dram
                        .clone()
                        .expect("a hit is resident");
                    hits.push_back((index, batch));
                }
                Step::Miss { index, keep, evict } => {
                    let segment = &state.segments[index];
                    extents.extend_from_slice(&segment.extents);
                    misses.push_back(Miss {
                        index,
                        pieces: segment.extents.len(),
                        keep,
                        evict,
                    });
                }
            }
        }
        drop(state);
        SegmentStream {
            dataset: self.clone(),
            hits,
            misses,
            chunks: ChunkStream::new(self.area.clone(), extents, READ_AHEAD, |c| &c.cache_read),
            pieces: Vec::new(),
            failed: false,
        }
    }

    /// Reads segment `index` alone (random access), under the residency
    /// policy like a scan's read of it.
    pub async fn read_segment(self: &Arc<Self>, index: usize) -> Result<RecordBatch> {
        let (step, extents) = {
            let mut state = self.state.lock();
            if index >= state.segments.len() {
                return Err(DataFusionError::Execution(format!(
                    "segment {index} of a cached dataset of {}",
                    state.segments.len()
                )));
            }
            let step = state.set.visit(index);
            if let Step::Hit(_) = step {
                return Ok(state.segments[index]
                    .dram
                    .clone()
                    .expect("a hit is resident"));
            }
            (step, state.segments[index].extents.clone())
        };
        let Step::Miss { keep, evict, .. } = step else {
            unreachable!("hits returned above");
        };
        let mut pieces = Vec::new();
        let mut chunks =
            ChunkStream::new(self.area.clone(), extents, READ_AHEAD, |c| &c.cache_read);
        while let Some(piece) = chunks.next().await {
            pieces.push(piece.map_err(|f| DataFusionError::IoError(f.into_io()))?);
        }
        let batch = self.codec.decode(join(pieces))?;
        self.settle(index, &batch, keep, &evict);
        Ok(batch)
    }

    /// Applies a miss's residency change once its segment was read.
    fn settle(&self, index: usize, batch: &RecordBatch, keep: bool, evict: &[usize]) {
        if !keep && evict.is_empty() {
            return;
        }
        let mut state = self.state.lock();
        for &victim in evict {
            if state.segments[victim].dram.take().is_some() {
                self.resident.shrink(state.segments[victim].size);
            }
        }
        if keep && state.segments[index].dram.is_none() {
            self.resident.grow(state.segments[index].size);
            state.segments[index].dram = Some(batch.clone());
        }
    }
}

/// The pieces of an encoded segment, as one buffer.
fn join(mut pieces: Vec<Bytes>) -> Bytes {
    if pieces.len() == 1 {
        return pieces.pop().expect("one piece");
    }
    let mut whole = BytesMut::with_capacity(pieces.iter().map(Bytes::len).sum());
    pieces.iter().for_each(|p| whole.extend_from_slice(p));
    whole.freeze()
}

impl Stream for SegmentStream {
    type Item = Result<(usize, RecordBatch)>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.failed {
            return Poll::Ready(None);
        }
        while let Some(miss) = this.misses.front() {
            match this.chunks.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(piece))) => {
                    this.pieces.push(piece);
                    if this.pieces.len() < miss.pieces {
                        continue;
                    }
                    let miss = this.misses.pop_front().expect("front exists");
                    let bytes = join(std::mem::take(&mut this.pieces));
                    let batch = match this.dataset.codec.decode(bytes) {
                        Ok(batch) => batch,
                        Err(e) => {
                            this.failed = true;
                            return Poll::Ready(Some(Err(e.into())));
                        }
                    };
                    this.dataset
                        .settle(miss.index, &batch, miss.keep, &miss.evict);
                    return Poll::Ready(Some(Ok((miss.index, batch))));
                }
                Poll::Ready(Some(Err(fault))) => {
                    this.failed = true;
                    return Poll::Ready(Some(Err(DataFusionError::IoError(fault.into_io()))));
                }
                Poll::Ready(None) => {
                    this.failed = true;
                    return Poll::Ready(Some(Err(DataFusionError::Internal(
                        "a cached segment's extents ended early".into(),
                    ))));
                }
                // The reads are in flight: compute on a resident segment.
                Poll::Pending => {
                    return match this.hits.pop_front() {
                        Some(hit) => Poll::Ready(Some(Ok(hit))),
                        None => Poll::Pending,
                    };
                }
            }
        }
        Poll::Ready(this.hits.pop_front().map(Ok))
    }
}
