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

    /// Starts reads until `depth` are in flight or the source has no
    /// extent ready.
    fn launch(&mut self, cx: &mut Context<'_>) {
        while !self.ended && self.in_flight.len() < self.depth {
            match self.source.poll_extent(self.next, cx) {
                Poll::Ready(Some(extent)) => {
                    let cost = 2 * extent.len();
                    self.reservation.grow(cost);
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
