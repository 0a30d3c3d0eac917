//! `GETRANGE key start end` (and its old name `SUBSTR`).

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The byte range `start..=end` selects in a string of `len` bytes, with
/// Redis's handling of negative and out-of-range indexes; `None` for empty.
pub fn clamp_range(start: i64, end: i64, len: usize) -> Option<(usize, usize)> {
    let len = len as i64;
    if (start < 0 && end < 0 && start > end) || len == 0 {
        return None;
    }
    let start = if start < 0 {
        (len + start).max(0)
    } else {
        start
    };
    let end = if end < 0 { (len + end).max(0) } else { end }.min(len - 1);
    (start <= end).then_some((start as usize, end as usize))
}

/// `GETRANGE`: the substring, empty when the key is missing.
pub fn getrange<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let start = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let end = parse_i64(args.get(3)).ok_or(RespError::NotInteger)?;
    let found = ctx.store.get(args.get(1), |item| {
        if not_string(Some(item)) {
            return Err(RespError::WrongType);
        }
        match clamp_range(start, end, item.value.len()) {
            Some((s, e)) => out.bulk(&item.value[s..=e]),
            None => out.bulk(b""),
        }
        Ok(())
    });
    match found {
        Some(result) => result?,
        None => out.bulk(b""),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::clamp_range;

    #[test]
    fn ranges_like_redis() {
        // "Hello"
        assert_eq!(clamp_range(0, -1, 5), Some((0, 4)));
        assert_eq!(clamp_range(-1, -5, 5), None);
        assert_eq!(clamp_range(3, 100, 5), Some((3, 4)));
        assert_eq!(clamp_range(-100, -99, 5), Some((0, 0)));
        assert_eq!(clamp_range(4, 2, 5), None);
        assert_eq!(clamp_range(0, 0, 0), None);
        assert_eq!(clamp_range(i64::MIN, i64::MAX, 5), Some((0, 4)));
        assert_eq!(clamp_range(10, 20, 5), None);
    }
}
