//! `SSCAN key cursor [MATCH pattern] [COUNT count]`.

use strata_kv::{Store, ValueKind};

use super::members::scan_step;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{scan_matches, scan_options};
use crate::commands::hashed::{read_packed, Read};
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
    let key = args.get(1);
    let found = read_packed(ctx.store, key, ValueKind::Set, |set| {
        let matched: Vec<&[u8]> = set
            .iter()
            .filter(|m| scan_matches(&options, m))
            .copied()
            .collect();
        reply(out, 0, &matched);
    })?;
    match found {
        Read::Packed(()) => {}
        Read::Missing => reply::<&[u8]>(out, 0, &[]),
        Read::Large => {
            let (next, matched) = scan_step(ctx.store, key, &options)?.unwrap_or_default();
            reply(out, next, &matched);
        }
    }
    Ok(())
}

fn reply<E: AsRef<[u8]>>(out: &mut ReplyWriter<'_>, cursor: u64, members: &[E]) {
    out.array(2);
    out.bulk(itoa::Buffer::new().format(cursor).as_bytes());
    out.array(members.len());
    for m in members {
        out.bulk(m.as_ref());
    }
}
