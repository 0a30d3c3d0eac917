//! `BITPOS key bit [start [end [BYTE | BIT]]]`.

use strata_kv::Store;

use super::bits::{bit_range, get_bit, Unit};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::number::parse_i64;
use crate::reply::{RespError, ValueError};
use crate::writer::ReplyWriter;

/// The first bit equal to `bit` in `value`'s bit range `first..=last`,
/// whole bytes at a time where they cannot hold it.
fn first(value: &[u8], bit: bool, first: u64, last: u64) -> Option<u64> {
    let skip = if bit { 0x00 } else { 0xFF };
    let mut i = first;
    while i <= last {
        if i % 8 == 0 && i + 7 <= last && value[(i >> 3) as usize] == skip {
            i += 8;
            continue;
        }
        if get_bit(value, i) == bit {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The position of the first bit set (or clear) in the string or a range
/// of it. As in Redis: a missing key is all zeros (0 for a clear bit, -1
/// for a set one); an empty range gives -1; a clear bit not found with no
/// end given is the first bit past the string (the string counts as
/// padded with zeros), with an end given -1.
pub fn bitpos<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let bit = match parse_i64(args.get(2)) {
        Some(0) => false,
        Some(1) => true,
        Some(_) => return Err(RespError::from(ValueError::BitposBit)),
        None => return Err(RespError::NotInteger),
    };
    // As in Redis, the rest is looked at only when the key exists.
    let found = ctx.store.get(args.get(1), |item| {
        if not_string(Some(item)) {
            return Err(RespError::WrongType);
        }
        if args.len() > 6 {
            return Err(RespError::Syntax);
        }
        let start = match args.len() {
            3 => 0,
            _ => parse_i64(args.get(3)).ok_or(RespError::NotInteger)?,
        };
        let unit = match args.len() {
            6 => Unit::parse(args.get(5))?,
            _ => Unit::Byte,
        };
        let end = match args.len() {
            5 | 6 => Some(parse_i64(args.get(4)).ok_or(RespError::NotInteger)?),
            _ => None,
        };
        let Some((lo, hi)) = bit_range(start, end.unwrap_or(-1), item.value.len(), unit) else {
            return Ok(-1);
        };
        Ok(match first(item.value, bit, lo, hi) {
            Some(pos) => pos as i64,
            None if !bit && end.is_none() => hi as i64 + 1,
            None => -1,
        })
    });
    let pos = match found {
        Some(result) => result?,
        None => match bit {
            true => -1,
            false => 0,
        },
    };
    out.integer(pos);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::first;

    #[test]
    fn finds_the_first_bit_in_range() {
        let v = [0xFF, 0xF0, 0x00];
        assert_eq!(first(&v, false, 0, 23), Some(12));
        assert_eq!(first(&v, true, 12, 23), None);
        assert_eq!(first(&v, true, 2, 23), Some(2));
        assert_eq!(first(&v, false, 0, 7), None);
    }
}
