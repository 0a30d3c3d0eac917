//! A file opened with `O_DIRECT | O_DSYNC`
//! ([`SyncMode::DirectDsync`](super::SyncMode::DirectDsync)): every write
//! bypasses the page cache and is durable when it returns.
//!
//! An adapter over the core's [`AlignedFile`]: `O_DIRECT` wants
//! block-aligned addresses, offsets and lengths, so all I/O goes through an
//! [`AlignedBuf`] bounce buffer covering whole blocks: a write that starts
//! or ends inside a block reads that block first and rewrites it whole.
//! Invariant: between calls the file is exactly the logical length; a write
//! that had to pad its last block past the end truncates the file back, and
//! that length change (metadata) is what the next `sync` makes durable.
//! Until then a crash may leave the padding (zeros or older bytes of the
//! block) after the end, which the durability contract allows.

use std::io;
use std::path::Path;

use parking_lot::Mutex;

use crate::core::{align_down, AlignedBuf, AlignedFile, Open};
use crate::core::{BLOCK_ALIGN as BLOCK, BLOCK_ALIGN_U64 as BLOCK_U64};
use crate::{Device, IoMode};

/// At most this many bytes move per system call, which bounds the bounce
/// buffer (a multiple of [`BLOCK`]).
const CHUNK: u64 = 1 << 20;

/// One `O_DIRECT | O_DSYNC` file.
pub(super) struct DirectDevice {
    file: AlignedFile,
    /// Serializes I/O: a read-modify-write of a block must not interleave
    /// with another, and the bounce buffer is reused.
    state: Mutex<State>,
}

struct State {
    bounce: AlignedBuf,
    /// A length change (`set_len`, a trim after a padded write, the
    /// truncation of `create`) is not yet durable.
    length_changed: bool,
}

impl DirectDevice {
    /// Opens `path` read-write with `O_DIRECT | O_DSYNC`; with `create`,
    /// creates or truncates it. An `Unsupported` error if the filesystem
    /// refuses `O_DIRECT`.
    pub(super) fn open(path: &Path, create: bool) -> io::Result<DirectDevice> {
        let open = Open {
            create,
            truncate: create,
            dsync: true,
            read_only: false,
        };
        let file = AlignedFile::open(path, IoMode::Direct, open)?;
        Ok(DirectDevice {
            file,
            state: Mutex::new(State {
                bounce: AlignedBuf::zeroed(0),
                length_changed: create,
            }),
        })
    }

    /// Fills the aligned one-block `block` with the file's block at `at`,
    /// zeros where the file (of length `len`) has nothing.
    fn load_block(&self, block: &mut [u8], at: u64, len: u64) -> io::Result<()> {
        let got = if at < len {
            self.file.read_upto(block, at)?
        } else {
            0
        };
        block[got..].fill(0);
        Ok(())
    }

    /// Writes `data` at `offset` block by block; `done` advances to the end
    /// of each completed chunk. `len` is the length before the write.
    fn write_blocks(
        &self,
        bounce: &mut AlignedBuf,
        data: &[u8],
        offset: u64,
        len: u64,
        done: &mut u64,
    ) -> io::Result<()> {
        let end = offset + data.len() as u64;
        while *done < end {
            let pos = *done;
            let first = align_down(pos);
            let stop = first.saturating_add(CHUNK).min(align_up(end)?);
            let chunk_end = stop.min(end);
            let window = bounce.window((stop - first) as usize);
            let head_partial = pos > first;
            if head_partial {
                self.load_block(&mut window[..BLOCK], first, len)?;
            }
            let tail_at = stop - BLOCK_U64;
            if chunk_end < stop && !(head_partial && tail_at == first) {
                let tail = window.len() - BLOCK;
                self.load_block(&mut window[tail..], tail_at, len)?;
            }
            let from = (pos - offset) as usize..(chunk_end - offset) as usize;
            window[(pos - first) as usize..(chunk_end - first) as usize]
                .copy_from_slice(&data[from]);
            self.file.write_all_at(window, first)?;
            *done = chunk_end;
        }
        Ok(())
    }

    /// Truncates padding after `logical`, if a write left some.
    fn trim(&self, state: &mut State, logical: u64) -> io::Result<()> {
        if self.file.file().metadata()?.len() > logical {
            state.length_changed = true;
            self.file.file().set_len(logical)?;
        }
        Ok(())
    }
}

impl Device for DirectDevice {
    fn len(&self) -> io::Result<u64> {
        let _state = self.state.lock();
        Ok(self.file.file().metadata()?.len())
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let end = end_of(offset, buf.len())?;
        let mut state = self.state.lock();
        let len = self.file.file().metadata()?.len();
        if end > len {
            return Err(past_end(offset, end, len));
        }
        let mut pos = offset;
        while pos < end {
            let first = align_down(pos);
            let stop = first.saturating_add(CHUNK).min(align_up(end)?);
            let chunk_end = stop.min(end);
            let window = state.bounce.window((stop - first) as usize);
            let got = self.file.read_upto(window, first)? as u64;
            if first + got < chunk_end {
                // Shrunk by someone else since the length check.
                return Err(past_end(offset, end, first + got));
            }
            buf[(pos - offset) as usize..(chunk_end - offset) as usize]
                .copy_from_slice(&window[(pos - first) as usize..(chunk_end - first) as usize]);
            pos = chunk_end;
        }
        Ok(())
    }

    fn write_all_at(&self, data: &[u8], offset: u64) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let end = end_of(offset, data.len())?;
        let mut state = self.state.lock();
        let len = self.file.file().metadata()?.len();
        let mut done = offset;
        let written = self.write_blocks(&mut state.bounce, data, offset, len, &mut done);
        // On failure keep what completed chunks wrote and drop the padding.
        let logical = if written.is_ok() {
            len.max(end)
        } else {
            len.max(done)
        };
        let trimmed = self.trim(&mut state, logical);
        written.and(trimmed)
    }

    fn sync(&self) -> io::Result<()> {
        let mut state = self.state.lock();
        if state.length_changed {
            // Data is already durable (O_DSYNC); only the length is not.
            self.file.file().sync_all()?;
            state.length_changed = false;
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = self.state.lock();
        state.length_changed = true;
        self.file.file().set_len(len)
    }
}

fn align_up(pos: u64) -> io::Result<u64> {
    pos.checked_add(BLOCK_U64 - 1)
        .map(align_down)
        .ok_or_else(|| invalid_range(pos))
}

fn end_of(offset: u64, len: usize) -> io::Result<u64> {
    offset
        .checked_add(len as u64)
        .ok_or_else(|| invalid_range(offset))
}

fn invalid_range(offset: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("I/O at offset {offset} overflows the device"),
    )
}

fn past_end(offset: u64, end: u64, len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("read of bytes {offset}..{end} past the end of the device ({len} bytes)"),
    )
}
