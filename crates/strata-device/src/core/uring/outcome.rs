//! What one io_uring read completion means for the request it ends, the
//! same for the batch reader and the queue reader.

use std::io;

/// Errors that mean "try again", not a failed read.
pub(super) fn retry(errno: Option<i32>) -> bool {
    matches!(errno, Some(libc::EINTR | libc::EAGAIN | libc::EBUSY))
}

/// The outcome of a read of `len` bytes whose completion carried `res`:
/// `Some` for a whole read or a real error, `None` when it must be read
/// again with `pread` (a short read, `EINTR`/`EAGAIN`), which reads on or
/// reports the end exactly as
/// [`AlignedFile::read_exact_at`](crate::AlignedFile) does.
pub(super) fn outcome(res: i32, len: usize) -> Option<io::Result<()>> {
    if res < 0 {
        match retry(Some(-res)) {
            true => None,
            false => Some(Err(io::Error::from_raw_os_error(-res))),
        }
    } else if usize::try_from(res).is_ok_and(|n| n == len) {
        Some(Ok(()))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_reads_and_errors_end_and_the_rest_is_read_again() {
        assert!(matches!(outcome(4096, 4096), Some(Ok(()))));
        assert!(outcome(100, 4096).is_none(), "short");
        assert!(outcome(0, 4096).is_none(), "at the end: pread says so");
        assert!(outcome(-libc::EINTR, 4096).is_none());
        assert!(outcome(-libc::EAGAIN, 4096).is_none());
        let err = outcome(-libc::EIO, 4096).unwrap().unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EIO));
    }
}
