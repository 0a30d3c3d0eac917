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

use crate::args::Args;
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

/// The arguments of a random-pick command, `key [count [<flag>]]`
/// (`HRANDFIELD`'s `WITHVALUES`, `ZRANDMEMBER`'s `WITHSCORES`): the count
/// (`None` without one) and whether `flag` is given. The count is an
/// integer other than `i64::MIN` (whose magnitude Redis cannot represent);
/// it is checked before the flag.
pub fn parse_random_args(args: &Args<'_>, flag: &[u8]) -> Result<(Option<i64>, bool), RespError> {
    let count = match args.len() {
        2 => None,
        _ => match crate::number::parse_i64(args.get(2)) {
            None => return Err(RespError::NotInteger),
            Some(i64::MIN) => return Err(RespError::Collection(CollectionError::CountOutOfRange)),
            Some(n) => Some(n),
        },
    };
    let with_flag = match args.len() {
        2 | 3 => false,
        4 if args.get(3).eq_ignore_ascii_case(flag) => true,
        _ => return Err(RespError::Syntax),
    };
    Ok((count, with_flag))
}

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

/// True when `old` holds something other than a string: string commands
/// then answer `WRONGTYPE` (SET without GET simply replaces it).
pub fn not_string(old: Option<ItemRef<'_>>) -> bool {
    old.is_some_and(|item| item.kind != ValueKind::String)
}
