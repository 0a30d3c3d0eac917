//! `SMEMBERS key`.

use strata_kv::{Store, ValueKind};

use super::members::members;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read_packed, Read};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Every member (RESP3: a set reply): a packed set straight from its
/// record, a large one bucket by bucket.
pub fn smembers<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let key = args.get(1);
    let found = read_packed(ctx.store, key, ValueKind::Set, |set| {
        out.set(set.len());
        for m in set {
            out.bulk(m);
        }
    })?;
    match found {
        Read::Packed(()) => {}
        Read::Missing => out.set(0),
        Read::Large => {
            let all = members(ctx.store, key)?;
            out.set(all.len());
            for m in &all {
                out.bulk(m);
            }
        }
    }
    Ok(())
}
