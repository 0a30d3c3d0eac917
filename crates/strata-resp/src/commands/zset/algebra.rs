//! What `ZUNION`, `ZINTER`, `ZDIFF`, their `STORE` forms and `ZINTERCARD`
//! share: their arguments, parsed in Redis's order (`numkeys`, then the
//! sources' types, then the options), and the combination of the sources.
//! Plain sets count as sorted sets of score 1. The sources are read one at
//! a time (all at once inside `EXEC`).

use std::cmp::Ordering;
use std::collections::HashMap;

use strata_kv::{Store, ValueKind};

use super::stored::read;
use crate::args::Args;
use crate::commands::sets::members;
use crate::number::{parse_f64, parse_i64};
use crate::reply::{CollectionError, RespError};

/// Which operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algebra {
    /// ZUNION, ZUNIONSTORE.
    Union,
    /// ZINTER, ZINTERSTORE, ZINTERCARD.
    Inter,
    /// ZDIFF, ZDIFFSTORE.
    Diff,
}

impl Algebra {
    /// The command's name for errors: `ZUNION`, or `ZUNIONSTORE` when
    /// `stored`, and so on.
    pub fn name(self, stored: bool) -> &'static str {
        match (self, stored) {
            (Algebra::Union, false) => "zunion",
            (Algebra::Inter, false) => "zinter",
            (Algebra::Diff, false) => "zdiff",
            (Algebra::Union, true) => "zunionstore",
            (Algebra::Inter, true) => "zinterstore",
            (Algebra::Diff, true) => "zdiffstore",
        }
    }
}

/// What the command does with the result: each accepts its own options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The `STORE` forms: `WEIGHTS` and `AGGREGATE` (not for a diff).
    Store,
    /// `ZUNION`, `ZINTER`, `ZDIFF`: those and `WITHSCORES`.
    Reply,
    /// `ZINTERCARD`: `LIMIT` only.
    Card,
}

/// How the scores of a member found in several sources combine.
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

/// A parsed request.
#[derive(Debug)]
pub struct Request<'a> {
    keys: Vec<&'a [u8]>,
    weights: Vec<f64>,
    aggregate: Aggregate,
    /// `WITHSCORES` was given (the reply form only).
    pub with_scores: bool,
    /// `ZINTERCARD`'s `LIMIT` (0: none).
    pub limit: usize,
}

/// Parses `numkeys` at argument `at` (the name for errors is `name`), the
/// keys after it, then the options `form` accepts. As Redis, a source of
/// the wrong type is reported before a bad option.
pub fn parse<'a, S: Store>(
    store: &mut S,
    args: &Args<'a>,
    at: usize,
    name: &'static str,
    op: Algebra,
    form: Form,
) -> Result<Request<'a>, RespError> {
    let numkeys = parse_i64(args.get(at)).ok_or(RespError::NotInteger)?;
    if numkeys < 1 {
        return Err(CollectionError::AtLeastOneKey(name).into());
    }
    let first = at + 1;
    let numkeys = usize::try_from(numkeys).unwrap_or(usize::MAX);
    if numkeys > args.len() - first {
        return Err(RespError::Syntax);
    }
    let keys: Vec<&[u8]> = (first..first + numkeys).map(|i| args.get(i)).collect();
    for key in &keys {
        if let Some(kind) = store.kind(key) {
            if kind != ValueKind::Set && kind != ValueKind::SortedSet {
                return Err(RespError::WrongType);
            }
        }
    }
    let mut request = Request {
        weights: vec![1.0; numkeys],
        keys,
        aggregate: Aggregate::Sum,
        with_scores: false,
        limit: 0,
    };
    let scored = op != Algebra::Diff && form != Form::Card;
    let mut i = first + numkeys;
    while i < args.len() {
        let remaining = args.len() - i;
        let word = args.get(i);
        if scored && remaining > numkeys && word.eq_ignore_ascii_case(b"weights") {
            for (k, w) in request.weights.iter_mut().enumerate() {
                *w = parse_f64(args.get(i + 1 + k)).ok_or(CollectionError::WeightNotFloat)?;
            }
            i += numkeys + 1;
        } else if scored && remaining >= 2 && word.eq_ignore_ascii_case(b"aggregate") {
            request.aggregate = match args.get(i + 1).to_ascii_lowercase().as_slice() {
                b"sum" => Aggregate::Sum,
                b"min" => Aggregate::Min,
                b"max" => Aggregate::Max,
                _ => return Err(RespError::Syntax),
            };
            i += 2;
        } else if form == Form::Reply && word.eq_ignore_ascii_case(b"withscores") {
            request.with_scores = true;
            i += 1;
        } else if form == Form::Card && remaining >= 2 && word.eq_ignore_ascii_case(b"limit") {
            request.limit = parse_i64(args.get(i + 1))
                .and_then(|n| usize::try_from(n).ok())
                .ok_or(CollectionError::LimitNegative)?;
            i += 2;
        } else {
            return Err(RespError::Syntax);
        }
    }
    Ok(request)
}

/// A source's members and scores (sets: score 1); empty when missing.
fn source<S: Store>(store: &mut S, key: &[u8]) -> Result<Vec<(f64, Vec<u8>)>, RespError> {
    match store.kind(key) {
        // Either encoding of a set.
        Some(ValueKind::Set) => Ok(members(store, key)?.into_iter().map(|m| (1.0, m)).collect()),
        _ => Ok(read(store, key, |z| z.range(0, z.len()))?.unwrap_or_default()),
    }
}

/// The members of the result and their scores, unordered. As Redis, a
/// union or intersection takes the sources from the smallest to the
/// largest (a stable order, as glibc's `qsort` keeps it), so sums round
/// alike; a weighted score that is NaN counts as 0 where Redis says so
/// (each source's in a union, the first source's in an intersection) and
/// a sum that is NaN becomes 0.
fn members_of<S: Store>(
    store: &mut S,
    request: &Request<'_>,
    op: Algebra,
) -> Result<HashMap<Vec<u8>, f64>, RespError> {
    let mut sources = Vec::with_capacity(request.keys.len());
    for (key, weight) in request.keys.iter().zip(&request.weights) {
        sources.push((source(store, key)?, *weight));
    }
    if op != Algebra::Diff {
        sources.sort_by_key(|(members, _)| members.len());
    }
    let aggregate = request.aggregate;
    let sanitize = |v: f64| if v.is_nan() { 0.0 } else { v };
    let mut sources = sources.into_iter();
    let Some((first, weight)) = sources.next() else {
        return Ok(HashMap::new());
    };
    let mut acc: HashMap<Vec<u8>, f64> = first
        .into_iter()
        .map(|(s, m)| (m, sanitize(s * weight)))
        .collect();
    for (members, weight) in sources {
        match op {
            Algebra::Union => {
                for (s, m) in members {
                    let v = sanitize(s * weight);
                    acc.entry(m)
                        .and_modify(|c| *c = aggregate.apply(*c, v))
                        .or_insert(v);
                }
            }
            Algebra::Inter => {
                let other: HashMap<Vec<u8>, f64> =
                    members.into_iter().map(|(s, m)| (m, s)).collect();
                acc = acc
                    .into_iter()
                    .filter_map(|(m, c)| {
                        let v = other.get(&m)? * weight;
                        Some((m, aggregate.apply(c, v)))
                    })
                    .collect();
            }
            Algebra::Diff => {
                for (_, m) in members {
                    acc.remove(&m);
                }
            }
        }
    }
    Ok(acc)
}

/// The result in (score, member) order as Redis replies it: -0 and 0 are
/// the same score there, ordered by member.
pub fn combine<S: Store>(
    store: &mut S,
    request: &Request<'_>,
    op: Algebra,
) -> Result<Vec<(f64, Vec<u8>)>, RespError> {
    let mut entries: Vec<(f64, Vec<u8>)> = members_of(store, request, op)?
        .into_iter()
        .map(|(m, s)| (s, m))
        .collect();
    entries.sort_by(|a, b| {
        let by_score = a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal);
        by_score.then_with(|| a.1.cmp(&b.1))
    });
    Ok(entries)
}

/// The size of the intersection, counted up to `request.limit` (0: all).
pub fn intersection_size<S: Store>(
    store: &mut S,
    request: &Request<'_>,
) -> Result<usize, RespError> {
    let n = members_of(store, request, Algebra::Inter)?.len();
    Ok(match request.limit {
        0 => n,
        limit => n.min(limit),
    })
}
