//! `XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]`.

use strata_kv::Store;

use super::stored::{edit, Edit};
use super::trim_args::parse;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Trims from the oldest entry; replies how many were removed.
pub fn xtrim<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let parsed = parse(&args, false)?;
    let Some(trim) = parsed.trim else {
        return Err(RespError::Syntax);
    };
    let removed = edit(ctx.store, args.get(1), |slot| {
        let Some(stream) = slot else {
            return Ok(Edit::Keep(0));
        };
        let n = stream.trim(&trim)?;
        Ok(if n > 0 { Edit::Write(n) } else { Edit::Keep(0) })
    })?;
    if removed > 0 {
        fire(ctx, notify::STREAM, "xtrim", args.get(1));
    }
    out.integer(i64::try_from(removed).unwrap_or(i64::MAX));
    Ok(())
}
