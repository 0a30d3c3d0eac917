//! Replay: hand every record from some LSN on to the caller, in order.
//!
//! Used after loading a snapshot: records with an LSN at or above the
//! snapshot's next LSN are applied again. Segments are read in
//! [`READ_CHUNK`](crate::scan::READ_CHUNK)-sized pieces and records are
//! verified in memory, so replay runs at memory speed, not syscall speed.

use strata_device::Directory;

use crate::scan::{SegmentScan, Step};
use crate::segment::{self, BadHeader, FORMAT_VERSION, SEGMENT_HEADER_LEN};
use crate::LogError;

/// What a replay went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ReplayReport {
    /// Records handed to the callback.
    pub records: u64,
    /// LSN of the last record in the log (handed over or not; 0 if none).
    pub last_lsn: u64,
}

/// See [`CommandLog::replay`](crate::CommandLog::replay).
pub(crate) fn replay<E, F>(
    dir: &dyn Directory,
    from_lsn: u64,
    mut apply: F,
) -> Result<ReplayReport, E>
where
    E: From<LogError>,
    F: FnMut(u64, u8, &[u8]) -> Result<(), E>,
{
    let from_lsn = from_lsn.max(1);
    let segments = segment::list(dir)?;
    let mut report = ReplayReport::default();
    let Some(oldest) = segments.first() else {
        return Ok(report);
    };
    if oldest.first_lsn > from_lsn {
        return Err(LogError::MissingRecords {
            wanted: from_lsn,
            first: oldest.first_lsn,
        }
        .into());
    }
    // Skip whole segments that end below `from_lsn`.
    let start = segments.partition_point(|s| s.first_lsn <= from_lsn) - 1;
    let mut next: Option<u64> = None;
    for (i, meta) in segments.iter().enumerate().skip(start) {
        let is_last = i + 1 == segments.len();
        let corrupt = |offset: u64, reason: String| LogError::Corrupt {
            file: meta.name.clone(),
            offset,
            reason,
        };
        let read_err = |e| LogError::io(format!("read {}", meta.name), e);
        let dev = dir
            .open(&meta.name)
            .map_err(|e| LogError::io(format!("open {}", meta.name), e))?;
        let len = dev.len().map_err(read_err)?;
        let first = match segment::read_header(&*dev, len).map_err(read_err)? {
            Ok(lsn) => lsn,
            Err(BadHeader::Garbled(_)) if is_last => break,
            Err(BadHeader::Garbled(reason)) => return Err(corrupt(0, reason.to_string()).into()),
            Err(BadHeader::Version(version)) => {
                return Err(LogError::UnsupportedVersion {
                    file: meta.name.clone(),
                    version,
                    supported: FORMAT_VERSION,
                }
                .into())
            }
        };
        let mut expected = next.unwrap_or(first);
        if first != meta.first_lsn || first != expected {
            let reason = format!("segment starts at LSN {first}, expected {expected}");
            return Err(corrupt(0, reason).into());
        }
        let mut scan = SegmentScan::new(&*dev, len, SEGMENT_HEADER_LEN as u64);
        loop {
            match scan.next_step().map_err(read_err)? {
                Step::Record {
                    offset,
                    lsn,
                    kind,
                    body,
                } => {
                    if lsn != expected {
                        if is_last {
                            break;
                        }
                        let reason =
                            format!("LSN out of sequence: expected {expected}, found {lsn}");
                        return Err(corrupt(offset, reason).into());
                    }
                    if lsn >= from_lsn {
                        apply(lsn, kind, body)?;
                        report.records += 1;
                    }
                    report.last_lsn = lsn;
                    expected += 1;
                }
                // `open` verified that only preallocated zeros follow.
                Step::End { .. } | Step::Zeros { .. } => break,
                // A torn tail that `open` has not cut yet: the log ends here.
                Step::Bad { .. } if is_last => break,
                Step::Bad { offset, reason } => {
                    return Err(corrupt(offset, reason.to_string()).into())
                }
            }
        }
        next = Some(expected);
    }
    Ok(report)
}
