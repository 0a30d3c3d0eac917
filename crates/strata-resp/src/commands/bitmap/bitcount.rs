//! `BITCOUNT key [start end [BYTE | BIT]]`.

use strata_kv::Store;

use super::bits::{bit_range, Unit};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Set bits in the bit range `first..=last` of `value` (which covers it).
pub fn count_ones(value: &[u8], first: u64, last: u64) -> u64 {
    let (a, b) = ((first >> 3) as usize, (last >> 3) as usize);
    let whole: u64 = value[a..=b].iter().map(|x| u64::from(x.count_ones())).sum();
    // The bits of the end bytes outside the range (disjoint when a == b).
    let before = !(0xFFu8 >> (first & 7));
    let after = (0xFFu16 >> ((last & 7) + 1)) as u8;
    whole - u64::from((value[a] & before).count_ones()) - u64::from((value[b] & after).count_ones())
}

/// Counts the set bits of the string, or of a range of it in bytes
/// (default) or bits; 0 for a missing key. A start without an end is a
/// syntax error, as in Redis 7.
pub fn bitcount<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let range = match args.len() {
        2 => None,
        4 | 5 => {
            let start = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
            let end = parse_i64(args.get(3)).ok_or(RespError::NotInteger)?;
            let unit = match args.len() {
                5 => Unit::parse(args.get(4))?,
                _ => Unit::Byte,
            };
            Some((start, end, unit))
        }
        _ => return Err(RespError::Syntax),
    };
    let count = ctx
        .store
        .get(args.get(1), |item| {
            if not_string(Some(item)) {
                return Err(RespError::WrongType);
            }
            let value = item.value;
            let (start, end, unit) = range.unwrap_or((0, -1, Unit::Byte));
            Ok(bit_range(start, end, value.len(), unit)
                .map_or(0, |(first, last)| count_ones(value, first, last)))
        })
        .transpose()?
        .unwrap_or(0);
    out.integer(count as i64);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::count_ones;

    #[test]
    fn counts_within_bit_ranges() {
        let v = [0xFF, 0xF0, 0x0F];
        assert_eq!(count_ones(&v, 0, 23), 16);
        assert_eq!(count_ones(&v, 4, 11), 8);
        assert_eq!(count_ones(&v, 9, 9), 1);
        assert_eq!(count_ones(&v, 12, 19), 0);
        assert_eq!(count_ones(&v, 3, 5), 3);
    }
}
