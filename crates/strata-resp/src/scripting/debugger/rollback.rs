//! `SCRIPT DEBUG YES`'s rollback: Redis debugs such a script in a forked
//! child, so its changes never reach the dataset. Strata has no fork: it
//! keeps a copy of each key before the script's first write to it (its
//! `DUMP` payload and expiry, or that it was absent) and, when the
//! session ends, puts every copied key back (`RESTORE ... REPLACE
//! ABSTTL`, or `DEL`). The dataset ends as it began; the command log holds
//! the changes and their undoing in one record, so recovery also ends
//! where the session began. Keyspace notifications and invalidations of
//! both are sent (a forked child sends none).
//!
//! What cannot be copied by key is refused in this mode with an error
//! naming `SYNC`: the writes without keys (`FLUSHALL`, `FLUSHDB`,
//! `SWAPDB`). Strata has one database, so `SELECT`, `MOVE` and `COPY ...
//! DB` reach no other. The copies are bounded ([`MAX_COPIED_BYTES`]).

use std::collections::HashMap;

use strata_kv::Store;

use crate::args::Args;
use crate::command::{CommandSpec, Ctx};
use crate::commands::dump;
use crate::key_args::key_args;
use crate::scripting::call::{self, BeforeCommand};

/// Most bytes of copies one session keeps.
pub const MAX_COPIED_BYTES: usize = 256 << 20;

/// A key as it was before the session's first write to it: its `DUMP`
/// payload and absolute expiry (ms), or `None` when absent.
type Before = Option<(Vec<u8>, Option<u64>)>;

/// The copies of one session.
#[derive(Debug, Default)]
pub(crate) struct Rollback {
    before: HashMap<Vec<u8>, Before>,
    bytes: usize,
}

impl BeforeCommand for Rollback {
    /// Called before `redis.call` runs `args` (of `spec`): refuses what
    /// cannot be undone, copies the keys a write will touch.
    fn before<S: Store>(
        &mut self,
        ctx: &mut Ctx<'_, S>,
        spec: &CommandSpec,
        args: &Args<'_>,
    ) -> Result<(), String> {
        let refuse = || {
            format!(
                "ERR {} cannot be rolled back in a SCRIPT DEBUG YES session: use SCRIPT DEBUG SYNC",
                spec.name.to_ascii_uppercase()
            )
        };
        if matches!(spec.name, "swapdb" | "flushall" | "flushdb") {
            return Err(refuse());
        }
        if !spec.is_write() {
            return Ok(());
        }
        let keys = key_args(spec, args)
            .filter(|keys| !keys.is_empty())
            .ok_or_else(refuse)?;
        for (at, _flags) in keys {
            let key = args.get(at);
            if self.before.contains_key(key) {
                continue;
            }
            let before = match ctx.store.expiry(key) {
                None => None,
                Some(expiry) => {
                    let payload = dump::payload(ctx.store, key)
                        .map_err(|e| e.to_string())?
                        .unwrap_or_default();
                    Some((payload, expiry))
                }
            };
            let size = key.len() + before.as_ref().map_or(0, |(p, _)| p.len());
            if self.bytes + size > MAX_COPIED_BYTES {
                return Err(format!(
                    "ERR SCRIPT DEBUG YES keeps a copy of each key the script changes, and this write would pass {MAX_COPIED_BYTES} bytes of copies: use SCRIPT DEBUG SYNC"
                ));
            }
            self.bytes += size;
            self.before.insert(key.to_vec(), before);
        }
        Ok(())
    }

    fn undoes_writes(&self) -> bool {
        true
    }
}

impl Rollback {
    /// Puts every copied key back as it was.
    pub(crate) fn restore<S: Store>(self, ctx: &mut Ctx<'_, S>) {
        for (key, before) in self.before {
            let argv: Vec<Vec<u8>> = match before {
                None => vec![b"DEL".to_vec(), key],
                Some((payload, expiry)) => vec![
                    b"RESTORE".to_vec(),
                    key,
                    expiry.unwrap_or(0).to_string().into_bytes(),
                    payload,
                    b"REPLACE".to_vec(),
                    b"ABSTTL".to_vec(),
                ],
            };
            if let Err(err) = call::internal(ctx, &argv) {
                tracing::error!(%err, "SCRIPT DEBUG YES could not roll a key back");
            }
        }
    }
}
