//! `HLEN key`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read_packed, with_large, Read};
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
    let n = match read_packed(ctx.store, key, ValueKind::Hash, |pairs| pairs.len() / 2)? {
        Read::Packed(n) => n as u64,
        Read::Missing => 0,
        Read::Large => with_large(ctx.store, key, ValueKind::Hash, |h| Ok(h.len()))?.unwrap_or(0),
    };
    out.integer(i64::try_from(n).unwrap_or(i64::MAX));
    Ok(())
}
