//! `ZSCAN key cursor [MATCH pattern] [COUNT count]`.

use strata_kv::Store;

use super::read;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{scan_matches, scan_options};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Every matching member and its score in one step, cursor 0 (sorted sets
/// are packed).
pub fn zscan<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let options = scan_options(&args, false)?;
    let matched: Vec<(f64, Vec<u8>)> = read(ctx.store, args.get(1), |entries| {
        entries
            .iter()
            .filter(|e| scan_matches(&options, e.1))
            .map(|e| (e.0, e.1.to_vec()))
            .collect()
    })?
    .unwrap_or_default();
    out.array(2);
    out.bulk(b"0");
    out.array(matched.len() * 2);
    for (score, member) in &matched {
        out.bulk(member);
        // Scores are strings in a scan reply, as Redis sends them.
        out.bulk(crate::number::format_f64(*score).as_bytes());
    }
    Ok(())
}
