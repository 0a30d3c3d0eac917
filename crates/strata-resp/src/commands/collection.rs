//! What the hash, list, set and sorted-set commands share: reading a key as
//! a collection of one kind (`WRONGTYPE` otherwise) and writing one back.
//!
//! A collection is one record whose value is the packed encoding of
//! [`strata_kv::collection`]. A command decodes the old value into borrowed
//! elements inside its `update` closure, changes that vector (the elements
//! it adds borrow from the request), and [`save`]s it: one new record, the
//! key deleted when the collection became empty (Redis never keeps an empty
//! collection), the expiry kept.

use std::borrow::Cow;

use strata_kv::{collection, ItemRef, Mutation, NewItem, Store, ValueKind};

use crate::reply::{CollectionError, RespError};

/// The elements of `item` if it holds a collection of `kind`.
pub fn elements<'i>(item: &ItemRef<'i>, kind: ValueKind) -> Result<Vec<&'i [u8]>, RespError> {
    if item.kind != kind {
        return Err(RespError::WrongType);
    }
    collection::decode(item.value).ok_or(RespError::Collection(CollectionError::Damaged))
}

/// The old state of a key about to be changed: its elements (empty when
/// the key is missing) and expiry.
pub struct Opened<'i> {
    /// Elements in stored order.
    pub elements: Vec<&'i [u8]>,
    /// The key's expiry, kept by the new value.
    pub expires_at: Option<u64>,
    /// Whether the key existed.
    pub existed: bool,
}

/// Opens `old` (an `update` closure's argument) as a collection of `kind`.
pub fn open<'i>(old: Option<ItemRef<'i>>, kind: ValueKind) -> Result<Opened<'i>, RespError> {
    Ok(match old {
        None => Opened {
            elements: Vec::new(),
            expires_at: None,
            existed: false,
        },
        Some(item) => Opened {
            elements: elements(&item, kind)?,
            expires_at: item.expires_at,
            existed: true,
        },
    })
}

/// The mutation storing `elements` as the key's new value of `kind` (a
/// delete when empty).
pub fn save(kind: ValueKind, elements: &[&[u8]], expires_at: Option<u64>) -> Mutation<'static> {
    if elements.is_empty() {
        return Mutation::Delete;
    }
    let value = collection::encode(elements.iter().copied());
    Mutation::PutKind(
        kind,
        NewItem {
            value: Cow::Owned(value),
            flags: 0,
            expires_at,
        },
    )
}

/// Reads `key` as a collection of `kind` (counting a hit or miss) and calls
/// `f` with its elements; `Ok(None)` when the key is missing.
pub fn read<S: Store, R>(
    store: &mut S,
    key: &[u8],
    kind: ValueKind,
    f: impl FnOnce(&[&[u8]]) -> R,
) -> Result<Option<R>, RespError> {
    store
        .get(key, |item| elements(&item, kind).map(|e| f(&e)))
        .transpose()
}

/// Largest count a random-pick command (`HRANDFIELD`, `SRANDMEMBER`,
/// `ZRANDMEMBER`) answers with repetitions: a reply of a million elements
/// at most, where Redis would build whatever was asked.
pub const MAX_RANDOM_COUNT: i64 = 1 << 20;

/// Which elements a random pick of `count` chooses among `n` (indexes):
/// distinct ones for a positive count (all of them, shuffled, when the
/// count is larger), possibly repeated ones for a negative count.
pub fn random_picks(n: usize, count: i64) -> Result<Vec<usize>, RespError> {
    use rand::seq::SliceRandom;
    use rand::Rng;
    let mut rng = rand::thread_rng();
    if count >= 0 {
        let want = usize::try_from(count).unwrap_or(usize::MAX).min(n);
        let mut picks = rand::seq::index::sample(&mut rng, n, want).into_vec();
        picks.shuffle(&mut rng);
        return Ok(picks);
    }
    if count < -MAX_RANDOM_COUNT {
        return Err(RespError::Collection(CollectionError::MustBePositive));
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let want = count.unsigned_abs() as usize;
    Ok((0..want).map(|_| rng.gen_range(0..n)).collect())
}

/// The options of `HSCAN`/`SSCAN`/`ZSCAN` after the cursor.
pub struct ScanOptions<'a> {
    /// `MATCH` pattern (`None`: every element).
    pub pattern: Option<&'a [u8]>,
    /// `NOVALUES` (HSCAN only).
    pub no_values: bool,
    /// `COUNT`: elements a step of a large collection's scan aims for.
    pub count: usize,
    /// The cursor.
    pub cursor: u64,
}

/// Parses `cursor [MATCH pattern] [COUNT count] [NOVALUES]` from argument
/// 2 on. The cursor must be a number; packed collections are returned
/// whole in one step (cursor 0), as Redis does for its listpacks.
pub fn scan_options<'a>(
    args: &crate::args::Args<'a>,
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

/// True when `old` holds something other than a string: string commands
/// then answer `WRONGTYPE` (SET without GET simply replaces it).
pub fn not_string(old: Option<ItemRef<'_>>) -> bool {
    old.is_some_and(|item| item.kind != ValueKind::String)
}
