//! `SMEMBERS key`.

use strata_kv::{Store, ValueKind};

use super::members::all_members;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read, View};
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
    let found = read(ctx.store, key, ValueKind::Set, |set| {
        match set {
            View::Packed(set) => {
                out.set(set.len());
                for m in set {
                    out.bulk(m);
                }
            }
            View::Large(set) => {
                let all = all_members(set)?;
                out.set(all.len());
                for m in &all {
                    out.bulk(m);
                }
            }
        }
        Ok(())
    })?;
    if found.is_none() {
        out.set(0);
    }
    Ok(())
}
