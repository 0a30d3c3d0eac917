//! One in-memory file: the bytes readers see now, the bytes a power cut
//! would leave, and the changes in between, in order.
//!
//! Invariant: applying `unsynced` in order to `durable` gives `current`.

use std::io;
use std::sync::Arc;

use parking_lot::Mutex;

use super::xorshift::XorShift;
use crate::Device;

/// A file shared by its name entries and every device opened on it (an
/// inode, in filesystem terms).
pub(super) type SharedFile = Arc<Mutex<FileState>>;

/// A change not yet covered by a `sync`.
enum Change {
    Write { offset: usize, bytes: Vec<u8> },
    SetLen(usize),
}

impl Change {
    fn apply(&self, content: &mut Vec<u8>) {
        match self {
            Change::Write { offset, bytes } => write_into(content, *offset, bytes),
            Change::SetLen(len) => content.resize(*len, 0),
        }
    }
}

/// Writes `bytes` at `offset`, extending `content` with zeros if needed.
fn write_into(content: &mut Vec<u8>, offset: usize, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    let end = offset + bytes.len();
    if content.len() < end {
        content.resize(end, 0);
    }
    content[offset..end].copy_from_slice(bytes);
}

/// The state of one file.
#[derive(Default)]
pub(super) struct FileState {
    current: Vec<u8>,
    durable: Vec<u8>,
    unsynced: Vec<Change>,
}

impl FileState {
    /// A file whose content is all durable (as found after a crash).
    pub(super) fn all_durable(content: Vec<u8>) -> FileState {
        FileState {
            current: content.clone(),
            durable: content,
            unsynced: Vec::new(),
        }
    }

    fn record(&mut self, change: Change) {
        change.apply(&mut self.current);
        self.unsynced.push(change);
    }

    /// Truncates to zero, as `create` does to an existing file: a change
    /// like any other, durable only after a `sync`.
    pub(super) fn truncate(&mut self) {
        self.record(Change::SetLen(0));
    }

    /// The content a power cut leaves: the durable bytes only.
    pub(super) fn after_crash(&self) -> Vec<u8> {
        self.durable.clone()
    }

    /// The content a power cut may leave on a real disk: the durable bytes,
    /// then a random prefix of the unsynced changes in order, the last kept
    /// write possibly cut to a random prefix of its bytes.
    pub(super) fn after_torn_crash(&self, rng: &mut XorShift) -> Vec<u8> {
        let mut content = self.durable.clone();
        let kept = rng.below(self.unsynced.len() as u64 + 1) as usize;
        let Some((last, whole)) = self.unsynced[..kept].split_last() else {
            return content;
        };
        for change in whole {
            change.apply(&mut content);
        }
        match last {
            Change::Write { offset, bytes } if rng.below(2) == 0 => {
                let torn = rng.below(bytes.len() as u64) as usize;
                write_into(&mut content, *offset, &bytes[..torn]);
            }
            change => change.apply(&mut content),
        }
        content
    }
}

/// A device on one in-memory file.
pub(super) struct MemDevice {
    pub(super) file: SharedFile,
}

impl Device for MemDevice {
    fn len(&self) -> io::Result<u64> {
        Ok(self.file.lock().current.len() as u64)
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let file = self.file.lock();
        let len = file.current.len();
        match range(offset, buf.len()) {
            Some((start, end)) if end <= len => {
                buf.copy_from_slice(&file.current[start..end]);
                Ok(())
            }
            _ => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "read of {} bytes at {offset} past the end of the device ({len} bytes)",
                    buf.len()
                ),
            )),
        }
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let (offset, _) = range(offset, buf.len()).ok_or_else(|| too_large(offset))?;
        self.file.lock().record(Change::Write {
            offset,
            bytes: buf.to_vec(),
        });
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        let mut file = self.file.lock();
        let FileState {
            durable, unsynced, ..
        } = &mut *file;
        for change in unsynced.drain(..) {
            change.apply(durable);
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let len = usize::try_from(len).map_err(|_| too_large(len))?;
        self.file.lock().record(Change::SetLen(len));
        Ok(())
    }
}

/// `offset..offset + len` as memory indices, if it fits.
fn range(offset: u64, len: usize) -> Option<(usize, usize)> {
    let start = usize::try_from(offset).ok()?;
    Some((start, start.checked_add(len)?))
}

fn too_large(offset: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("offset {offset} is beyond what an in-memory device can hold"),
    )
}
