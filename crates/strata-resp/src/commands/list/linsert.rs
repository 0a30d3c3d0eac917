//! `LINSERT key BEFORE|AFTER pivot element`.

use strata_kv::{Mutation, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Inserts the element next to the first pivot: the new length, -1 if the
/// pivot is absent, 0 for a missing key.
pub fn linsert<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let after = match args.get(2).to_ascii_lowercase().as_slice() {
        b"before" => false,
        b"after" => true,
        _ => return Err(RespError::Syntax),
    };
    let (pivot, element) = (args.get(3), args.get(4));
    let key = args.get(1);
    let len = ctx.store.update(key, |old| {
        let mut opened = match open(old, ValueKind::List) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        if !opened.existed {
            return (Mutation::Keep, Ok(0));
        }
        let list = &mut opened.elements;
        let Some(at) = list.iter().position(|e| *e == pivot) else {
            return (Mutation::Keep, Ok(-1));
        };
        list.insert(at + usize::from(after), element);
        let len = list.len() as i64;
        (save(ValueKind::List, list, opened.expires_at), Ok(len))
    })??;
    if len > 0 {
        ctx.shared.waiters.pushed(key);
    }
    out.integer(len);
    Ok(())
}
