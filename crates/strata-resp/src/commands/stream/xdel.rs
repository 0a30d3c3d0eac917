//! `XDEL key id [id ...]`.

use strata_kv::{Store, ValueKind};

use super::stored::{edit, Edit};
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::reply::RespError;
use crate::stream::StreamId;
use crate::writer::ReplyWriter;

/// Deletes the entries named (all identifiers are checked first, so a bad
/// one changes nothing); replies how many were there.
pub fn xdel<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    // Redis looks the key up before it reads the identifiers: a missing
    // key answers 0 and another kind WRONGTYPE, whatever they say.
    match ctx.store.kind(args.get(1)) {
        None => {
            out.integer(0);
            return Ok(());
        }
        Some(ValueKind::Stream) => {}
        Some(_) => return Err(RespError::WrongType),
    }
    let ids = args
        .iter_from(2)
        .map(|a| StreamId::parse(a, 0, true))
        .collect::<Result<Vec<_>, _>>()?;
    let deleted = edit(ctx.store, args.get(1), |slot| {
        let Some(stream) = slot else {
            return Ok(Edit::Keep(0));
        };
        let mut n = 0;
        for &id in &ids {
            n += usize::from(stream.delete(id)?);
        }
        Ok(if n > 0 { Edit::Write(n) } else { Edit::Keep(0) })
    })?;
    if deleted > 0 {
        fire(ctx, notify::STREAM, "xdel", args.get(1));
    }
    out.integer(deleted as i64);
    Ok(())
}
