//! `XDEL key id [id ...]`.

use strata_kv::Store;

use super::stored::{edit, Edit};
use crate::args::Args;
use crate::command::Ctx;
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
    let ids = args
        .iter_from(2)
        .map(|a| StreamId::parse(a, 0, true))
        .collect::<Result<Vec<_>, _>>()?;
    let deleted = edit(ctx.store, args.get(1), |slot| {
        let Some(stream) = slot else {
            return Ok(Edit::Keep(0));
        };
        let n = ids.iter().filter(|&&id| stream.delete(id)).count();
        Ok(if n > 0 { Edit::Write(n) } else { Edit::Keep(0) })
    })?;
    out.integer(deleted as i64);
    Ok(())
}
