//! `PFMERGE destkey [sourcekey ...]`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use super::value::hll_of;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::hll::{raise_all, Hll, REGISTERS};
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The merge, with the shards of every key held.
struct Merge<'a> {
    destination: &'a [u8],
    sources: Vec<&'a [u8]>,
}

impl Atomic for Merge<'_> {
    /// Whether the destination was created.
    type Output = Result<bool, RespError>;

    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let mut max = [0u8; REGISTERS];
        let mut dense = false;
        // The destination counts among the sources, as in Redis.
        for key in std::iter::once(self.destination).chain(self.sources) {
            let merged = store.get(key, |item| -> Result<(), RespError> {
                let hll = hll_of(item)?;
                dense |= hll.is_dense();
                hll.merge_into(&mut max)?;
                Ok(())
            });
            merged.transpose()?;
        }
        store.update(self.destination, |old| {
            let (mut hll, flags, expires_at) = match old {
                None => (Hll::new(), 0, None),
                Some(item) => match hll_of(item) {
                    Ok(hll) => (hll, item.flags, item.expires_at),
                    Err(err) => return (Mutation::Keep, Err(err)),
                },
            };
            // Dense if any input was, as Redis decides.
            let written = (if dense { hll.to_dense() } else { Ok(()) })
                .and_then(|()| raise_all(&mut hll, &max));
            if let Err(corrupt) = written {
                return (Mutation::Keep, Err(corrupt.into()));
            }
            hll.invalidate_cache();
            let item = NewItem {
                value: Cow::Owned(hll.into_bytes()),
                flags,
                expires_at,
            };
            (Mutation::Put(item), Ok(old.is_none()))
        })?
    }
}

/// Stores the union of the sources and the destination's own registers at
/// the destination (created if missing; its expiry kept); `+OK`.
pub fn pfmerge<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let destination = args.get(1);
    let sources: Vec<&[u8]> = args.iter_from(2).collect();
    let mut held = sources.clone();
    held.push(destination);
    let created = atomically(
        ctx,
        &held,
        Merge {
            destination,
            sources,
        },
    )?;
    // Redis announces a merge as a mass PFADD.
    fire_created(ctx, created, notify::STRING, "pfadd", destination);
    out.ok();
    Ok(())
}
