//! `SMOVE source destination member`.

use strata_kv::{Mutation, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{elements, save};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Moves the member atomically: 1 if it was in the source, else 0.
pub fn smove<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (source, destination, member) = (args.get(1), args.get(2), args.get(3));
    if source == destination {
        let found = crate::commands::collection::read(ctx.store, source, ValueKind::Set, |s| {
            s.contains(&member)
        })?;
        out.integer(i64::from(found.unwrap_or(false)));
        return Ok(());
    }
    let moved = ctx.store.update_pair(source, destination, |src, dst| {
        let refuse = |e| (Mutation::Keep, Mutation::Keep, Err(e));
        let (mut from, from_exp) = match src.map(|i| (elements(&i, ValueKind::Set), i.expires_at)) {
            None => return (Mutation::Keep, Mutation::Keep, Ok(false)),
            Some((Err(e), _)) => return refuse(e),
            Some((Ok(s), exp)) => (s, exp),
        };
        let (mut to, to_exp) = match dst.map(|i| (elements(&i, ValueKind::Set), i.expires_at)) {
            None => (Vec::new(), None),
            Some((Err(e), _)) => return refuse(e),
            Some((Ok(s), exp)) => (s, exp),
        };
        let Some(at) = from.iter().position(|m| *m == member) else {
            return (Mutation::Keep, Mutation::Keep, Ok(false));
        };
        from.swap_remove(at);
        let dst_change = if to.contains(&member) {
            Mutation::Keep
        } else {
            to.push(member);
            save(ValueKind::Set, &to, to_exp)
        };
        (save(ValueKind::Set, &from, from_exp), dst_change, Ok(true))
    })??;
    out.integer(i64::from(moved));
    Ok(())
}
