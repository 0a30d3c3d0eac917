//! `SSCAN key cursor [MATCH pattern] [COUNT count]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection_scan::{scan_hashed, scan_options};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// A packed set: every matching member in one step, cursor 0, as Redis
/// returns its intsets and listpacks whole. A large set: whole buckets
/// from the cursor until `COUNT` members were looked at.
pub fn sscan<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let options = scan_options(&args, false)?;
    scan_hashed(ctx.store, args.get(1), ValueKind::Set, &options, out)
}
