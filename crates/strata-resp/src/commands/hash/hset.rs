//! `HSET key field value [field value ...]` and the older `HMSET`.

use strata_kv::{Store, ValueKind};

use super::Fields;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// What the command replies.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// HSET: the number of fields added.
    Added,
    /// HMSET: OK.
    Ok,
}

/// Sets each field to its value, creating the hash if needed.
pub fn hset<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    reply: Reply,
) -> Result<(), RespError> {
    if args.len() % 2 != 0 {
        let name = match reply {
            Reply::Added => "hset",
            Reply::Ok => "hmset",
        };
        return Err(RespError::WrongArity(name.into()));
    }
    let added = ctx.store.update(args.get(1), |old| {
        let mut opened = match open(old, ValueKind::Hash) {
            Ok(o) => o,
            Err(e) => return (strata_kv::Mutation::Keep, Err(e)),
        };
        let pairs = &mut opened.elements;
        let mut fields = Fields::new(pairs);
        let mut added = 0i64;
        for i in (2..args.len()).step_by(2) {
            let (field, value) = (args.get(i), args.get(i + 1));
            match fields.find(pairs, field) {
                Some(at) => pairs[at * 2 + 1] = value,
                None => {
                    fields.added(field, pairs.len() / 2);
                    pairs.push(field);
                    pairs.push(value);
                    added += 1;
                }
            }
        }
        (save(ValueKind::Hash, pairs, opened.expires_at), Ok(added))
    })??;
    match reply {
        Reply::Added => out.integer(added),
        Reply::Ok => out.ok(),
    }
    Ok(())
}
