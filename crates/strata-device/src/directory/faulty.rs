//! [`FaultyDirectory`]: wraps any [`Directory`] and fails, tears or refuses
//! (full disk) writes and syncs when its [`Faults`] say so; otherwise it
//! passes everything through unchanged. A thin adapter: the faults and the
//! write path that applies them are the core's ([`Faults::write`]), shared
//! with [`FaultyBlockDevice`](crate::FaultyBlockDevice). For tests only.

use std::io;
use std::sync::Arc;

use crate::core::Mapping;
use crate::directory::contract::lengths;
use crate::{Device, Directory, Faults};

/// A [`Directory`] that injects the faults its shared [`Faults`] ask for.
///
/// Names (`create`, `open`, `rename`, `remove`, `list`), permissions and
/// reads (`read_block`, `map` included) pass through
/// untouched; `sync_names`, `create_with_permissions` (which syncs the
/// bits) and every device's `write_all_at` and `sync` check the faults
/// first.
#[derive(Clone)]
pub struct FaultyDirectory {
    inner: Arc<dyn Directory>,
    faults: Arc<Faults>,
}

impl FaultyDirectory {
    /// Wraps `inner`, with no faults switched on.
    pub fn new(inner: Arc<dyn Directory>) -> FaultyDirectory {
        FaultyDirectory {
            inner,
            faults: Arc::new(Faults::new()),
        }
    }

    /// Wraps `inner`, obeying `faults` (shared with other directories, so
    /// that one switch fails a whole set of them).
    pub fn with_faults(inner: Arc<dyn Directory>, faults: Arc<Faults>) -> FaultyDirectory {
        FaultyDirectory { inner, faults }
    }

    /// The switches and counters shared with every device handed out.
    pub fn faults(&self) -> Arc<Faults> {
        self.faults.clone()
    }

    /// The wrapped directory (without faults).
    pub fn inner(&self) -> &Arc<dyn Directory> {
        &self.inner
    }

    fn wrap(&self, inner: Box<dyn Device>) -> Box<dyn Device> {
        Box::new(FaultyDevice {
            inner,
            directory: self.inner.clone(),
            faults: self.faults.clone(),
        })
    }
}

impl Directory for FaultyDirectory {
    fn create(&self, name: &str) -> io::Result<Box<dyn Device>> {
        Ok(self.wrap(self.inner.create(name)?))
    }

    fn open(&self, name: &str) -> io::Result<Box<dyn Device>> {
        Ok(self.wrap(self.inner.open(name)?))
    }

    fn open_for_blocks(&self, name: &str) -> io::Result<Box<dyn Device>> {
        Ok(self.wrap(self.inner.open_for_blocks(name)?))
    }

    fn create_with_permissions(&self, name: &str, mode: u32) -> io::Result<Box<dyn Device>> {
        // It makes the bits durable: a sync, which may fail.
        self.faults.admit_sync()?;
        Ok(self.wrap(self.inner.create_with_permissions(name, mode)?))
    }

    fn permissions(&self, name: &str) -> io::Result<u32> {
        self.inner.permissions(name)
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        self.inner.rename(from, to)
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        self.inner.remove(name)
    }

    fn list(&self) -> io::Result<Vec<String>> {
        self.inner.list()
    }

    fn sync_names(&self) -> io::Result<()> {
        self.faults.admit_sync()?;
        self.inner.sync_names()
    }
}

/// A device of a [`FaultyDirectory`].
struct FaultyDevice {
    inner: Box<dyn Device>,
    /// To measure the space used, for the capacity.
    directory: Arc<dyn Directory>,
    faults: Arc<Faults>,
}

impl FaultyDevice {
    /// Total length of the named devices of the directory.
    fn used(&self) -> io::Result<u64> {
        let lengths = lengths(&*self.directory)?;
        Ok(lengths
            .iter()
            .fold(0u64, |total, (_, len)| total.saturating_add(*len)))
    }
}

impl Device for FaultyDevice {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.inner.read_exact_at(buf, offset)
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let growth = || {
            let end = offset.saturating_add(buf.len() as u64);
            Ok(end.saturating_sub(self.inner.len()?))
        };
        self.faults.write(
            buf,
            1,
            growth,
            || self.used(),
            |bytes| self.inner.write_all_at(bytes, offset),
        )
    }

    fn sync(&self) -> io::Result<()> {
        self.faults.admit_sync()?;
        self.inner.sync()
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.inner.set_len(len)
    }

    fn read_block(&self, start: u64, len: usize) -> io::Result<Vec<u8>> {
        self.inner.read_block(start, len)
    }

    fn map(&self) -> io::Result<Mapping> {
        self.inner.map()
    }
}
