//! HyperLogLog values in Redis's own format, so counts, `GET` bytes and
//! values copied from a Redis are the same: a 16-byte header (`HYLL`, the
//! encoding, three unused bytes, the cached cardinality as 8 little-endian
//! bytes whose top bit marks it stale) and 16,384 six-bit registers, either
//! dense (12,288 bytes) or sparse (runs of zeros and of small values,
//! promoted to dense past [`SPARSE_MAX_BYTES`] or a register above 32).
//! An element sets register `hash & 16383` to the run of zeros above those
//! bits, plus one (MurmurHash64A, Redis's seed); the count is Ertl's
//! estimator over the registers' histogram, as Redis 5 and later compute it.
//!
//! A leaf: `dense.rs` and `sparse.rs` hold the two encodings, `hash.rs` the
//! hash, `estimate.rs` the estimator, `format.rs` the constants and
//! `selftest.rs` `PFSELFTEST`'s checks of them all.

mod dense;
mod estimate;
mod format;
mod hash;
pub mod selftest;
mod sparse;

pub use dense::DENSE_SIZE;
pub use format::{Corrupt, NotHll, HEADER, REGISTERS, SPARSE_MAX_BYTES};

const MAGIC: &[u8; 4] = b"HYLL";
const DENSE: u8 = 0;
const SPARSE: u8 = 1;

/// A HyperLogLog value being read or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hll {
    bytes: Vec<u8>,
}

impl Hll {
    /// A new, empty, sparse HyperLogLog (its cached cardinality 0, valid).
    pub fn new() -> Hll {
        let mut bytes = vec![0u8; HEADER];
        bytes[..4].copy_from_slice(MAGIC);
        bytes[4] = SPARSE;
        bytes.extend_from_slice(&sparse::all_zero());
        Hll { bytes }
    }

    /// `value` if it is a HyperLogLog as Redis checks one: the magic, a
    /// known encoding, and the exact length when dense.
    pub fn parse(value: &[u8]) -> Result<Hll, NotHll> {
        let valid = value.len() >= HEADER
            && &value[..4] == MAGIC
            && value[4] <= SPARSE
            && (value[4] != DENSE || value.len() == DENSE_SIZE);
        match valid {
            true => Ok(Hll {
                bytes: value.to_vec(),
            }),
            false => Err(NotHll),
        }
    }

    /// The value's bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Whether it is dense.
    pub fn is_dense(&self) -> bool {
        self.bytes[4] == DENSE
    }

    /// Adds `element`; true when a register changed.
    pub fn add(&mut self, element: &[u8]) -> Result<bool, Corrupt> {
        let (index, count) = hash::pattern(element);
        self.set(index, count)
    }

    /// Raises register `index` to `count` if below; true when it changed.
    fn set(&mut self, index: usize, count: u8) -> Result<bool, Corrupt> {
        match self.is_dense() {
            true => Ok(dense::set(&mut self.bytes[HEADER..], index, count)),
            false => match sparse::set(&mut self.bytes, index, count)? {
                sparse::Set::Done(changed) => Ok(changed),
                sparse::Set::Promote => {
                    self.to_dense()?;
                    Ok(dense::set(&mut self.bytes[HEADER..], index, count))
                }
            },
        }
    }

    /// Converts to the dense encoding (the header, cache included, kept).
    pub fn to_dense(&mut self) -> Result<(), Corrupt> {
        if self.is_dense() {
            return Ok(());
        }
        let mut bytes = vec![0u8; DENSE_SIZE];
        bytes[..HEADER].copy_from_slice(&self.bytes[..HEADER]);
        bytes[4] = DENSE;
        let mut registers = [0u8; REGISTERS];
        sparse::registers(&self.bytes[HEADER..], &mut registers)?;
        for (i, &r) in registers.iter().enumerate().filter(|(_, &r)| r != 0) {
            dense::put(&mut bytes[HEADER..], i, r);
        }
        self.bytes = bytes;
        Ok(())
    }

    /// Raises each of `max`'s registers to this one's where below.
    pub fn merge_into(&self, max: &mut [u8; REGISTERS]) -> Result<(), Corrupt> {
        let mut mine = [0u8; REGISTERS];
        self.registers(&mut mine)?;
        for (m, r) in max.iter_mut().zip(mine) {
            *m = (*m).max(r);
        }
        Ok(())
    }

    /// The sparse opcodes in `PFDEBUG DECODE`'s words; `None` when dense.
    pub fn decode_sparse(&self) -> Option<Result<String, Corrupt>> {
        (!self.is_dense()).then(|| sparse::decode(&self.bytes[HEADER..]))
    }

    /// Every register's value.
    pub fn registers(&self, out: &mut [u8; REGISTERS]) -> Result<(), Corrupt> {
        match self.is_dense() {
            true => {
                for (i, r) in out.iter_mut().enumerate() {
                    *r = dense::get(&self.bytes[HEADER..], i);
                }
                Ok(())
            }
            false => sparse::registers(&self.bytes[HEADER..], out),
        }
    }

    /// Marks the cached cardinality stale.
    pub fn invalidate_cache(&mut self) {
        self.bytes[15] |= 0x80;
    }

    /// The cached cardinality, if valid.
    pub fn cached(&self) -> Option<u64> {
        let card = u64::from_le_bytes(self.bytes[8..16].try_into().ok()?);
        (self.bytes[15] & 0x80 == 0).then_some(card)
    }

    /// Computes the cardinality and caches it.
    pub fn count_and_cache(&mut self) -> Result<u64, Corrupt> {
        let mut registers = [0u8; REGISTERS];
        self.registers(&mut registers)?;
        let card = estimate::count(&registers);
        self.bytes[8..16].copy_from_slice(&card.to_le_bytes());
        Ok(card)
    }
}

impl Default for Hll {
    fn default() -> Self {
        Hll::new()
    }
}

/// The cardinality of registers merged with [`Hll::merge_into`].
pub fn count_registers(registers: &[u8; REGISTERS]) -> u64 {
    estimate::count(registers)
}

/// Writes the registers `max` into `hll` (each raised to it), as `PFMERGE`
/// writes its destination.
pub fn raise_all(hll: &mut Hll, max: &[u8; REGISTERS]) -> Result<(), Corrupt> {
    for (i, &m) in max.iter().enumerate().filter(|(_, &m)| m != 0) {
        hll.set(i, m)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
