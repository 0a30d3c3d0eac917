//! What a stub's value holds with the SSD tier: where the key's record is
//! ([`ValueRef`]), and with a persistent index also where an older,
//! durable record of the key is ([`StubValue::fallback`]).
//!
//! Why the fallback: with the index in persistent memory a new stub is
//! durable as soon as it is linked, but its record reaches the device only
//! at the next sync. After a crash in between, the restart falls back to
//! the newest record of the key that a sync had covered when the stub was
//! written. That record is intact on the device: its block can only have
//! been freed after a sync covering the record that superseded it, and
//! then that record (or a later one) would have been durable when the stub
//! was written and become the fallback instead.

use strata_ssd::BlockLoc;

/// Bytes of a [`ValueRef`].
pub(crate) const VALUE_REF_LEN: usize = 12;

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

/// A stub's whole value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StubValue {
    /// The key's record.
    pub current: ValueRef,
    /// With a persistent index: the newest record of the key that was
    /// durable when this stub was written, if any (see the module docs).
    pub fallback: Option<ValueRef>,
}

impl StubValue {
    /// Decodes a stub's value of [`VALUE_REF_LEN`] or twice that many bytes
    /// (an all-zero second half: no fallback).
    pub fn decode(bytes: &[u8]) -> StubValue {
        let fallback = bytes
            .get(VALUE_REF_LEN..2 * VALUE_REF_LEN)
            .filter(|half| half.iter().any(|&b| b != 0))
            .map(ValueRef::decode);
        StubValue {
            current: ValueRef::decode(bytes),
            fallback,
        }
    }

    /// Writes the value into `out`, [`VALUE_REF_LEN`] bytes (the fallback
    /// is dropped) or twice that (zeros for none).
    pub fn encode_into(&self, out: &mut [u8]) {
        out[..VALUE_REF_LEN].copy_from_slice(&self.current.encode());
        if let Some(rest) = out.get_mut(VALUE_REF_LEN..2 * VALUE_REF_LEN) {
            match self.fallback {
                Some(f) => rest.copy_from_slice(&f.encode()),
                None => rest.fill(0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stub_values_round_trip_in_both_lengths() {
        let a = ValueRef {
            loc: BlockLoc {
                block: 3,
                offset: 640,
            },
            len: 77,
        };
        let b = ValueRef { len: 9, ..a };
        let both = StubValue {
            current: a,
            fallback: Some(b),
        };
        let mut long = [0u8; 2 * VALUE_REF_LEN];
        both.encode_into(&mut long);
        assert_eq!(StubValue::decode(&long), both);
        let mut short = [0u8; VALUE_REF_LEN];
        both.encode_into(&mut short);
        assert_eq!(StubValue::decode(&short).fallback, None);
        let none = StubValue {
            current: a,
            fallback: None,
        };
        none.encode_into(&mut long);
        assert_eq!(StubValue::decode(&long), none);
    }
}
