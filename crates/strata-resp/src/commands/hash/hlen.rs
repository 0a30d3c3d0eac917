//! `HLEN key`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read, View};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The number of fields (0 for a missing key): a large hash's head counts
/// them.
pub fn hlen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let key = args.get(1);
    let n = read(ctx.store, key, ValueKind::Hash, |hash| match hash {
        View::Packed(pairs) => Ok(pairs.len() as u64 / 2),
        View::Large(hash) => Ok(hash.len()),
    })?
    .unwrap_or(0);
    out.integer(i64::try_from(n).unwrap_or(i64::MAX));
    Ok(())
}
