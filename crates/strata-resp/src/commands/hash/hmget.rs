//! `HMGET key field [field ...]`.

use strata_kv::{Store, ValueKind};

use super::Fields;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read, View};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Each field's value or null, in the order asked.
pub fn hmget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, wanted) = (args.get(1), args.len() - 2);
    let found = read(ctx.store, key, ValueKind::Hash, |hash| {
        match hash {
            View::Packed(pairs) => {
                let fields = Fields::new(pairs);
                out.array(wanted);
                for field in args.iter_from(2) {
                    match fields.find(pairs, field) {
                        Some(at) => out.bulk(pairs[at * 2 + 1]),
                        None => out.null(),
                    }
                }
            }
            View::Large(hash) => {
                let values = super::large::values(hash, args.iter_from(2))?;
                out.array(wanted);
                for value in values {
                    match value {
                        Some(v) => out.bulk(&v),
                        None => out.null(),
                    }
                }
            }
        }
        Ok(())
    })?;
    if found.is_none() {
        out.array(wanted);
        (0..wanted).for_each(|_| out.null());
    }
    Ok(())
}
