//! What `HSCAN`, `SSCAN` and `ZSCAN` share: their options (one parser),
//! `MATCH`, the selection of matching entries, and the step over a large
//! collection's linear-hashing buckets, generic over the entry width (a
//! set's members, a hash's field-value pairs).
//!
//! A packed collection is returned whole in one step (cursor 0), as Redis
//! returns its intsets and listpacks. A large one is walked bucket by
//! bucket from the cursor: whole buckets until `COUNT` entries were looked
//! at. Buckets only split, moving entries to later buckets, so an entry
//! present throughout the scan is returned at least once.

use strata_kv::large::{Hashed, Shape};
use strata_kv::{LargeRead, Store, ValueKind};

use crate::args::Args;
use crate::commands::hashed::{read, View};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The options of `HSCAN`/`SSCAN`/`ZSCAN` after the cursor.
pub struct ScanOptions<'a> {
    /// `MATCH` pattern (`None`: every element).
    pub pattern: Option<&'a [u8]>,
    /// `NOVALUES` (HSCAN only).
    pub no_values: bool,
    /// `COUNT`: entries a step of a large collection's scan aims for.
    pub count: usize,
    /// The cursor.
    pub cursor: u64,
}

/// Parses `cursor [MATCH pattern] [COUNT count] [NOVALUES]` from argument
/// 2 on (`NOVALUES` only when `allow_novalues`). The cursor must be a
/// number; `COUNT` a positive one.
pub fn scan_options<'a>(
    args: &Args<'a>,
    allow_novalues: bool,
) -> Result<ScanOptions<'a>, RespError> {
    let cursor = crate::number::parse_cursor(args.get(2)).ok_or(RespError::InvalidCursor)?;
    let mut options = ScanOptions {
        pattern: None,
        no_values: false,
        count: 10,
        cursor,
    };
    let mut i = 3;
    while i < args.len() {
        let has_value = i + 1 < args.len();
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"match" if has_value => {
                let p = args.get(i + 1);
                options.pattern = (p != b"*").then_some(p);
                i += 2;
            }
            b"count" if has_value => {
                let n = crate::number::parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                if n < 1 {
                    return Err(RespError::Syntax);
                }
                options.count = usize::try_from(n).unwrap_or(usize::MAX);
                i += 2;
            }
            b"novalues" if allow_novalues => {
                options.no_values = true;
                i += 1;
            }
            _ => return Err(RespError::Syntax),
        }
    }
    Ok(options)
}

/// Whether `element` passes the scan's `MATCH`.
pub fn scan_matches(options: &ScanOptions<'_>, element: &[u8]) -> bool {
    options
        .pattern
        .is_none_or(|p| crate::glob::matches(p, element))
}

/// Appends to `out` the elements of the entries of `elements` (`width`
/// elements each, the first the one `MATCH` looks at) that `matches`
/// keeps: the whole entry, or only its first element under `NOVALUES`.
/// Returns the number of entries looked at.
pub fn select<T>(
    elements: Vec<T>,
    width: usize,
    options: &ScanOptions<'_>,
    matches: impl Fn(&[T]) -> bool,
    out: &mut Vec<T>,
) -> usize {
    let keep: Vec<bool> = elements.chunks_exact(width).map(&matches).collect();
    for (i, element) in elements.into_iter().enumerate() {
        let (entry, at) = (i / width, i % width);
        if keep.get(entry).copied().unwrap_or(false) && (at == 0 || !options.no_values) {
            out.push(element);
        }
    }
    keep.len()
}

/// A scan step's next cursor (0: done) and the elements it returns.
pub type ScanStep<T> = (u64, Vec<T>);

/// One step over a collection of `buckets` linear-hashing buckets from
/// bucket `options.cursor`: whole buckets, read with `bucket` (entries of
/// `width` elements, flattened), until `options.count` entries were looked
/// at; the selected elements as in [`select`].
pub fn bucket_step<T>(
    options: &ScanOptions<'_>,
    buckets: u32,
    width: usize,
    mut bucket: impl FnMut(u32) -> Result<Vec<T>, RespError>,
    matches: impl Fn(&[T]) -> bool,
) -> Result<ScanStep<T>, RespError> {
    let mut out = Vec::new();
    let (mut b, mut seen) = (options.cursor, 0usize);
    while b < u64::from(buckets) && seen < options.count {
        // b < buckets, a u32.
        seen += select(bucket(b as u32)?, width, options, &matches, &mut out);
        b += 1;
    }
    let next = if b >= u64::from(buckets) { 0 } else { b };
    Ok((next, out))
}

/// One step over a large hash or set (its entries' width from its shape).
fn large_step(
    hashed: &mut Hashed<'_, LargeRead<'_>>,
    options: &ScanOptions<'_>,
) -> Result<ScanStep<Vec<u8>>, RespError> {
    let (buckets, width) = (hashed.buckets(), hashed.shape().width());
    bucket_step(
        options,
        buckets,
        width,
        |b| Ok(hashed.bucket(b)?),
        |entry| scan_matches(options, &entry[0]),
    )
}

/// `HSCAN`/`SSCAN` of `key` (argument 1), a hash or set (`kind`) in
/// either encoding, with `options`: a packed one whole, a large one by
/// [`large_step`].
pub fn scan_hashed<S: Store>(
    store: &mut S,
    key: &[u8],
    kind: ValueKind,
    options: &ScanOptions<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let width = Shape::of(kind).width();
    let found = read(store, key, kind, |view| {
        match view {
            View::Packed(elements) => {
                let mut matched = Vec::new();
                let matches = |entry: &[&[u8]]| scan_matches(options, entry[0]);
                select(elements.to_vec(), width, options, matches, &mut matched);
                reply(out, 0, &matched);
            }
            View::Large(hashed) => {
                let (next, matched) = large_step(hashed, options)?;
                reply(out, next, &matched);
            }
        }
        Ok(())
    })?;
    if found.is_none() {
        reply::<&[u8]>(out, 0, &[]);
    }
    Ok(())
}

/// Writes a scan reply: the next cursor and the elements.
pub fn reply<E: AsRef<[u8]>>(out: &mut ReplyWriter<'_>, cursor: u64, elements: &[E]) {
    out.array(2);
    out.bulk(itoa::Buffer::new().format(cursor).as_bytes());
    out.array(elements.len());
    for e in elements {
        out.bulk(e.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pattern: Option<&[u8]>, no_values: bool, count: usize) -> ScanOptions<'_> {
        ScanOptions {
            pattern,
            no_values,
            count,
            cursor: 0,
        }
    }

    #[test]
    fn select_keeps_whole_entries_or_only_their_first_element() {
        let pairs: Vec<&[u8]> = vec![b"f1", b"v1", b"g2", b"v2", b"f3", b"v3"];
        let pick = |o: &ScanOptions<'_>| {
            let mut out = Vec::new();
            let seen = select(pairs.clone(), 2, o, |e| scan_matches(o, e[0]), &mut out);
            (seen, out)
        };
        let all = options(None, false, 10);
        assert_eq!(pick(&all), (3, pairs.clone()));
        let f = options(Some(b"f*"), false, 10);
        assert_eq!(pick(&f).1, vec![b"f1" as &[u8], b"v1", b"f3", b"v3"]);
        let names = options(Some(b"f*"), true, 10);
        assert_eq!(pick(&names).1, vec![b"f1" as &[u8], b"f3"]);
        // Width 1: every element is an entry; a value never matches.
        let members: Vec<&[u8]> = vec![b"a", b"b"];
        let mut out = Vec::new();
        let seen = select(members, 1, &all, |e| e[0] == b"b", &mut out);
        assert_eq!((seen, out), (2, vec![b"b" as &[u8]]));
    }

    #[test]
    fn bucket_step_reads_whole_buckets_until_count_and_ends_at_zero() {
        let buckets: Vec<Vec<u32>> = vec![vec![1, 2], vec![], vec![3, 4, 5], vec![6]];
        let read = |b: u32| Ok(buckets[b as usize].clone());
        let o = options(None, false, 3);
        assert_eq!(
            bucket_step(&o, 4, 1, read, |_| true).unwrap(),
            (3, vec![1, 2, 3, 4, 5])
        );
        let o = ScanOptions { cursor: 3, ..o };
        assert_eq!(bucket_step(&o, 4, 1, read, |_| true).unwrap(), (0, vec![6]));
        // A cursor past the end (the collection shrank, or a made-up one).
        let o = ScanOptions { cursor: 9, ..o };
        assert_eq!(bucket_step(&o, 4, 1, read, |_| true).unwrap(), (0, vec![]));
    }
}
