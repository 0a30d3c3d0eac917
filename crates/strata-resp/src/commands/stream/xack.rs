//! `XACK key group id [id ...]`, as Redis 7.2's `xackCommand`: a missing
//! key or group acknowledges nothing (0, whatever the identifiers); else
//! every identifier is read before any is acknowledged, so a bad one
//! refuses the whole command.

use strata_kv::Store;

use super::stored::{edit, Edit};
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::stream::StreamId;
use crate::writer::ReplyWriter;

/// Removes the identifiers from the group's pending entries; replies how
/// many were pending.
pub fn xack<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let acked = edit(ctx.store, args.get(1), |slot| {
        let Some(mut pel) = slot.as_mut().and_then(|s| s.pel(args.get(2))) else {
            return Ok(Edit::Keep(0));
        };
        // As many identifiers as arguments: bounded by the request.
        let ids = args
            .iter_from(3)
            .map(|arg| StreamId::parse(arg, 0, true))
            .collect::<Result<Vec<_>, _>>()?;
        let mut acked = 0;
        for id in ids {
            acked += usize::from(pel.remove(id)?.is_some());
        }
        Ok(match acked {
            0 => Edit::Keep(0),
            n => Edit::Write(n),
        })
    })?;
    out.integer(i64::try_from(acked).unwrap_or(i64::MAX));
    Ok(())
}
