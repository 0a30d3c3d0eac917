//! Reading the key to sort into the vector of entries, as
//! `sortCommandGeneric` loads it: a missing key is an empty list; a list
//! or sorted set kept in its native order (`BY` a constant) is read only
//! in the `LIMIT` window (reversed for `DESC`), which then starts at 0;
//! anything else is read whole (a set in its own order, a sorted set by
//! rank). What is read is bounded by what the key holds, never by the
//! `LIMIT` asked.

use strata_kv::{Store, ValueKind};

use super::args::Request;
use super::order::{window, Entry};
use crate::commands::list::view;
use crate::commands::sets::members;
use crate::commands::zset::stored;
use crate::reply::RespError;

/// The entries to sort or reply, and the window of them to reply.
#[derive(Debug)]
pub struct Loaded {
    /// The entries, not weighed yet.
    pub entries: Vec<Entry>,
    /// First entry replied.
    pub start: i64,
    /// Last entry replied (`< start`: none).
    pub end: i64,
    /// Keep the loaded order (after Redis's set adjustment below).
    pub dont_sort: bool,
    /// `ALPHA` (forced for a set kept in its order under `STORE` or in a
    /// script).
    pub alpha: bool,
    /// Sort by this pattern (dropped with that adjustment).
    pub by: Option<Vec<u8>>,
}

/// The part of a list or sorted set of `len` in the window `start..=end`
/// (counted from the back for `desc`), as `(first index, count)` in
/// native order.
fn span(len: i64, start: i64, end: i64, desc: bool) -> (u64, u64) {
    let count = (end - start + 1).max(0);
    let first = if desc { len - start - count } else { start };
    (
        u64::try_from(first).unwrap_or(0),
        u64::try_from(count).unwrap_or(0),
    )
}

/// Reads `request.key` (counting a hit or miss); `WRONGTYPE` unless it is
/// a list, set or sorted set. `script`: run from a script (Redis's
/// `CLIENT_SCRIPT`).
pub fn load<S: Store>(
    store: &mut S,
    request: &Request<'_>,
    script: bool,
) -> Result<Loaded, RespError> {
    let key = request.key;
    let kind = store.kind(key);
    if kind.is_some_and(|k| !matches!(k, ValueKind::List | ValueKind::Set | ValueKind::SortedSet)) {
        // Counted as Redis's lookup counts it.
        store.touch(key);
        return Err(RespError::WrongType);
    }
    let mut dont_sort = request.dont_sort;
    let mut alpha = request.alpha;
    let mut by = request.by.map(<[u8]>::to_vec);
    // A set has no order of its own to keep where the result must not
    // depend on it: sorted as strings instead.
    if dont_sort && kind == Some(ValueKind::Set) && (request.store.is_some() || script) {
        dont_sort = false;
        alpha = true;
        by = None;
    }
    let (offset, count) = request.limit;
    let (elements, start, end) = match kind {
        Some(ValueKind::Set) => {
            let all = members(store, key)?;
            let (start, end) = window(offset, count, all.len());
            (all, start, end)
        }
        Some(ValueKind::SortedSet) => {
            let found = stored::read(store, key, |zset| {
                let len = zset.len();
                let (start, end) =
                    window(offset, count, usize::try_from(len).unwrap_or(usize::MAX));
                if !dont_sort {
                    let all = zset.range(0, len)?;
                    return Ok((all.into_iter().map(|e| e.1).collect(), start, end));
                }
                let (first, n) = span(
                    i64::try_from(len).unwrap_or(i64::MAX),
                    start,
                    end,
                    request.desc,
                );
                let mut part: Vec<Vec<u8>> = zset
                    .range(first, first + n)?
                    .into_iter()
                    .map(|e| e.1)
                    .collect();
                if request.desc {
                    part.reverse();
                }
                Ok((part, 0, end - start))
            })?;
            found.unwrap_or((Vec::new(), -1, -2))
        }
        _ => {
            let found = view::read(store, key, |list| {
                let len = list.len();
                let (start, end) =
                    window(offset, count, usize::try_from(len).unwrap_or(usize::MAX));
                if !dont_sort {
                    let all = if len == 0 {
                        Vec::new()
                    } else {
                        list.range(0, len - 1)?
                    };
                    return Ok((all, start, end));
                }
                if end < start {
                    return Ok((Vec::new(), start, end));
                }
                let (first, n) = span(
                    i64::try_from(len).unwrap_or(i64::MAX),
                    start,
                    end,
                    request.desc,
                );
                let mut part = list.range(first, first + n - 1)?;
                if request.desc {
                    part.reverse();
                }
                Ok((part, 0, end - start))
            })?;
            found.unwrap_or((Vec::new(), -1, -2))
        }
    };
    Ok(Loaded {
        entries: elements.into_iter().map(Entry::new).collect(),
        start,
        end,
        dont_sort,
        alpha,
        by,
    })
}

#[cfg(test)]
mod tests {
    use super::span;

    #[test]
    fn the_window_in_native_order() {
        assert_eq!(span(5, 0, 4, false), (0, 5));
        assert_eq!(span(5, 1, 2, false), (1, 2));
        assert_eq!(span(5, 1, 2, true), (2, 2), "ranks 3 and 2, reversed");
        assert_eq!(span(5, 0, 0, true), (4, 1));
        assert_eq!(span(5, 4, 3, true), (1, 0), "empty");
        assert_eq!(span(0, -1, -2, false), (0, 0));
    }
}
