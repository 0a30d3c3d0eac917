//! `SINTER`, `SUNION`, `SDIFF`, their `STORE` forms and `SINTERCARD`.
//!
//! The sources are read one key at a time (each read is consistent; inside
//! `EXEC` all of them are); a `STORE` writes its result after reading.

use std::collections::HashSet;

use strata_kv::{Store, ValueKind};

use super::members;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::save;
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

/// The result over `keys`, in the first set's order where it has one.
fn compute<S: Store>(
    store: &mut S,
    keys: impl Iterator<Item = Vec<u8>>,
    op: Algebra,
) -> Result<Vec<Vec<u8>>, RespError> {
    let mut result: Option<Vec<Vec<u8>>> = None;
    for key in keys {
        let set = members(store, &key)?;
        result = Some(match (result, op) {
            (None, _) => {
                let mut seen = HashSet::new();
                set.into_iter().filter(|m| seen.insert(m.clone())).collect()
            }
            (Some(acc), Algebra::Inter) => {
                let other: HashSet<Vec<u8>> = set.into_iter().collect();
                acc.into_iter().filter(|m| other.contains(m)).collect()
            }
            (Some(acc), Algebra::Diff) => {
                let other: HashSet<Vec<u8>> = set.into_iter().collect();
                acc.into_iter().filter(|m| !other.contains(m)).collect()
            }
            (Some(mut acc), Algebra::Union) => {
                let mut seen: HashSet<Vec<u8>> = acc.iter().cloned().collect();
                acc.extend(set.into_iter().filter(|m| seen.insert(m.clone())));
                acc
            }
        });
    }
    Ok(result.unwrap_or_default())
}

/// SINTER / SUNION / SDIFF: the members (RESP3: a set reply).
pub fn reply<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    op: Algebra,
) -> Result<(), RespError> {
    let result = compute(ctx.store, args.iter_from(1).map(<[u8]>::to_vec), op)?;
    out.set(result.len());
    for m in &result {
        out.bulk(m);
    }
    Ok(())
}

/// The STORE forms: the result replaces the destination (deleted when
/// empty); replies its size.
pub fn store<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    op: Algebra,
) -> Result<(), RespError> {
    let result = compute(ctx.store, args.iter_from(2).map(<[u8]>::to_vec), op)?;
    let refs: Vec<&[u8]> = result.iter().map(Vec::as_slice).collect();
    let mutation = save(ValueKind::Set, &refs, None);
    ctx.store.update(args.get(1), |_| (mutation, ()))?;
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
            let n = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
            limit = usize::try_from(n).map_err(|_| CollectionError::LimitNegative)?;
            i += 2;
        } else {
            return Err(RespError::Syntax);
        }
    }
    let keys = (2..2 + numkeys).map(|k| args.get(k).to_vec());
    let n = compute(ctx.store, keys, Algebra::Inter)?.len();
    let n = if limit > 0 { n.min(limit) } else { n };
    out.integer(n as i64);
    Ok(())
}
