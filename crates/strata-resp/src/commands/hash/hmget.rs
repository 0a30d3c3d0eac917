//! `HMGET key field [field ...]`.

use strata_kv::{Store, ValueKind};

use super::Fields;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The value of each field, null where absent (all null for a missing key).
pub fn hmget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let wanted = args.len() - 2;
    let found = read(ctx.store, args.get(1), ValueKind::Hash, |pairs| {
        let fields = Fields::new(pairs);
        out.array(wanted);
        for field in args.iter_from(2) {
            match fields.find(pairs, field) {
                Some(at) => out.bulk(pairs[at * 2 + 1]),
                None => out.null(),
            }
        }
    })?;
    if found.is_none() {
        out.array(wanted);
        for _ in 0..wanted {
            out.null();
        }
    }
    Ok(())
}
