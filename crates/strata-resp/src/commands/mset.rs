//! `MSET key value [key value ...]` and `MSETNX`, atomic over all keys.

use std::borrow::Cow;

use strata_kv::{NewItem, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::set::announce;
use crate::notify;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `MSET` (`+OK`) or, with `only_if_none_exist`, `MSETNX` (1 if set, 0 if
/// any key existed).
pub fn mset<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    only_if_none_exist: bool,
) -> Result<(), RespError> {
    if args.len() % 2 == 0 {
        let name = if only_if_none_exist { "msetnx" } else { "mset" };
        return Err(RespError::WrongArity(name.into()));
    }
    let items: Vec<(&[u8], NewItem<'_>)> = (1..args.len())
        .step_by(2)
        .map(|i| {
            let value = Cow::Borrowed(args.get(i + 1));
            (
                args.get(i),
                NewItem {
                    value,
                    flags: 0,
                    expires_at: None,
                },
            )
        })
        .collect();
    // Which keys are new, for `new` (checked before, as Redis looks each
    // up before setting it; a key named twice is new once).
    let mut fresh: Vec<&[u8]> = Vec::new();
    let notifying = notify::any(ctx);
    if notifying && notify::wanted(ctx, notify::NEW) {
        for (key, _) in &items {
            if !fresh.contains(key) && ctx.store.kind(key).is_none() {
                fresh.push(key);
            }
        }
    }
    let stored = ctx.store.set_many(&items, only_if_none_exist)?;
    if stored && notifying {
        for (key, _) in &items {
            let created = match fresh.iter().position(|k| k == key) {
                Some(i) => {
                    fresh.swap_remove(i);
                    true
                }
                None => false,
            };
            announce(ctx, key, created, None);
        }
    }
    if only_if_none_exist {
        out.integer(i64::from(stored));
    } else {
        out.ok();
    }
    Ok(())
}
