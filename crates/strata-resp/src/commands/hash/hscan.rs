//! `HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection_scan::{scan_hashed, scan_options};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// A packed hash: every matching field (and value) in one step, cursor 0,
/// as Redis returns its listpack-encoded ones whole. A large hash: whole
/// buckets from the cursor until `COUNT` fields were looked at.
pub fn hscan<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let options = scan_options(&args, true)?;
    scan_hashed(ctx.store, args.get(1), ValueKind::Hash, &options, out)
}
