//! Which register an element sets, and to what: MurmurHash64A with Redis's
//! seed; the low 14 bits pick the register, the run of zero bits above
//! them (plus one) is the value.

use super::format::REGISTERS;

/// Redis's seed for HyperLogLog hashing.
const SEED: u64 = 0xadc8_3b19;

/// MurmurHash64A as Redis computes it (little-endian blocks).
pub fn murmur64a(key: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed ^ (key.len() as u64).wrapping_mul(M);
    let mut blocks = key.chunks_exact(8);
    for block in &mut blocks {
        let mut k = u64::from_le_bytes(block.try_into().unwrap_or([0; 8]));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= u64::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// The register `element` sets and the value it sets it to (1..=51).
pub fn pattern(element: &[u8]) -> (usize, u8) {
    let hash = murmur64a(element, SEED);
    let index = (hash & (REGISTERS as u64 - 1)) as usize;
    // A bit above the 50 left guarantees the run ends.
    let rest = (hash >> 14) | (1 << 50);
    (index, rest.trailing_zeros() as u8 + 1)
}
