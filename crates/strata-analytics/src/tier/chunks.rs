//! [`ChunkStream`]: the payloads of a list of extents, in order, read
//! asynchronously on the store's reader threads a few extents ahead of
//! the consumer (sequential read-back that overlaps the I/O with the
//! consumer's work: each read is started as a task when queued). The
//! list may still be growing (a spill file read while it is written): the
//! stream then waits for the next extent.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use futures::future::BoxFuture;
use futures::{FutureExt, Stream};

use super::area::{Extent, SpillArea, TierCounters};
use super::fault::TierFault;

/// Where a [`ChunkStream`] takes its extents from.
pub trait ExtentSource: Send + Sync + 'static {
    /// The extent at `index`: `Ready(Some)`, `Ready(None)` when the list
    /// ended before it, or `Pending` when it may still come (the source
    /// then wakes `cx` when it does).
    fn poll_extent(&self, index: usize, cx: &mut Context<'_>) -> Poll<Option<Extent>>;
}

/// A fixed list of extents.
impl ExtentSource for Vec<Extent> {
    fn poll_extent(&self, index: usize, _cx: &mut Context<'_>) -> Poll<Option<Extent>> {
        Poll::Ready(self.get(index).copied())
    }
}

/// Which of the tier's counters the bytes read count toward.
pub type CounterOf = fn(&TierCounters) -> &AtomicU64;

/// The payloads of a [`ExtentSource`]'s extents, in order.
pub struct ChunkStream<S> {
    area: Arc<SpillArea>,
    source: S,
    next: usize,
    ended: bool,
    depth: usize,
    in_flight: VecDeque<(usize, BoxFuture<'static, Result<Bytes, TierFault>>)>,
    counter: CounterOf,
    /// Holds the bytes of reads in flight (the read's buffer and its copy).
    reservation: MemoryReservation,
}

impl<S: ExtentSource> ChunkStream<S> {
    /// Reads `source`'s extents with up to `depth` (at least 1) reads in
    /// flight, counting the bytes with `counter`.
    pub fn new(area: Arc<SpillArea>, source: S, depth: usize, counter: CounterOf) -> Self {
        let reservation = MemoryConsumer::new("ssd-tier read-ahead").register(area.pool());
        ChunkStream {
            area,
            source,
            next: 0,
            ended: false,
            depth: depth.max(1),
            in_flight: VecDeque::new(),
            counter,
            reservation,
        }
    }

    /// Starts reads until `depth` are in flight, the source has no extent
    /// ready, or the pool refuses the memory of a read ahead (retried when
    /// a read completes).
    fn launch(&mut self, cx: &mut Context<'_>) {
        while !self.ended && self.in_flight.len() < self.depth {
            match self.source.poll_extent(self.next, cx) {
                Poll::Ready(Some(extent)) => {
                    let cost = 2 * extent.len();
                    // The first read is needed for any progress; reads
                    // ahead of it only take memory the pool has free, so
                    // that read-ahead (which cannot spill) never starves
                    // an operator that must reserve to finish.
                    if self.in_flight.is_empty() {
                        self.reservation.grow(cost);
                    } else if self.reservation.try_grow(cost).is_err() {
                        break;
                    }
                    self.in_flight
                        .push_back((cost, start(self.area.read(extent))));
                    self.next += 1;
                }
                Poll::Ready(None) => self.ended = true,
                Poll::Pending => break,
            }
        }
    }
}

/// Starts `read` now, as a task of the current runtime: a future only runs
/// when polled, and the stream polls only its oldest read, so a read left
/// in the queue would not start before the ones ahead of it finished (no
/// read-ahead), and one waiting for a reader-pool slot would keep the slot
/// it was given while its consumer is busy elsewhere. Outside a runtime
/// the read runs when polled.
fn start(
    read: impl Future<Output = Result<Bytes, TierFault>> + Send + 'static,
) -> BoxFuture<'static, Result<Bytes, TierFault>> {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            let task = runtime.spawn(read);
            async move {
                task.await
                    .unwrap_or_else(|e| Err(TierFault::Device(format!("a read task ended: {e}"))))
            }
            .boxed()
        }
        Err(_) => read.boxed(),
    }
}

impl<S: ExtentSource + Unpin> Stream for ChunkStream<S> {
    type Item = Result<Bytes, TierFault>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        this.launch(cx);
        let Some((cost, front)) = this.in_flight.front_mut() else {
            return match this.ended {
                true => Poll::Ready(None),
                // The source registered the waker.
                false => Poll::Pending,
            };
        };
        let cost = *cost;
        match front.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(result) => {
                this.in_flight.pop_front();
                this.reservation.shrink(cost);
                if let Ok(bytes) = &result {
                    TierCounters::add((this.counter)(this.area.counters()), bytes.len());
                } else {
                    // No more reads after a failure.
                    this.ended = true;
                    this.in_flight.clear();
                    this.reservation.free();
                }
                // Keep the read-ahead going while the consumer works.
                this.launch(cx);
                Poll::Ready(Some(result))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use datafusion::execution::memory_pool::MemoryPool;
    use futures::StreamExt;
    use strata_device::{BlockDevice, MemBlockDevice};

    use super::*;
    use crate::budget::BudgetPool;

    /// An area on a 128 MiB in-memory device with a `limit`-byte pool, and
    /// four extents of 100 KB.
    fn area_with_extents(limit: usize) -> (Arc<SpillArea>, Vec<Extent>) {
        let device: Arc<dyn BlockDevice> = Arc::new(MemBlockDevice::new(128 << 20));
        let pool: Arc<dyn MemoryPool> = Arc::new(BudgetPool::new(Some(limit)));
        let area = SpillArea::on_device(device, Path::new("/test"), None, pool).unwrap();
        let extents = (0..4u8)
            .map(|i| area.append(&[i; 100_000]).unwrap())
            .collect();
        (area, extents)
    }

    /// What the stream's reads in flight hold after its first item.
    fn read_ahead_held(area: &Arc<SpillArea>, extents: Vec<Extent>) -> usize {
        let before = area.pool().reserved();
        let mut stream = ChunkStream::new(area.clone(), extents, 3, |c| &c.spill_read);
        let first = futures::executor::block_on(stream.next()).unwrap().unwrap();
        assert_eq!(first[..], [0u8; 100_000][..]);
        area.pool().reserved() - before
    }

    #[test]
    fn reads_ahead_take_only_memory_the_pool_has_free() {
        // Room to spare: the three extents after the consumed one are in
        // flight (each read holds twice its length).
        let (area, extents) = area_with_extents(64 << 20);
        assert_eq!(read_ahead_held(&area, extents), 3 * 2 * 100_000);
        // A full pool: only the next read, none ahead of it, yet every
        // extent still comes, one read at a time.
        let (area, extents) = area_with_extents(64 << 20);
        let filler = MemoryConsumer::new("filler").register(area.pool());
        let free = (64 << 20) - area.pool().reserved();
        filler.try_grow(free - 100_000).unwrap();
        assert_eq!(read_ahead_held(&area, extents.clone()), 2 * 100_000);
        let stream = ChunkStream::new(area.clone(), extents, 3, |c| &c.spill_read);
        let all: Vec<Bytes> = futures::executor::block_on(stream.collect::<Vec<_>>())
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let firsts: Vec<u8> = all.iter().map(|b| b[0]).collect();
        assert_eq!(firsts, [0, 1, 2, 3]);
    }
}
