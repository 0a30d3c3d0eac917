//! [`SpillFiles`]: DataFusion's spill files on the job's [`SpillArea`].
//!
//! DataFusion's spilling operators write Arrow IPC streams through
//! `std::io::Write` and read them back as a stream of byte chunks. Here a
//! file is a list of extents in the block store: the writer cuts what it
//! is given into chunks of [`SpillArea::chunk_size`] (a sixteenth of a
//! write block), each appended as one entry, so the device sees only
//! whole-block aligned writes; the reader fetches the chunks in order a
//! few ahead ([`ChunkStream`]). A file may be read while it is written
//! (`RepartitionExec`'s spill pool does): a flush makes what was written
//! so far readable, and a reader that caught up waits for more or for the
//! writer to finish. Dropping the last handle of a file frees its extents.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SpillFile, SpillWriter, TempFileFactory};
use futures::{Stream, StreamExt};
use parking_lot::Mutex;

use super::area::{Extent, SpillArea, TierCounters};
use super::chunks::{ChunkStream, ExtentSource};

/// Chunks a spill reader keeps in flight.
const READ_AHEAD: usize = 2;

/// The `TempFileFactory` a job's DataFusion runtime spills through.
pub struct SpillFiles {
    area: Arc<SpillArea>,
}

impl SpillFiles {
    /// Spill files on `area`.
    pub fn new(area: Arc<SpillArea>) -> SpillFiles {
        SpillFiles { area }
    }
}

impl TempFileFactory for SpillFiles {
    fn create_temp_file(&self, _description: &str) -> Result<Arc<dyn SpillFile>> {
        TierCounters::add(&self.area.counters().spill_files, 1);
        Ok(Arc::new(TierSpillFile {
            shared: Arc::new(FileShared {
                area: self.area.clone(),
                state: Mutex::new(FileState::default()),
            }),
        }))
    }
}

/// One spill file; clones of the `Arc` share it.
struct TierSpillFile {
    shared: Arc<FileShared>,
}

struct FileShared {
    area: Arc<SpillArea>,
    state: Mutex<FileState>,
}

#[derive(Default)]
struct FileState {
    extents: Vec<Extent>,
    bytes: u64,
    phase: Phase,
    /// Readers waiting for the writer.
    waiting: Vec<Waker>,
}

/// Where a file is in its life.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No writer yet: readers wait.
    #[default]
    Created,
    /// A writer is open: readers wait at the end of what is written.
    Writing,
    /// The writer finished or was dropped: the end is the end.
    Finished,
}

impl FileShared {
    fn push(&self, extent: Extent) {
        let mut state = self.state.lock();
        state.bytes += extent.len() as u64;
        state.extents.push(extent);
        state.waiting.drain(..).for_each(Waker::wake);
    }

    fn set_phase(&self, phase: Phase) {
        let mut state = self.state.lock();
        state.phase = phase;
        state.waiting.drain(..).for_each(Waker::wake);
    }
}

impl Drop for FileShared {
    fn drop(&mut self) {
        for extent in self.state.get_mut().extents.drain(..) {
            self.area.release(extent);
        }
    }
}

/// The extents of a file, as they are written.
struct FileExtents(Arc<FileShared>);

impl ExtentSource for FileExtents {
    fn poll_extent(&self, index: usize, cx: &mut Context<'_>) -> Poll<Option<Extent>> {
        let mut state = self.0.state.lock();
        if let Some(extent) = state.extents.get(index) {
            return Poll::Ready(Some(*extent));
        }
        if state.phase == Phase::Finished {
            return Poll::Ready(None);
        }
        state.waiting.push(cx.waker().clone());
        Poll::Pending
    }
}

impl SpillFile for TierSpillFile {
    fn size(&self) -> Option<u64> {
        Some(self.shared.state.lock().bytes)
    }

    fn read_stream(&self) -> Result<Pin<Box<dyn Stream<Item = Result<Bytes>> + Send>>> {
        let stream = ChunkStream::new(
            self.shared.area.clone(),
            FileExtents(self.shared.clone()),
            READ_AHEAD,
            |c| &c.spill_read,
        );
        Ok(Box::pin(stream.map(|chunk| {
            chunk.map_err(|fault| DataFusionError::IoError(fault.into_io()))
        })))
    }

    fn open_writer(&self) -> Result<Box<dyn SpillWriter>> {
        self.shared.set_phase(Phase::Writing);
        let area = &self.shared.area;
        let chunk = area.chunk_size();
        let reservation = MemoryConsumer::new("ssd-tier spill writer").register(area.pool());
        reservation.grow(chunk);
        Ok(Box::new(TierSpillWriter {
            file: self.shared.clone(),
            buf: Vec::with_capacity(chunk),
            chunk,
            _reservation: reservation,
            finished: false,
        }))
    }
}

/// Appends a file's bytes chunk by chunk.
struct TierSpillWriter {
    file: Arc<FileShared>,
    buf: Vec<u8>,
    chunk: usize,
    _reservation: MemoryReservation,
    finished: bool,
}

impl TierSpillWriter {
    /// Appends the buffered bytes (a chunk or less) as one extent.
    fn append_buffered(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let area = &self.file.area;
        let extent = area.append(&self.buf).map_err(|fault| fault.into_io())?;
        TierCounters::add(&area.counters().spilled, self.buf.len());
        self.buf.clear();
        self.file.push(extent);
        Ok(())
    }
}

impl io::Write for TierSpillWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while !rest.is_empty() {
            let take = rest.len().min(self.chunk - self.buf.len());
            self.buf.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.buf.len() == self.chunk {
                self.append_buffered()?;
            }
        }
        Ok(bytes.len())
    }

    /// Makes everything written so far readable.
    fn flush(&mut self) -> io::Result<()> {
        self.append_buffered()
    }
}

impl SpillWriter for TierSpillWriter {
    fn finish(&mut self) -> Result<()> {
        self.append_buffered().map_err(DataFusionError::IoError)?;
        self.finished = true;
        self.file.set_phase(Phase::Finished);
        Ok(())
    }
}

impl Drop for TierSpillWriter {
    fn drop(&mut self) {
        if !self.finished {
            // A writer dropped without `finish` (an error, or the spill
            // pool's writer going away): keep what is complete, end the file.
            let _ = self.append_buffered();
            self.file.set_phase(Phase::Finished);
        }
    }
}
