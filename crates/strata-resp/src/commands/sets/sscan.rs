//! `SSCAN key cursor [MATCH pattern] [COUNT count]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{read, scan_matches, scan_options};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Every matching member in one step, cursor 0 (sets are packed).
pub fn sscan<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let options = scan_options(&args, false)?;
    let matched: Vec<Vec<u8>> = read(ctx.store, args.get(1), ValueKind::Set, |set| {
        set.iter()
            .filter(|m| scan_matches(&options, m))
            .map(|m| m.to_vec())
            .collect()
    })?
    .unwrap_or_default();
    out.array(2);
    out.bulk(b"0");
    out.array(matched.len());
    for m in &matched {
        out.bulk(m);
    }
    Ok(())
}
