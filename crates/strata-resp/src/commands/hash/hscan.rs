//! `HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{scan_matches, scan_options};
use crate::commands::hashed::{read_packed, Read};
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
    let key = args.get(1);
    let found = read_packed(ctx.store, key, ValueKind::Hash, |pairs| {
        let matched: Vec<&[u8]> = pairs
            .chunks_exact(2)
            .filter(|p| scan_matches(&options, p[0]))
            .flat_map(|p| if options.no_values { &p[..1] } else { p })
            .copied()
            .collect();
        reply(out, 0, &matched);
    })?;
    match found {
        Read::Packed(()) => {}
        Read::Missing => reply::<&[u8]>(out, 0, &[]),
        Read::Large => {
            let (next, matched) =
                super::large::scan_step(ctx.store, key, &options)?.unwrap_or_default();
            reply(out, next, &matched);
        }
    }
    Ok(())
}

fn reply<E: AsRef<[u8]>>(out: &mut ReplyWriter<'_>, cursor: u64, elements: &[E]) {
    out.array(2);
    out.bulk(itoa::Buffer::new().format(cursor).as_bytes());
    out.array(elements.len());
    for e in elements {
        out.bulk(e.as_ref());
    }
}
