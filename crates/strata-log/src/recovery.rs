//! Opening a log: verify every record, cut a torn tail, refuse (or, on the
//! operator's request, drop) damage in the middle.
//!
//! The writer's ordering makes the distinction sound: a segment is synced
//! before the next one is created, and a new segment's header is synced (and
//! its name made durable) before any record goes into it. So after a crash
//! only the last segment can end in a partial record or a partial header,
//! and nothing valid can follow such damage. Damage anywhere else, or damage
//! followed by a verifying record with a later LSN, is corruption.

use std::time::{Duration, Instant};

use strata_device::{Device, Directory};

use crate::config::RecoveryPolicy;
use crate::positions::LsnPositions;
use crate::record::RECORD_HEADER_LEN;
use crate::scan::{data_end, later_record_exists, SegmentScan, Step};
use crate::segment::{self, BadHeader, SegmentMeta, FORMAT_VERSION, SEGMENT_HEADER_LEN};
use crate::stall::Failure;
use crate::LogError;

/// What [`CommandLog::open`](crate::CommandLog::open) found.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RecoveryReport {
    /// Valid records kept.
    pub records: u64,
    /// LSN of the oldest record kept (the next LSN when none is kept).
    pub first_lsn: u64,
    /// LSN of the newest record kept (`first_lsn - 1` when none is kept).
    pub last_lsn: u64,
    /// Bytes cut from the tail or dropped by `TruncateToLastGood`.
    pub bytes_dropped: u64,
    /// Segment files after recovery.
    pub segments: usize,
    /// Time the scan took.
    pub duration: Duration,
    /// The first bad spot, when there was one.
    pub damage: Option<Damage>,
}

/// A bad spot that recovery cut off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// The segment file.
    pub file: String,
    /// Offset of the first bad byte range (0 for a header).
    pub offset: u64,
    /// What was wrong.
    pub reason: String,
    /// Torn tail (expected after a crash) or corruption (dropped only under
    /// `TruncateToLastGood`).
    pub kind: DamageKind,
}

/// The two kinds of damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DamageKind {
    /// A partial record or header at the end of the last segment.
    TornTail,
    /// Anything else; only opened under `TruncateToLastGood`.
    Corruption,
}

/// The state the writer starts from.
pub(crate) struct Recovered {
    pub segments: Vec<SegmentMeta>,
    /// The segment appends go to (the last one), its valid length and
    /// whether it holds records.
    pub current: Box<dyn Device>,
    pub current_len: u64,
    /// Bytes the current segment's file holds (beyond `current_len`: zeros
    /// preallocated by the flusher).
    pub current_file_len: u64,
    pub current_records: u64,
    pub positions: LsnPositions,
    pub report: RecoveryReport,
}

/// How one segment scanned.
enum Scanned {
    /// Every byte belongs to a valid record; the segment ends at `end`.
    Clean { end: u64 },
    /// Damage at `offset`; records before `good_end` are valid (`None`: the
    /// header itself is bad). `may_be_tail`: damage a crash can leave.
    Damaged {
        offset: u64,
        reason: String,
        good_end: Option<u64>,
        may_be_tail: bool,
    },
}

struct Scanner {
    /// LSN the next record must carry (`None` before the first segment).
    next_lsn: Option<u64>,
    records: u64,
    positions: LsnPositions,
}

pub(crate) fn recover(dir: &dyn Directory, policy: RecoveryPolicy) -> Result<Recovered, LogError> {
    let started = Instant::now();
    let listed = segment::list(dir)?;
    let mut scanner = Scanner {
        next_lsn: None,
        records: 0,
        positions: LsnPositions::default(),
    };
    let mut kept: Vec<SegmentMeta> = Vec::new();
    // The current segment candidate: device, end of its records, file length.
    let mut current: Option<(Box<dyn Device>, u64, u64)> = None;
    let mut damage = None;
    let mut bytes_dropped = 0;
    let mut names_changed = false;
    let mut drop_from = listed.len();

    for (i, meta) in listed.iter().enumerate() {
        let is_last = i + 1 == listed.len();
        let dev = open(dir, meta)?;
        let len = dev
            .len()
            .map_err(|e| LogError::io(format!("read the length of {}", meta.name), e))?;
        match scanner.scan(&*dev, meta, len)? {
            Scanned::Clean { end } => {
                kept.push(meta.clone());
                current = Some((dev, end, len));
            }
            Scanned::Damaged {
                offset,
                reason,
                good_end,
                may_be_tail,
            } => {
                let expected = scanner.next_lsn.unwrap_or(meta.first_lsn);
                let tail = may_be_tail
                    && is_last
                    && !later_record_exists(&*dev, offset, len, expected)
                        .map_err(|e| LogError::io(format!("read {}", meta.name), e))?;
                if !tail && policy == RecoveryPolicy::Strict {
                    return Err(LogError::Corrupt {
                        file: meta.name.clone(),
                        offset,
                        reason,
                    });
                }
                let kind = if tail {
                    DamageKind::TornTail
                } else {
                    DamageKind::Corruption
                };
                tracing::warn!(file = %meta.name, offset, %reason, ?kind, "command log damaged; dropping from here on");
                damage = Some(Damage {
                    file: meta.name.clone(),
                    offset,
                    reason,
                    kind,
                });
                match good_end {
                    Some(end) => {
                        // Count what was written, not the preallocated zeros.
                        let written = data_end(&*dev, end, len)
                            .map_err(|e| LogError::io(format!("read {}", meta.name), e))?;
                        dev.set_len(end)
                            .and_then(|()| dev.sync())
                            .map_err(|e| LogError::io(format!("truncate {}", meta.name), e))?;
                        bytes_dropped += written - end;
                        kept.push(meta.clone());
                        current = Some((dev, end, end));
                    }
                    None => {
                        bytes_dropped += len;
                        remove(dir, meta)?;
                        names_changed = true;
                        scanner.next_lsn = Some(expected);
                    }
                }
                drop_from = i + 1;
                break;
            }
        }
    }
    for meta in &listed[drop_from..] {
        let dev = open(dir, meta)?;
        bytes_dropped += dev.len().unwrap_or(0);
        remove(dir, meta)?;
        names_changed = true;
    }

    let next_lsn = scanner.next_lsn.unwrap_or(1);
    let (current, current_len, current_file_len) = match current {
        Some((dev, end, file_len)) => {
            // What we found may sit only in the page cache (a killed process,
            // not a power cut): make it durable before anyone builds on it.
            dev.sync()
                .map_err(|e| LogError::io("sync the current segment", e))?;
            if names_changed {
                dir.sync_names()
                    .map_err(|e| LogError::io("sync the log directory", e))?;
            }
            (dev, end, file_len)
        }
        None => {
            let meta = SegmentMeta::new(next_lsn);
            let dev = segment::create(dir, &meta).map_err(Failure::into_error)?;
            kept.push(meta);
            let header = SEGMENT_HEADER_LEN as u64;
            (dev, header, header)
        }
    };
    let current_first = kept.last().map_or(next_lsn, |m| m.first_lsn);
    let first_lsn = kept.first().map_or(next_lsn, |m| m.first_lsn);
    let report = RecoveryReport {
        records: scanner.records,
        first_lsn,
        last_lsn: next_lsn - 1,
        bytes_dropped,
        segments: kept.len(),
        duration: started.elapsed(),
        damage,
    };
    tracing::info!(
        records = report.records,
        last_lsn = report.last_lsn,
        bytes_dropped,
        segments = report.segments,
        duration_ms = report.duration.as_millis() as u64,
        "command log recovered"
    );
    Ok(Recovered {
        segments: kept,
        current,
        current_len,
        current_file_len,
        current_records: next_lsn - current_first,
        positions: scanner.positions,
        report,
    })
}

impl Scanner {
    /// Verifies the header and every record of one segment.
    fn scan(
        &mut self,
        dev: &dyn Device,
        meta: &SegmentMeta,
        len: u64,
    ) -> Result<Scanned, LogError> {
        let read_err = |e| LogError::io(format!("read {}", meta.name), e);
        let header = segment::read_header(dev, len).map_err(read_err)?;
        let header_lsn = match header {
            Ok(lsn) => lsn,
            Err(BadHeader::Version(version)) => {
                return Err(LogError::UnsupportedVersion {
                    file: meta.name.clone(),
                    version,
                    supported: FORMAT_VERSION,
                })
            }
            Err(BadHeader::Garbled(reason)) => return Ok(damaged_header(reason.to_string(), true)),
        };
        if header_lsn != meta.first_lsn {
            let reason = format!(
                "header says first LSN {header_lsn}, the name says {}",
                meta.first_lsn
            );
            return Ok(damaged_header(reason, false));
        }
        let mut next = self.next_lsn.unwrap_or(header_lsn);
        if header_lsn != next {
            let reason =
                format!("LSN gap: expected LSN {next}, the segment starts at {header_lsn}");
            return Ok(damaged_header(reason, false));
        }
        self.next_lsn = Some(next);
        let mut scan = SegmentScan::new(dev, len, SEGMENT_HEADER_LEN as u64);
        loop {
            match scan.next_step().map_err(read_err)? {
                Step::Record {
                    offset, lsn, body, ..
                } => {
                    if lsn != next {
                        return Ok(Scanned::Damaged {
                            offset,
                            reason: format!("LSN out of sequence: expected {next}, found {lsn}"),
                            good_end: Some(offset),
                            may_be_tail: true,
                        });
                    }
                    self.positions
                        .note(lsn, (body.len() + RECORD_HEADER_LEN) as u64);
                    self.records += 1;
                    next += 1;
                    self.next_lsn = Some(next);
                }
                Step::End { offset } => return Ok(Scanned::Clean { end: offset }),
                Step::Zeros { offset } => {
                    let written = data_end(dev, offset, len).map_err(read_err)?;
                    if written == offset {
                        return Ok(Scanned::Clean { end: offset });
                    }
                    return Ok(Scanned::Damaged {
                        offset,
                        reason: "zeros where a record should start, with data after them"
                            .to_string(),
                        good_end: Some(offset),
                        may_be_tail: true,
                    });
                }
                Step::Bad { offset, reason } => {
                    return Ok(Scanned::Damaged {
                        offset,
                        reason: reason.to_string(),
                        good_end: Some(offset),
                        may_be_tail: true,
                    })
                }
            }
        }
    }
}

fn damaged_header(reason: String, may_be_tail: bool) -> Scanned {
    Scanned::Damaged {
        offset: 0,
        reason,
        good_end: None,
        may_be_tail,
    }
}

fn open(dir: &dyn Directory, meta: &SegmentMeta) -> Result<Box<dyn Device>, LogError> {
    dir.open(&meta.name)
        .map_err(|e| LogError::io(format!("open {}", meta.name), e))
}

fn remove(dir: &dyn Directory, meta: &SegmentMeta) -> Result<(), LogError> {
    dir.remove(&meta.name)
        .map_err(|e| LogError::io(format!("remove {}", meta.name), e))
}

#[cfg(test)]
#[path = "recovery_tests.rs"]
mod tests;
