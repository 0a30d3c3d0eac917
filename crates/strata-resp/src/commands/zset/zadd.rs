//! `ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]`
//! and `ZINCRBY key increment member`.

use strata_kv::{collection, Store};

use super::stored::edit_unless_kept;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify;
use crate::number::parse_f64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// `ZADD`'s options (`GEOADD` takes `NX`, `XX` and `CH`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Options {
    /// Only add new members.
    pub nx: bool,
    /// Only update existing members.
    pub xx: bool,
    /// Only raise scores.
    pub gt: bool,
    /// Only lower scores.
    pub lt: bool,
    /// Reply with the members added or changed.
    pub ch: bool,
    /// Add to the score (one pair only).
    pub incr: bool,
}

/// What one ZADD did.
struct Outcome {
    added: usize,
    changed: usize,
    /// INCR: the new score, or `None` when NX/XX/GT/LT refused it.
    score: Option<f64>,
    /// The key was not there.
    created: bool,
}

/// The score a pair sets given the member's `current` one under options
/// `o`: `None` when the options refuse the change.
fn new_score(current: Option<f64>, score: f64, o: Options) -> Result<Option<f64>, RespError> {
    let new = match (current, o.incr) {
        (Some(c), true) => c + score,
        _ => score,
    };
    if new.is_nan() {
        return Err(CollectionError::ScoreNan.into());
    }
    let allowed = match current {
        None => !o.xx,
        Some(c) => !o.nx && (!o.gt || new > c) && (!o.lt || new < c),
    };
    Ok(allowed.then_some(new))
}

fn apply<S: Store>(
    ctx: &mut Ctx<'_, S>,
    key: &[u8],
    o: Options,
    pairs: &[(f64, &[u8])],
) -> Result<Outcome, RespError> {
    let limits = ctx.shared.encodings.zset();
    let kept = |bytes: &[u8]| unchanged(bytes, o, pairs);
    edit_unless_kept(ctx.store, key, limits, kept, |z| {
        let mut outcome = Outcome {
            added: 0,
            changed: 0,
            score: None,
            created: z.len() == 0,
        };
        for &(score, member) in pairs {
            let current = z.score(member)?;
            let Some(new) = new_score(current, score, o)? else {
                continue;
            };
            match current {
                None => outcome.added += 1,
                Some(c) if c != new => outcome.changed += 1,
                Some(_) => {}
            }
            outcome.score = Some(new);
            if current != Some(new) {
                z.put(member, new)?;
            }
        }
        Ok(outcome)
    })
}

/// What `apply` comes to on the packed set stored as `bytes` when no pair
/// changes it (each member there with the score it would set, or refused
/// by the options): read where it lies, nothing copied or written. `None`
/// when some pair changes the set, or fails (the full path answers).
fn unchanged(bytes: &[u8], o: Options, pairs: &[(f64, &[u8])]) -> Option<Outcome> {
    let mut outcome = Outcome {
        added: 0,
        changed: 0,
        score: None,
        created: false,
    };
    for &(score, member) in pairs {
        let current = match collection::pair_value(bytes, member).ok()? {
            Some(at) => Some(collection::score_of(&bytes[at])?),
            None => None,
        };
        let Some(new) = new_score(current, score, o).ok()? else {
            continue;
        };
        if current != Some(new) {
            return None;
        }
        outcome.score = Some(new);
    }
    Some(outcome)
}

/// `zadd` (`zincr` with INCR) when members were added or changed, after
/// `new` for a key created.
fn announce<S>(ctx: &Ctx<'_, S>, key: &[u8], o: Options, outcome: &Outcome) {
    if outcome.added + outcome.changed > 0 {
        let event = if o.incr { "zincr" } else { "zadd" };
        notify::fire_created(ctx, outcome.created, notify::ZSET, event, key);
    }
}

/// Adds or updates members; replies the number added (with CH: added or
/// changed), or with INCR the new score (null when refused).
pub fn zadd<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut o = Options::default();
    let mut i = 2;
    while i < args.len() {
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"nx" => o.nx = true,
            b"xx" => o.xx = true,
            b"gt" => o.gt = true,
            b"lt" => o.lt = true,
            b"ch" => o.ch = true,
            b"incr" => o.incr = true,
            _ => break,
        }
        i += 1;
    }
    let rest = args.len() - i;
    if rest == 0 || rest % 2 != 0 {
        return Err(RespError::Syntax);
    }
    if o.nx && o.xx {
        return Err(CollectionError::NxXx.into());
    }
    if (o.gt && o.lt) || (o.nx && (o.gt || o.lt)) {
        return Err(CollectionError::GtLtNx.into());
    }
    if o.incr && rest > 2 {
        return Err(CollectionError::IncrPairs.into());
    }
    let mut pairs = Vec::with_capacity(rest / 2);
    for j in (i..args.len()).step_by(2) {
        let score = parse_f64(args.get(j)).ok_or(RespError::NotFloat)?;
        pairs.push((score, args.get(j + 1)));
    }
    add_pairs(ctx, args.get(1), o, &pairs, out)
}

/// Applies `pairs` of (score, member) to the sorted set at `key` under
/// options `o` (checked), waking blocked pops if members were added, and
/// writes `ZADD`'s reply.
pub fn add_pairs<S: Store>(
    ctx: &mut Ctx<'_, S>,
    key: &[u8],
    o: Options,
    pairs: &[(f64, &[u8])],
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let outcome = apply(ctx, key, o, pairs)?;
    announce(ctx, key, o, &outcome);
    if outcome.added > 0 {
        ctx.shared.waiters.pushed(key);
    }
    if o.incr {
        match outcome.score {
            Some(s) => out.double(s),
            None => out.null(),
        }
    } else if o.ch {
        out.integer((outcome.added + outcome.changed) as i64);
    } else {
        out.integer(outcome.added as i64);
    }
    Ok(())
}

/// Adds the increment to the member's score (0 when absent); replies it.
pub fn zincrby<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let by = parse_f64(args.get(2)).ok_or(RespError::NotFloat)?;
    let o = Options {
        incr: true,
        ..Options::default()
    };
    let key = args.get(1);
    let outcome = apply(ctx, key, o, &[(by, args.get(3))])?;
    announce(ctx, key, o, &outcome);
    if outcome.added > 0 {
        ctx.shared.waiters.pushed(key);
    }
    match outcome.score {
        Some(s) => out.double(s),
        None => out.null(),
    }
    Ok(())
}
