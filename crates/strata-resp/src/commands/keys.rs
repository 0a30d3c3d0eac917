//! `KEYS pattern`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::glob;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Keys visited per scan step while collecting.
const STEP: usize = 1024;

/// Every key matching the glob pattern, each once, in byte order.
pub fn keys<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let pattern = args.get(1);
    let match_all = pattern == b"*";
    let mut found: Vec<Vec<u8>> = Vec::new();
    let mut cursor = 0;
    loop {
        cursor = ctx.store.scan_keys(cursor, STEP, &mut |key| {
            if match_all || glob::matches(pattern, key) {
                found.push(key.to_vec());
            }
        });
        if cursor == 0 {
            break;
        }
    }
    // A scan may visit a key twice when the index grows meanwhile.
    found.sort_unstable();
    found.dedup();
    out.array(found.len());
    for key in &found {
        out.bulk(key);
    }
    Ok(())
}
