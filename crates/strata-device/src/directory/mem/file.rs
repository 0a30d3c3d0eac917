//! A [`Device`] on one in-memory file: a core [`MemImage`] shared by its
//! name entries and every device opened on it (an inode, in filesystem
//! terms).

use std::io;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::core::MemImage;
use crate::Device;

/// One file of a [`MemDirectory`](super::MemDirectory).
pub(super) type SharedFile = Arc<Mutex<MemImage>>;

/// A device on one in-memory file.
pub(super) struct MemDevice {
    pub(super) file: SharedFile,
}

impl Device for MemDevice {
    fn len(&self) -> io::Result<u64> {
        Ok(self.file.lock().current().len() as u64)
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let file = self.file.lock();
        let current = file.current();
        match range(offset, buf.len()) {
            Some((start, end)) if end <= current.len() => {
                buf.copy_from_slice(&current[start..end]);
                Ok(())
            }
            _ => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "read of {} bytes at {offset} past the end of the device ({} bytes)",
                    buf.len(),
                    current.len()
                ),
            )),
        }
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let (offset, _) = range(offset, buf.len()).ok_or_else(|| too_large(offset))?;
        self.file.lock().write(offset, buf);
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        self.file.lock().sync();
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let len = usize::try_from(len).map_err(|_| too_large(len))?;
        self.file.lock().set_len(len);
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
