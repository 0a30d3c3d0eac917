//! What a stub's value holds with the SSD tier: where the key's record is
//! ([`ValueRef`]) and, with a persistent index, where a restart finds the
//! key's newest durable record if that one did not reach the device
//! ([`Prior`]).
//!
//! A stub with a DRAM index holds only the [`ValueRef`] (12 bytes): a
//! restart rebuilds from the device, newest entry first. A stub in
//! persistent memory is adopted as found, so it also holds its [`Prior`]
//! (20 bytes more, [`PERSISTENT_STUB_VALUE_LEN`] in all). Stubs written
//! before the prior existed hold 12 bytes and decode as [`Prior::None`].

use strata_ssd::{BlockLoc, Position};

/// Bytes of a [`ValueRef`].
pub(crate) const VALUE_REF_LEN: usize = 12;
/// Bytes of an encoded [`Prior`].
const PRIOR_LEN: usize = 20;
/// Bytes of a stub's value with a persistent index: the reference, then
/// the prior.
pub(crate) const PERSISTENT_STUB_VALUE_LEN: usize = VALUE_REF_LEN + PRIOR_LEN;

/// Where a stub's record is on the SSD: the entry and its payload length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ValueRef {
    pub loc: BlockLoc,
    pub len: u32,
}

impl ValueRef {
    pub fn encode(&self) -> [u8; VALUE_REF_LEN] {
        let mut out = [0u8; VALUE_REF_LEN];
        out[..8].copy_from_slice(&self.loc.pack().to_le_bytes());
        out[8..].copy_from_slice(&self.len.to_le_bytes());
        out
    }

    /// Decodes the record's reference: the first [`VALUE_REF_LEN`] bytes
    /// of a stub's value.
    pub fn decode(bytes: &[u8]) -> ValueRef {
        let mut packed = [0u8; 8];
        let mut len = [0u8; 4];
        packed.copy_from_slice(&bytes[..8]);
        len.copy_from_slice(&bytes[8..VALUE_REF_LEN]);
        ValueRef {
            loc: BlockLoc::unpack(u64::from_le_bytes(packed)),
            len: u32::from_le_bytes(len),
        }
    }
}

/// What a restart serves for a key whose stub names a record that never
/// reached the device (written within the flush window before a crash):
/// the newest entry of the key that did reach it, among the candidates
/// this says. Candidates are entries of the key appended at or after a
/// position, and, for `Fallback`, one older record.
///
/// Invariant (kept by `shard/ssd.rs`): every record of the key appended
/// after the candidates' position belongs to the key's current life and
/// is newer than the fallback; the fallback stays live on the device
/// until the stub's own record is durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prior {
    /// No candidate: the record is durable (a defragmenter's copy, a
    /// restart's repair) or the stub predates priors; if it is lost, so is
    /// the key.
    None,
    /// The key's current life began with the record at this position (the
    /// key was absent before, or deleted): only entries from here on count.
    Since(Position),
    /// `record` was the key's newest durable record when the stub was
    /// written; entries of the key at or after `since` (everything before
    /// it was durable then) are newer.
    Fallback { record: ValueRef, since: Position },
}

impl Prior {
    /// Where the candidates found by scanning start, if anywhere.
    pub fn since(&self) -> Option<Position> {
        match *self {
            Prior::None => None,
            Prior::Since(since) | Prior::Fallback { since, .. } => Some(since),
        }
    }

    /// The encoding: a [`ValueRef`] (zero length when there is none) and
    /// the position's bits (zero for `None`).
    fn encode(&self) -> [u8; PRIOR_LEN] {
        let (record, since) = match *self {
            Prior::None => ([0u8; VALUE_REF_LEN], 0),
            Prior::Since(since) => ([0u8; VALUE_REF_LEN], since.to_bits()),
            Prior::Fallback { record, since } => (record.encode(), since.to_bits()),
        };
        let mut out = [0u8; PRIOR_LEN];
        out[..VALUE_REF_LEN].copy_from_slice(&record);
        out[VALUE_REF_LEN..].copy_from_slice(&since.to_le_bytes());
        out
    }

    fn decode(bytes: &[u8]) -> Prior {
        let record = ValueRef::decode(&bytes[..VALUE_REF_LEN]);
        let mut since = [0u8; 8];
        since.copy_from_slice(&bytes[VALUE_REF_LEN..PRIOR_LEN]);
        let since = Position::from_bits(u64::from_le_bytes(since));
        match (record.len, since) {
            (0, Position::START) => Prior::None,
            (0, since) => Prior::Since(since),
            (_, since) => Prior::Fallback { record, since },
        }
    }
}

/// A stub's whole value: its record and, with a persistent index, its
/// prior.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StubValue {
    pub current: ValueRef,
    pub prior: Prior,
}

impl StubValue {
    /// Decodes a stub's value of either length.
    pub fn decode(value: &[u8]) -> StubValue {
        let prior = match value.len() >= PERSISTENT_STUB_VALUE_LEN {
            true => Prior::decode(&value[VALUE_REF_LEN..PERSISTENT_STUB_VALUE_LEN]),
            false => Prior::None,
        };
        StubValue {
            current: ValueRef::decode(value),
            prior,
        }
    }

    /// Encodes into `out`: 12 bytes (the reference only) or
    /// [`PERSISTENT_STUB_VALUE_LEN`].
    pub fn encode_into(&self, out: &mut [u8]) {
        out[..VALUE_REF_LEN].copy_from_slice(&self.current.encode());
        if out.len() >= PERSISTENT_STUB_VALUE_LEN {
            out[VALUE_REF_LEN..PERSISTENT_STUB_VALUE_LEN].copy_from_slice(&self.prior.encode());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stub_values_round_trip_and_old_ones_have_no_prior() {
        let current = ValueRef {
            loc: BlockLoc {
                block: 9,
                offset: 4096,
            },
            len: 300,
        };
        let record = ValueRef {
            loc: BlockLoc {
                block: 2,
                offset: 64,
            },
            len: 40,
        };
        let since = Position::new(12, 128);
        for prior in [
            Prior::None,
            Prior::Since(since),
            Prior::Fallback { record, since },
        ] {
            let value = StubValue { current, prior };
            let mut bytes = [0u8; PERSISTENT_STUB_VALUE_LEN];
            value.encode_into(&mut bytes);
            assert_eq!(StubValue::decode(&bytes), value);
            let mut short = [0u8; VALUE_REF_LEN];
            value.encode_into(&mut short);
            let old = StubValue::decode(&short);
            assert_eq!((old.current, old.prior), (current, Prior::None));
        }
    }
}
