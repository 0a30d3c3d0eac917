//! `XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID
//! max-deleted-id]`.

use strata_kv::Store;

use super::stored::{edit, Edit};
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::number::parse_i64;
use crate::reply::{RespError, StreamError};
use crate::stream::StreamId;
use crate::writer::ReplyWriter;

/// Sets the stream's last identifier and counters, refusing what would
/// break identifier order (Redis's checks, in its order).
pub fn xsetid<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let id = StreamId::parse(args.get(2), 0, true)?;
    let mut entries_added = None;
    let mut max_deleted = StreamId::MIN;
    let mut i = 3;
    while i < args.len() {
        let opt = args.get(i);
        let more = i + 1 < args.len();
        if opt.eq_ignore_ascii_case(b"entriesadded") && more {
            let n = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
            entries_added = Some(u64::try_from(n).map_err(|_| StreamError::EntriesAddedNegative)?);
        } else if opt.eq_ignore_ascii_case(b"maxdeletedid") && more {
            max_deleted = StreamId::parse(args.get(i + 1), 0, true)?;
            if id < max_deleted {
                return Err(StreamError::SetIdBelowGivenDeleted.into());
            }
        } else {
            return Err(RespError::Syntax);
        }
        i += 2;
    }
    edit(ctx.store, args.get(1), |slot| {
        let Some(stream) = slot else {
            return Err(RespError::NoSuchKey);
        };
        if id < stream.max_deleted {
            return Err(StreamError::SetIdBelowDeleted.into());
        }
        if let Some(last) = stream.last_entry()? {
            if id < last.id {
                return Err(StreamError::SetIdBelowTop.into());
            }
            if entries_added.is_some_and(|n| n < stream.len()) {
                return Err(StreamError::EntriesAddedBelowLength.into());
            }
        }
        stream.last_id = id;
        if let Some(n) = entries_added {
            stream.entries_added = n;
        }
        if !max_deleted.is_zero() {
            stream.max_deleted = max_deleted;
        }
        Ok(Edit::Write(()))
    })?;
    fire(ctx, notify::STREAM, "xsetid", args.get(1));
    out.ok();
    Ok(())
}
