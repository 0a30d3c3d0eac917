//! What the bitmap commands share: offsets as Redis bounds them, bit
//! access most significant bit first, growth within the maximum item size,
//! and `BITCOUNT`/`BITPOS` ranges. A leaf.

use std::borrow::Cow;

use strata_kv::{ItemRef, KvError, NewItem};

use crate::commands::collection::not_string;
use crate::commands::getrange::clamp_range;

use crate::number::parse_i64;
use crate::reply::{RespError, ValueError};

/// A bit offset argument: a non-negative integer whose byte is below
/// `max_bulk` (`proto-max-bulk-len`); with `bits`, `#n` means `n * bits`
/// (`BITFIELD`'s type-relative offsets).
pub fn bit_offset(arg: &[u8], bits: Option<u32>, max_bulk: usize) -> Result<u64, RespError> {
    let (relative, digits) = match (bits, arg.first()) {
        (Some(_), Some(b'#')) => (true, &arg[1..]),
        _ => (false, arg),
    };
    let n = parse_i64(digits).ok_or(RespError::from(ValueError::BitOffset))?;
    let n = match (relative, bits) {
        (true, Some(bits)) => n
            .checked_mul(i64::from(bits))
            .ok_or(RespError::from(ValueError::BitOffset))?,
        _ => n,
    };
    let n = u64::try_from(n).map_err(|_| RespError::from(ValueError::BitOffset))?;
    if n >> 3 >= max_bulk as u64 {
        return Err(RespError::from(ValueError::BitOffset));
    }
    Ok(n)
}

/// Refuses a string that would grow to `len` bytes past the engine's
/// maximum item size.
pub fn check_growth(len: usize, max_item: usize) -> Result<(), RespError> {
    match len > max_item {
        true => Err(KvError::TooLarge {
            size: len,
            limit: max_item,
        }
        .into()),
        false => Ok(()),
    }
}

/// A string being changed bit by bit: its bytes, grown with zeros to
/// cover what is written, and its memcached flags and expiry, kept.
pub struct Grown {
    /// The bytes.
    pub value: Vec<u8>,
    flags: u32,
    expires_at: Option<u64>,
}

impl Grown {
    /// `old` (missing: empty) grown to at least `need` bytes; refused past
    /// `max_item`, and with `WRONGTYPE` for another type.
    pub fn from(
        old: Option<ItemRef<'_>>,
        need: usize,
        max_item: usize,
    ) -> Result<Grown, RespError> {
        if not_string(old) {
            return Err(RespError::WrongType);
        }
        check_growth(need, max_item)?;
        let (bytes, flags, expires_at) = match old {
            Some(item) => (item.value, item.flags, item.expires_at),
            None => (&[][..], 0, None),
        };
        let mut value = Vec::with_capacity(need.max(bytes.len()));
        value.extend_from_slice(bytes);
        if value.len() < need {
            value.resize(need, 0);
        }
        Ok(Grown {
            value,
            flags,
            expires_at,
        })
    }

    /// The item to store.
    pub fn into_item(self) -> NewItem<'static> {
        NewItem {
            value: Cow::Owned(self.value),
            flags: self.flags,
            expires_at: self.expires_at,
        }
    }
}

/// Bit `offset` of `value` (zero past its end).
pub fn get_bit(value: &[u8], offset: u64) -> bool {
    let byte = (offset >> 3) as usize;
    value
        .get(byte)
        .is_some_and(|b| b & (0x80 >> (offset & 7)) != 0)
}

/// Sets bit `offset` of `value` (which covers it) to `on`.
pub fn put_bit(value: &mut [u8], offset: u64, on: bool) {
    let (byte, mask) = ((offset >> 3) as usize, 0x80u8 >> (offset & 7));
    match on {
        true => value[byte] |= mask,
        false => value[byte] &= !mask,
    }
}

/// The unit of a `BITCOUNT`/`BITPOS` range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Offsets count bytes (the default).
    Byte,
    /// Offsets count bits.
    Bit,
}

impl Unit {
    /// `BYTE` or `BIT`; anything else is a syntax error.
    pub fn parse(arg: &[u8]) -> Result<Unit, RespError> {
        match arg.to_ascii_lowercase().as_slice() {
            b"byte" => Ok(Unit::Byte),
            b"bit" => Ok(Unit::Bit),
            _ => Err(RespError::Syntax),
        }
    }
}

/// The bits `start..=end` name in a string of `len` bytes, counted in
/// `unit`s with `GETRANGE`'s rules (negative from the end, clamped to the
/// string), which Redis's `BITCOUNT` and `BITPOS` share, as a range of bit
/// offsets; `None` when empty.
pub fn bit_range(start: i64, end: i64, len: usize, unit: Unit) -> Option<(u64, u64)> {
    let total = match unit {
        Unit::Byte => len,
        Unit::Bit => len.saturating_mul(8),
    };
    let (first, last) = clamp_range(start, end, total)?;
    let (first, last) = (first as u64, last as u64);
    Some(match unit {
        Unit::Byte => (first * 8, last * 8 + 7),
        Unit::Bit => (first, last),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_like_redis() {
        assert_eq!(bit_offset(b"7", None, 512 << 20).unwrap(), 7);
        assert!(bit_offset(b"-1", None, 512 << 20).is_err());
        assert!(bit_offset(b"x", None, 512 << 20).is_err());
        // The byte must be below proto-max-bulk-len.
        assert!(bit_offset(b"4294967296", None, 512 << 20).is_err());
        assert_eq!(
            bit_offset(b"4294967295", None, 512 << 20).unwrap(),
            (1 << 32) - 1
        );
        assert_eq!(bit_offset(b"#3", Some(8), 512 << 20).unwrap(), 24);
        assert!(bit_offset(b"#3", None, 512 << 20).is_err());
    }

    #[test]
    fn bits_are_msb_first() {
        let mut v = vec![0u8; 2];
        put_bit(&mut v, 1, true);
        put_bit(&mut v, 15, true);
        assert_eq!(v, [0x40, 0x01]);
        assert!(get_bit(&v, 1) && get_bit(&v, 15) && !get_bit(&v, 0) && !get_bit(&v, 99));
        put_bit(&mut v, 1, false);
        assert_eq!(v, [0, 1]);
    }

    #[test]
    fn ranges_like_redis() {
        assert_eq!(bit_range(0, -1, 3, Unit::Byte), Some((0, 23)));
        assert_eq!(bit_range(1, 1, 3, Unit::Byte), Some((8, 15)));
        assert_eq!(bit_range(5, 30, 3, Unit::Bit), Some((5, 23)));
        assert_eq!(bit_range(-5, -1, 1, Unit::Bit), Some((3, 7)));
        assert_eq!(bit_range(2, 1, 3, Unit::Byte), None);
        assert_eq!(bit_range(0, -1, 0, Unit::Byte), None);
        // Both ends clamp to the first byte, as Redis clamps them.
        assert_eq!(bit_range(-100, -50, 3, Unit::Byte), Some((0, 7)));
    }
}
