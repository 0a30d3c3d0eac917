//! File-level system calls the mapping needs: an exclusive advisory lock
//! (one arena per file) and block reservation (a write to a hole in a full
//! filesystem would otherwise kill the process with SIGBUS).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// Takes `flock(LOCK_EX | LOCK_NB)` on `file`, released when it closes.
/// `WouldBlock` when another open file description holds it.
pub(super) fn lock_exclusive(file: &File) -> io::Result<()> {
    // SAFETY: flock only reads the fd, which `file` keeps open.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Allocates the blocks of the first `len` bytes of `file`. `Unsupported`
/// when the filesystem cannot (the caller then relies on `set_len`).
pub(super) fn reserve(file: &File, len: u64) -> io::Result<()> {
    let len =
        libc::off_t::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: posix_fallocate only reads the fd, which `file` keeps open.
    let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) };
    match rc {
        0 => Ok(()),
        libc::EOPNOTSUPP | libc::EINVAL => Err(io::Error::from(io::ErrorKind::Unsupported)),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}
