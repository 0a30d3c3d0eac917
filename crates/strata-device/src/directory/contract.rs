//! The file-level contract: [`Device`] (one growable file) and
//! [`Directory`] (a flat namespace of them, with the one atomic
//! [`Directory::replace`]). What the log, the snapshots, the transaction
//! log and search's files are written through; every implementation in
//! this folder is an adapter over the aligned-I/O core.

use std::io;

use crate::core::Mapping;

/// A file-like storage object.
///
/// Contract: `write_all_at` may leave its bytes volatile until `sync` returns
/// `Ok`; after a crash, only bytes covered by a successful `sync` are
/// guaranteed to be present (later bytes may be present, absent or torn).
/// After `sync` returns an error the caller MUST assume any write since the
/// last successful sync is lost, and MUST NOT retry the sync and treat it as
/// success (fsync errors are not sticky on Linux).
pub trait Device: Send + Sync {
    /// Current length in bytes.
    fn len(&self) -> io::Result<u64>;

    /// True when the device holds no bytes.
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Fills `buf` from `offset`; an error if the device ends first.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;

    /// Writes all of `buf` at `offset`, extending the device if needed.
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;

    /// Makes every completed write durable (data, and the length).
    fn sync(&self) -> io::Result<()>;

    /// Truncates or extends (with zeros) to `len` bytes.
    fn set_len(&self, len: u64) -> io::Result<()>;

    /// `len` bytes at `start` in a new buffer; `UnexpectedEof` if the
    /// device ends first. A device opened for block reads
    /// ([`Directory::open_for_blocks`]) reads them straight from the
    /// medium when `start` is a multiple of
    /// [`BLOCK_ALIGN`](crate::BLOCK_ALIGN).
    fn read_block(&self, start: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut bytes = vec![0; len];
        self.read_exact_at(&mut bytes, start)?;
        Ok(bytes)
    }

    /// The whole device as it is now, for reading only. Contract: the
    /// caller never writes, truncates or extends the device again (by any
    /// handle) while the result lives. A file is mapped (no copy); other
    /// devices (the default) read their bytes into memory.
    fn map(&self) -> io::Result<Mapping> {
        let len = usize::try_from(self.len()?)
            .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "device too large"))?;
        self.read_block(0, len).map(Mapping::owned)
    }
}

/// A flat namespace of devices (one directory on disk).
///
/// Contract: `create`, `rename` and `remove` change the namespace at once for
/// readers, but the change is durable only after `sync_names` returns `Ok`.
/// `rename` replaces an existing target atomically.
pub trait Directory: Send + Sync {
    /// Creates (or truncates) the device `name`.
    fn create(&self, name: &str) -> io::Result<Box<dyn Device>>;

    /// Opens the existing device `name`; `NotFound` if absent.
    fn open(&self, name: &str) -> io::Result<Box<dyn Device>>;

    /// Opens the existing device `name`, which is never written again, to
    /// read blocks of it ([`Device::read_block`]) that a cache above keeps:
    /// a file is opened read-only with `O_DIRECT` where its filesystem
    /// allows, so the page cache holds no second copy. Writes through the
    /// result fail. The default is [`open`](Self::open).
    fn open_for_blocks(&self, name: &str) -> io::Result<Box<dyn Device>> {
        self.open(name)
    }

    /// Atomically renames `from` to `to`, replacing `to`.
    fn rename(&self, from: &str, to: &str) -> io::Result<()>;

    /// Removes `name`; `NotFound` if absent.
    fn remove(&self, name: &str) -> io::Result<()>;

    /// Names of the devices present, sorted.
    fn list(&self) -> io::Result<Vec<String>>;

    /// Makes the namespace changes so far durable (fsync of the directory).
    fn sync_names(&self) -> io::Result<()>;

    /// Replaces the content of `name` with `bytes`, atomically and durably:
    /// written to the temporary device `name` + [`REPLACING`], synced,
    /// renamed over `name`, then the names synced. After a crash at any
    /// point `name` holds its old or its new content, whole, never a mix;
    /// a leftover temporary is overwritten by the next replace. On an error
    /// the caller MUST assume nothing about which content a crash would
    /// leave until a later replace succeeds.
    fn replace(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let temporary = format!("{name}{REPLACING}");
        let device = self.create(&temporary)?;
        write_and_rename(self, device, &temporary, name, bytes)
    }

    /// Like [`create`](Self::create), with the permission bits `mode`
    /// (masked to `0o7777`, the umask not applied) in place before any byte
    /// is written, so the content is never readable more widely; an
    /// existing device is truncated and gets `mode` too. The bits are
    /// durable when this returns; the name only after `sync_names`.
    /// A directory that cannot record permissions refuses with
    /// [`io::ErrorKind::Unsupported`] (the default).
    fn create_with_permissions(&self, name: &str, mode: u32) -> io::Result<Box<dyn Device>> {
        let _ = (name, mode);
        Err(unsupported())
    }

    /// The permission bits (`0o7777`) of the device `name`; `NotFound` if
    /// absent, [`io::ErrorKind::Unsupported`] (the default) if this
    /// directory does not record permissions.
    fn permissions(&self, name: &str) -> io::Result<u32> {
        let _ = name;
        Err(unsupported())
    }

    /// [`replace`](Self::replace) whose new content has the permission bits
    /// `mode` (see [`create_with_permissions`](Self::create_with_permissions)),
    /// with the same guarantee: after a crash `name` holds its old content
    /// (and bits) or its new content with `mode`, whole.
    fn replace_with_permissions(&self, name: &str, bytes: &[u8], mode: u32) -> io::Result<()> {
        let temporary = format!("{name}{REPLACING}");
        let device = self.create_with_permissions(&temporary, mode)?;
        write_and_rename(self, device, &temporary, name, bytes)
    }

    /// The whole content of the device `name`; `NotFound` if absent.
    fn read_all(&self, name: &str) -> io::Result<Vec<u8>> {
        let device = self.open(name)?;
        let len = usize::try_from(device.len()?)
            .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "device too large"))?;
        let mut bytes = vec![0; len];
        device.read_exact_at(&mut bytes, 0)?;
        Ok(bytes)
    }
}

/// The suffix of the temporary device a [`Directory::replace`] writes
/// before renaming it over its target.
pub const REPLACING: &str = ".replacing";

/// The rest of a replace once its temporary device is created: the bytes
/// written and synced, the temporary renamed over `name`, the names synced.
fn write_and_rename<D: Directory + ?Sized>(
    directory: &D,
    device: Box<dyn Device>,
    temporary: &str,
    name: &str,
    bytes: &[u8],
) -> io::Result<()> {
    device.write_all_at(bytes, 0)?;
    device.sync()?;
    drop(device);
    directory.rename(temporary, name)?;
    directory.sync_names()
}

/// The devices of `directory` with their lengths, sorted by name; a device
/// removed since the listing is skipped.
pub(crate) fn lengths<D: Directory + ?Sized>(directory: &D) -> io::Result<Vec<(String, u64)>> {
    let mut found = Vec::new();
    for name in directory.list()? {
        match directory.open(&name) {
            Ok(device) => found.push((name, device.len()?)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(found)
}

fn unsupported() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "this directory does not record file permissions",
    )
}
