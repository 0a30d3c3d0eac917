//! What a stub's value holds with the SSD tier: where the key's record is
//! ([`ValueRef`]).

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
