//! Reading the records of one segment in large chunks.
//!
//! Recovery and replay both walk segments with [`SegmentScan`]: it reads
//! megabytes at a time (not one syscall per record), verifies each record's
//! CRC and reports where the valid records end and why.

use std::io;

use strata_device::Device;

use crate::record::{decode, Decoded, RECORD_HEADER_LEN};

/// Bytes read per device call.
pub(crate) const READ_CHUNK: usize = 4 << 20;

/// One step of a scan.
pub(crate) enum Step<'a> {
    /// A record whose CRC verifies, at `offset` in the segment.
    Record {
        offset: u64,
        lsn: u64,
        kind: u8,
        body: &'a [u8],
    },
    /// The segment ends exactly after the last record.
    End { offset: u64 },
    /// Zeros at `offset` where the next record would start: the end of the
    /// records if only zeros follow (preallocated space), a hole otherwise
    /// (see [`data_end`]).
    Zeros { offset: u64 },
    /// The bytes at `offset` are not a whole record.
    Bad { offset: u64, reason: &'static str },
}

/// A cursor over the records of one device.
pub(crate) struct SegmentScan<'d> {
    dev: &'d dyn Device,
    file_len: u64,
    buf: Vec<u8>,
    /// Device offset of `buf[0]`.
    buf_offset: u64,
    /// Next unread byte of `buf`.
    pos: usize,
    /// Bytes of `buf` holding device data.
    filled: usize,
}

impl<'d> SegmentScan<'d> {
    /// Scans `dev` (of `file_len` bytes) from `start`.
    pub fn new(dev: &'d dyn Device, file_len: u64, start: u64) -> SegmentScan<'d> {
        SegmentScan {
            dev,
            file_len,
            buf: Vec::new(),
            buf_offset: start,
            pos: 0,
            filled: 0,
        }
    }

    /// The next record, the end, or the first bad spot. After `End` or `Bad`
    /// the scan must not be advanced further.
    pub fn next_step(&mut self) -> io::Result<Step<'_>> {
        loop {
            let offset = self.buf_offset + self.pos as u64;
            let file_rest = self.file_len.saturating_sub(offset);
            if file_rest == 0 {
                return Ok(Step::End { offset });
            }
            match decode(&self.buf[self.pos..self.filled]) {
                Decoded::Record { lsn, kind, len } => {
                    let start = self.pos;
                    self.pos += len;
                    return Ok(Step::Record {
                        offset,
                        lsn,
                        kind,
                        body: &self.buf[start + RECORD_HEADER_LEN..start + len],
                    });
                }
                Decoded::Zeros => return Ok(Step::Zeros { offset }),
                Decoded::Corrupt { reason } => return Ok(Step::Bad { offset, reason }),
                Decoded::Incomplete { needed } if needed as u64 > file_rest => {
                    let reason = if file_rest < RECORD_HEADER_LEN as u64 {
                        "record header torn at the end of the segment"
                    } else {
                        "record extends past the end of the segment"
                    };
                    return Ok(Step::Bad { offset, reason });
                }
                Decoded::Incomplete { needed } => self.refill(needed)?,
            }
        }
    }

    /// Moves the unread bytes to the front and reads more, so that at least
    /// `needed` bytes (which the caller guarantees the device holds) are
    /// buffered.
    fn refill(&mut self, needed: usize) -> io::Result<()> {
        self.buf.copy_within(self.pos..self.filled, 0);
        self.buf_offset += self.pos as u64;
        self.filled -= self.pos;
        self.pos = 0;
        let file_rest = self.file_len - self.buf_offset;
        let want = needed.max(READ_CHUNK.min(file_rest as usize));
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        let unread = file_rest - self.filled as u64;
        let n = ((self.buf.len() - self.filled) as u64).min(unread) as usize;
        let at = self.buf_offset + self.filled as u64;
        self.dev
            .read_exact_at(&mut self.buf[self.filled..self.filled + n], at)?;
        self.filled += n;
        Ok(())
    }
}

/// The end of the data in `from..file_len` of `dev`: the offset after its
/// last non-zero byte (`from` if all are zero). Preallocated space is zeros,
/// so this is where written bytes stop.
pub(crate) fn data_end(dev: &dyn Device, from: u64, file_len: u64) -> io::Result<u64> {
    let mut end = from;
    let mut buf = vec![0u8; READ_CHUNK.min(file_len.saturating_sub(from) as usize)];
    let mut at = from;
    while at < file_len {
        let n = buf.len().min((file_len - at) as usize);
        dev.read_exact_at(&mut buf[..n], at)?;
        if let Some(last) = buf[..n].iter().rposition(|&b| b != 0) {
            end = at + last as u64 + 1;
        }
        at += n as u64;
    }
    Ok(end)
}

/// True if some offset in `from..file_len` of `dev` holds a record whose CRC
/// verifies and whose LSN is at least `min_lsn`: then the damage at `from`
/// is in the middle of the log, not a torn tail.
pub(crate) fn later_record_exists(
    dev: &dyn Device,
    from: u64,
    file_len: u64,
    min_lsn: u64,
) -> io::Result<bool> {
    let mut rest = vec![0u8; file_len.saturating_sub(from) as usize];
    dev.read_exact_at(&mut rest, from)?;
    Ok((0..rest.len())
        .any(|at| matches!(decode(&rest[at..]), Decoded::Record { lsn, .. } if lsn >= min_lsn)))
}
