//! Where LSNs sit in the byte stream of the log, coarsely: enough to answer
//! "how many log bytes came after this LSN" for the checkpoint trigger
//! without keeping an entry per record.

use std::collections::VecDeque;

/// One mark per [`MARK_EVERY`] bytes of records.
pub(crate) const MARK_EVERY: u64 = 256 << 10;

/// Marks `(lsn, position of the record's first byte)` over the records the
/// log holds, positions counted from the oldest record kept at open.
#[derive(Debug, Default)]
pub(crate) struct LsnPositions {
    end: u64,
    marks: VecDeque<(u64, u64)>,
}

impl LsnPositions {
    /// Notes record `lsn` of `len` bytes, appended after every earlier one.
    pub fn note(&mut self, lsn: u64, len: u64) {
        let start = self.end;
        self.end += len;
        let due = self
            .marks
            .back()
            .is_none_or(|&(_, at)| start - at >= MARK_EVERY);
        if due {
            self.marks.push_back((lsn, start));
        }
    }

    /// Bytes of the records with an LSN above `lsn`; may overcount by less
    /// than [`MARK_EVERY`] plus one record. The caller answers 0 itself when
    /// `lsn` is the last LSN or later.
    pub fn bytes_after(&self, lsn: u64) -> u64 {
        let i = self
            .marks
            .partition_point(|&(l, _)| l <= lsn.saturating_add(1));
        match i {
            0 => self.end - self.marks.front().map_or(self.end, |&(_, at)| at),
            _ => self.end - self.marks[i - 1].1,
        }
    }

    /// Forgets marks that only describe records below `lsn`.
    pub fn forget_before(&mut self, lsn: u64) {
        while self.marks.len() > 1 && self.marks[1].0 <= lsn {
            self.marks.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_after_is_close_and_never_under() {
        let mut p = LsnPositions::default();
        for lsn in 1..=100_000u64 {
            p.note(lsn, 100);
        }
        for lsn in [1u64, 10, 5_000, 50_000, 99_998] {
            let exact = (100_000 - lsn) * 100;
            let got = p.bytes_after(lsn);
            assert!(
                got >= exact && got < exact + MARK_EVERY + 100,
                "lsn {lsn}: {got} vs {exact}"
            );
        }
        p.forget_before(50_000);
        let exact = 50_000 * 100;
        assert!(p.bytes_after(50_000) >= exact);
        assert!(p.bytes_after(50_000) < exact + MARK_EVERY + 100);
    }

    #[test]
    fn empty_has_nothing_after() {
        let p = LsnPositions::default();
        assert_eq!(p.bytes_after(0), 0);
    }
}
