//! `SPOP key [count]`, `SRANDMEMBER key [count]`.

use strata_kv::{Mutation, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, random_picks, read, save};
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Removing or only reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// SPOP: removes what it returns (a count must not be negative).
    Pop,
    /// SRANDMEMBER: a negative count may repeat members.
    Random,
}

/// Random members: one (bulk or null) without a count, else an array.
pub fn spop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let count = match args.len() {
        2 => None,
        3 => Some(parse_i64(args.get(2)).ok_or(RespError::NotInteger)?),
        _ => return Err(RespError::Syntax),
    };
    if form == Form::Pop && count.is_some_and(|c| c < 0) {
        return Err(CollectionError::MustBePositive.into());
    }
    let picked: Option<Vec<Vec<u8>>> = match form {
        Form::Random => read(ctx.store, args.get(1), ValueKind::Set, |set| {
            random_picks(set.len(), count.unwrap_or(1))
                .map(|p| p.into_iter().map(|i| set[i].to_vec()).collect())
        })?
        .transpose()?,
        Form::Pop => ctx.store.update(args.get(1), |old| {
            let opened = match open(old, ValueKind::Set) {
                Ok(o) if !o.existed => return (Mutation::Keep, Ok(None)),
                Ok(o) => o,
                Err(e) => return (Mutation::Keep, Err(e)),
            };
            let picks = match random_picks(opened.elements.len(), count.unwrap_or(1)) {
                Ok(p) => p,
                Err(e) => return (Mutation::Keep, Err(e)),
            };
            let mut chosen = vec![false; opened.elements.len()];
            for &i in &picks {
                chosen[i] = true;
            }
            let popped = picks.iter().map(|&i| opened.elements[i].to_vec()).collect();
            let kept: Vec<&[u8]> = opened
                .elements
                .iter()
                .zip(&chosen)
                .filter(|(_, c)| !**c)
                .map(|(m, _)| *m)
                .collect();
            (
                save(ValueKind::Set, &kept, opened.expires_at),
                Ok(Some(popped)),
            )
        })??,
    };
    match (count, picked) {
        (None, Some(p)) if !p.is_empty() => out.bulk(&p[0]),
        (None, _) => out.null(),
        (Some(_), p) => {
            let p = p.unwrap_or_default();
            out.array(p.len());
            for m in &p {
                out.bulk(m);
            }
        }
    }
    Ok(())
}
