//! `HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{read, scan_matches, scan_options};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Every matching field (and value) in one step, cursor 0: hashes are
/// packed, as Redis's listpack-encoded ones it also returns whole.
pub fn hscan<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let options = scan_options(&args, true)?;
    let found = read(ctx.store, args.get(1), ValueKind::Hash, |pairs| {
        let matched: Vec<&[u8]> = pairs
            .chunks_exact(2)
            .filter(|p| scan_matches(&options, p[0]))
            .flat_map(|p| if options.no_values { &p[..1] } else { p })
            .copied()
            .collect();
        out.array(2);
        out.bulk(b"0");
        out.array(matched.len());
        for e in matched {
            out.bulk(e);
        }
    })?;
    if found.is_none() {
        out.array(2);
        out.bulk(b"0");
        out.array(0);
    }
    Ok(())
}
