//! `SINTER`, `SUNION`, `SDIFF`, their `STORE` forms and `SINTERCARD`,
//! run with every named key's shard held (one consistent view; a `STORE`
//! writes its result in the same step, one journal record).
//!
//! An intersection reads the smallest set whole and asks the others about
//! its members only; a difference reads the first set and asks the
//! others: a large set among them is touched one bucket per member asked
//! about, not read whole.

use std::collections::HashSet;

use strata_kv::{Store, ValueKind};

use super::members::{card, contains_each, members};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::commands::hashed::replace;
use crate::encodings::PackedLimits;
use crate::notify;
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Which operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algebra {
    /// Members in every set.
    Inter,
    /// Members in any set.
    Union,
    /// Members of the first set in none of the others.
    Diff,
}

/// The result over `keys`: in the smallest set's order (Inter), else the
/// first set's, then the others' (Union).
fn compute<S: Store>(
    store: &mut S,
    keys: &[&[u8]],
    op: Algebra,
) -> Result<Vec<Vec<u8>>, RespError> {
    let is_set = |k: Option<ValueKind>| k.is_none_or(|k| k == ValueKind::Set);
    if op == Algebra::Inter {
        // As Redis 7: every key's kind is checked (a key of another kind
        // is an error, even after a missing one); a missing key makes the
        // result empty.
        let mut sizes = Vec::with_capacity(keys.len());
        let mut missing = false;
        for key in keys {
            match store.kind(key) {
                None => missing = true,
                Some(ValueKind::Set) => sizes.push(card(store, key)?),
                Some(_) => return Err(RespError::WrongType),
            }
        }
        if missing {
            return Ok(Vec::new());
        }
        let smallest = (0..keys.len()).min_by_key(|&i| sizes[i]).unwrap_or(0);
        let mut acc = members(store, keys[smallest])?;
        for (i, key) in keys.iter().enumerate() {
            if i != smallest && !acc.is_empty() {
                acc = filter(store, key, acc, true)?;
            }
        }
        return Ok(acc);
    }
    for key in keys {
        if !is_set(store.kind(key)) {
            return Err(RespError::WrongType);
        }
    }
    let Some((first, others)) = keys.split_first() else {
        return Ok(Vec::new());
    };
    let mut acc = members(store, first)?;
    for key in others {
        acc = match op {
            Algebra::Diff if acc.is_empty() => break,
            Algebra::Diff => filter(store, key, acc, false)?,
            _ => {
                let mut seen: HashSet<Vec<u8>> = acc.iter().cloned().collect();
                let more = members(store, key)?;
                acc.extend(more.into_iter().filter(|m| seen.insert(m.clone())));
                acc
            }
        };
    }
    Ok(acc)
}

/// The members of `acc` that are (`keep_present`) or are not in `key`'s set.
fn filter<S: Store>(
    store: &mut S,
    key: &[u8],
    acc: Vec<Vec<u8>>,
    keep_present: bool,
) -> Result<Vec<Vec<u8>>, RespError> {
    let present = contains_each(store, key, acc.iter().map(Vec::as_slice))?;
    Ok(acc
        .into_iter()
        .zip(present)
        .filter(|(_, p)| *p == keep_present)
        .map(|(m, _)| m)
        .collect())
}

/// One algebra command over its keys; with a destination, the result
/// replaces it (deleted when empty).
struct Task<'a> {
    keys: Vec<&'a [u8]>,
    op: Algebra,
    destination: Option<(&'a [u8], PackedLimits)>,
}

impl Atomic for Task<'_> {
    /// The result, and whether the destination existed before.
    type Output = Result<(Vec<Vec<u8>>, bool), RespError>;

    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let result = compute(store, &self.keys, self.op)?;
        let mut existed = false;
        if let Some((key, limits)) = self.destination {
            existed = replace(store, key, ValueKind::Set, limits, &result)?;
        }
        Ok((result, existed))
    }
}

fn run<S: Store>(
    ctx: &mut Ctx<'_, S>,
    keys: Vec<&[u8]>,
    op: Algebra,
    destination: Option<&[u8]>,
) -> Result<(Vec<Vec<u8>>, bool), RespError> {
    let mut held = keys.clone();
    held.extend(destination);
    let limits = ctx.shared.encodings.set_limits();
    let task = Task {
        keys,
        op,
        destination: destination.map(|d| (d, limits)),
    };
    atomically(ctx, &held, task)
}

/// SINTER / SUNION / SDIFF: the members (RESP3: a set reply).
pub fn reply<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    op: Algebra,
) -> Result<(), RespError> {
    let (result, _) = run(ctx, args.iter_from(1).collect(), op, None)?;
    out.set(result.len());
    for m in &result {
        out.bulk(m);
    }
    Ok(())
}

/// The STORE forms: the result replaces the destination (deleted when
/// empty), packed or large by the `set-max-*` limits; replies its size.
pub fn store<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    op: Algebra,
) -> Result<(), RespError> {
    let (result, existed) = run(ctx, args.iter_from(2).collect(), op, Some(args.get(1)))?;
    let event = match op {
        Algebra::Inter => "sinterstore",
        Algebra::Union => "sunionstore",
        Algebra::Diff => "sdiffstore",
    };
    notify::fire_stored(
        ctx,
        existed,
        !result.is_empty(),
        (notify::SET, event),
        args.get(1),
    );
    out.integer(result.len() as i64);
    Ok(())
}

/// `SINTERCARD numkeys key [key ...] [LIMIT limit]`.
pub fn intercard<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let numkeys = parse_i64(args.get(1)).ok_or(RespError::NotInteger)?;
    if numkeys <= 0 {
        return Err(CollectionError::NumKeysNotPositive.into());
    }
    let numkeys = numkeys as usize;
    if numkeys > args.len() - 2 {
        return Err(CollectionError::NumKeysTooLarge.into());
    }
    let mut limit = 0usize;
    let mut i = 2 + numkeys;
    while i < args.len() {
        if args.get(i).eq_ignore_ascii_case(b"limit") && i + 1 < args.len() {
            // Not a number reads as negative, as Redis words it.
            limit = parse_i64(args.get(i + 1))
                .and_then(|n| usize::try_from(n).ok())
                .ok_or(CollectionError::LimitNegative)?;
            i += 2;
        } else {
            return Err(RespError::Syntax);
        }
    }
    let keys = (2..2 + numkeys).map(|k| args.get(k)).collect();
    let n = run(ctx, keys, Algebra::Inter, None)?.0.len();
    let n = if limit > 0 { n.min(limit) } else { n };
    out.integer(n as i64);
    Ok(())
}
