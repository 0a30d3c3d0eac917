//! `ZUNIONSTORE` and `ZINTERSTORE destination numkeys key [key ...]
//! [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]`, `ZDIFFSTORE destination
//! numkeys key [key ...]`. Plain sets count as sorted sets of score 1.
//! The sources are read one at a time (all at once inside `EXEC`).

use std::collections::HashMap;

use strata_kv::large::compare;
use strata_kv::{Store, ValueKind};

use super::stored::{read, replace};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::sets::members;
use crate::number::{parse_f64, parse_i64};
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Which operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algebra {
    /// ZUNIONSTORE.
    Union,
    /// ZINTERSTORE.
    Inter,
    /// ZDIFFSTORE.
    Diff,
}

#[derive(Debug, Clone, Copy)]
enum Aggregate {
    Sum,
    Min,
    Max,
}

impl Aggregate {
    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Self::Sum => {
                let s = a + b;
                // inf + -inf is 0 in Redis, never NaN.
                if s.is_nan() {
                    0.0
                } else {
                    s
                }
            }
            Self::Min => a.min(b),
            Self::Max => a.max(b),
        }
    }
}

/// A source's members and scores (sets: score 1); empty when missing.
fn source<S: Store>(store: &mut S, key: &[u8]) -> Result<Vec<(f64, Vec<u8>)>, RespError> {
    match store.kind(key) {
        // Either encoding of a set.
        Some(ValueKind::Set) => Ok(members(store, key)?.into_iter().map(|m| (1.0, m)).collect()),
        _ => Ok(read(store, key, |z| z.range(0, z.len()))?.unwrap_or_default()),
    }
}

/// Computes the result and replaces the destination; replies its size.
pub fn zstore<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    op: Algebra,
) -> Result<(), RespError> {
    let name = match op {
        Algebra::Union => "zunionstore",
        Algebra::Inter => "zinterstore",
        Algebra::Diff => "zdiffstore",
    };
    let numkeys = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    if numkeys < 1 {
        return Err(CollectionError::AtLeastOneKey(name).into());
    }
    let numkeys = numkeys as usize;
    if numkeys > args.len() - 3 {
        return Err(CollectionError::NumKeysTooLarge.into());
    }
    let mut weights = vec![1.0; numkeys];
    let mut aggregate = Aggregate::Sum;
    let mut i = 3 + numkeys;
    while i < args.len() {
        let opt = args.get(i).to_ascii_lowercase();
        match opt.as_slice() {
            b"weights" if op != Algebra::Diff && i + numkeys < args.len() => {
                for (k, w) in weights.iter_mut().enumerate() {
                    *w = parse_f64(args.get(i + 1 + k)).ok_or(CollectionError::WeightNotFloat)?;
                }
                i += numkeys + 1;
            }
            b"aggregate" if op != Algebra::Diff && i + 1 < args.len() => {
                aggregate = match args.get(i + 1).to_ascii_lowercase().as_slice() {
                    b"sum" => Aggregate::Sum,
                    b"min" => Aggregate::Min,
                    b"max" => Aggregate::Max,
                    _ => return Err(RespError::Syntax),
                };
                i += 2;
            }
            _ => return Err(RespError::Syntax),
        }
    }
    let mut acc: Option<HashMap<Vec<u8>, f64>> = None;
    for (k, weight) in weights.iter().enumerate() {
        let src = source(ctx.store, args.get(3 + k))?;
        let weighted = src.into_iter().map(|(s, m)| {
            let v = s * weight;
            (m, if v.is_nan() { 0.0 } else { v })
        });
        acc = Some(match (acc, op) {
            (None, _) => weighted.collect(),
            (Some(mut a), Algebra::Union) => {
                for (m, s) in weighted {
                    a.entry(m)
                        .and_modify(|c| *c = aggregate.apply(*c, s))
                        .or_insert(s);
                }
                a
            }
            (Some(a), Algebra::Inter) => {
                let other: HashMap<Vec<u8>, f64> = weighted.collect();
                a.into_iter()
                    .filter_map(|(m, s)| other.get(&m).map(|o| (m, aggregate.apply(s, *o))))
                    .collect()
            }
            (Some(mut a), Algebra::Diff) => {
                for (m, _) in weighted {
                    a.remove(&m);
                }
                a
            }
        });
    }
    let result = acc.unwrap_or_default();
    let mut entries: Vec<(f64, &[u8])> = result.iter().map(|(m, s)| (*s, m.as_slice())).collect();
    entries.sort_by(|a, b| compare(*a, *b));
    let limits = ctx.shared.encodings.zset();
    replace(ctx.store, args.get(1), limits, &entries)?;
    out.integer(entries.len() as i64);
    Ok(())
}
