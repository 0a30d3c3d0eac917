//! Byte access to persistent memory seen as a slice of `AtomicU64`.
//!
//! Both backings (the real mapping and the simulation) hand their memory to
//! these functions as `&[AtomicU64]`, so every access to persistent memory is
//! an aligned 8-byte atomic: callers that race each other get words torn
//! between old and new values, never undefined behaviour, and no reference
//! to plain bytes of shared memory (`&[u8]`) is ever made. A full aligned
//! word is one store (failure-atomic on persistent memory); a partial word
//! is merged with a compare-and-swap so that writes to disjoint byte ranges
//! never undo each other.
//!
//! Data moves with `Relaxed` ordering; publication between threads is the
//! caller's `Release` store and `Acquire` load on an [`AtomicU64`] word.
//! Bytes are in memory order (`to_ne_bytes`); the crate refuses to build on
//! big-endian targets, so the format is little-endian.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{PmemError, Result};

/// Size of a CPU cache line: the unit of `persist`.
pub(crate) const CACHE_LINE: u64 = 64;

/// Checks that `len` bytes at `offset` lie inside `limit` bytes.
pub(crate) fn check_range(offset: u64, len: u64, limit: u64) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= limit => Ok(()),
        _ => Err(PmemError::OutOfBounds { offset, len, limit }),
    }
}

fn limit(words: &[AtomicU64]) -> u64 {
    words.len() as u64 * 8
}

/// Copies `buf.len()` bytes at `offset` into `buf`.
pub(crate) fn read(words: &[AtomicU64], offset: u64, buf: &mut [u8]) -> Result<()> {
    check_range(offset, buf.len() as u64, limit(words))?;
    let mut pos = offset as usize;
    let mut done = 0;
    while done < buf.len() {
        let in_word = pos % 8;
        let take = (8 - in_word).min(buf.len() - done);
        let bytes = words[pos / 8].load(Ordering::Relaxed).to_ne_bytes();
        buf[done..done + take].copy_from_slice(&bytes[in_word..in_word + take]);
        done += take;
        pos += take;
    }
    Ok(())
}

/// Copies `data` to `offset`. Aligned whole words are single stores.
pub(crate) fn write(words: &[AtomicU64], offset: u64, data: &[u8]) -> Result<()> {
    check_range(offset, data.len() as u64, limit(words))?;
    let mut pos = offset as usize;
    let mut done = 0;
    while done < data.len() {
        let in_word = pos % 8;
        let take = (8 - in_word).min(data.len() - done);
        let part = &data[done..done + take];
        let word = &words[pos / 8];
        if take == 8 {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(part); // take == 8
            word.store(u64::from_ne_bytes(bytes), Ordering::Relaxed);
        } else {
            // The closure never returns None, so the update cannot fail.
            let _ = word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                let mut bytes = old.to_ne_bytes();
                bytes[in_word..in_word + take].copy_from_slice(part);
                Some(u64::from_ne_bytes(bytes))
            });
        }
        done += take;
        pos += take;
    }
    Ok(())
}

/// Sets `len` bytes at `offset` to zero.
pub(crate) fn zero(words: &[AtomicU64], offset: u64, len: u64) -> Result<()> {
    check_range(offset, len, limit(words))?;
    const BLOCK: [u8; 4096] = [0; 4096];
    let mut done = 0;
    while done < len {
        let take = (len - done).min(BLOCK.len() as u64);
        write(words, offset + done, &BLOCK[..take as usize])?;
        done += take;
    }
    Ok(())
}

/// The word at `offset`, which must be a multiple of 8.
pub(crate) fn atomic(words: &[AtomicU64], offset: u64) -> Result<&AtomicU64> {
    if offset % 8 != 0 {
        return Err(PmemError::Misaligned { offset });
    }
    check_range(offset, 8, limit(words))?;
    Ok(&words[(offset / 8) as usize])
}

/// Byte range of the cache lines covering `len` bytes at `offset`, clipped
/// to `limit`. The range is already bounds-checked by the caller.
pub(crate) fn covering_lines(offset: u64, len: u64, limit: u64) -> Range<u64> {
    let start = offset - offset % CACHE_LINE;
    let end = (offset + len).div_ceil(CACHE_LINE) * CACHE_LINE;
    start..end.min(limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(words: usize) -> Vec<AtomicU64> {
        (0..words).map(|_| AtomicU64::new(0)).collect()
    }

    #[test]
    fn unaligned_writes_round_trip_and_keep_neighbours() {
        let words = region(8);
        write(&words, 0, &[0xAA; 64]).unwrap();
        write(&words, 3, b"hello, persistent world").unwrap();
        let mut buf = [0u8; 30];
        read(&words, 0, &mut buf).unwrap();
        assert_eq!(&buf[..3], &[0xAA; 3]);
        assert_eq!(&buf[3..26], b"hello, persistent world");
        assert_eq!(&buf[26..], &[0xAA; 4]);
    }

    #[test]
    fn bounds_and_alignment_are_checked() {
        let words = region(2);
        assert!(matches!(
            write(&words, 10, &[0; 7]),
            Err(PmemError::OutOfBounds {
                offset: 10,
                len: 7,
                limit: 16
            })
        ));
        assert!(read(&words, u64::MAX, &mut [0; 2]).is_err());
        assert!(matches!(
            atomic(&words, 4),
            Err(PmemError::Misaligned { offset: 4 })
        ));
        assert!(atomic(&words, 16).is_err());
        assert!(atomic(&words, 8).is_ok());
        assert!(read(&words, 16, &mut []).is_ok());
    }

    #[test]
    fn covering_lines_round_out_to_cache_lines() {
        assert_eq!(covering_lines(70, 1, 4096), 64..128);
        assert_eq!(covering_lines(64, 64, 4096), 64..128);
        assert_eq!(covering_lines(60, 8, 4096), 0..128);
        assert_eq!(covering_lines(4090, 6, 4096), 4032..4096);
    }
}
