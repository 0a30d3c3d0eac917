//! `XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]]
//! *|id field value [field value ...]`.

use strata_kv::Store;

use super::stored::{edit, Edit};
use super::trim_args::parse;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::reply::{RespError, StreamError};
use crate::stream::{Spelled, Stream, StreamId};
use crate::writer::ReplyWriter;

/// Appends an entry (creating the stream unless `NOMKSTREAM`), trims if
/// asked, replies the new identifier (null when `NOMKSTREAM` found no
/// stream) and wakes readers blocked on the key.
pub fn xadd<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let parsed = parse(&args, true)?;
    let fields_at = parsed.id_at + 1;
    if args.len() < fields_at + 2 || (args.len() - fields_at) % 2 == 1 {
        return Err(RespError::WrongArity("xadd".into()));
    }
    if parsed.id == Some(Spelled::Full(StreamId::MIN)) {
        return Err(StreamError::AddZero.into());
    }
    let now = ctx.shared.keyspace.now_ms();
    let key = args.get(1);
    let mut created = false;
    let mut trimmed = 0;
    let added = edit(ctx.store, key, |slot| {
        created = slot.is_none();
        let stream = match slot {
            Some(s) => s,
            None if parsed.no_mkstream => return Ok(Edit::Keep(None)),
            None => slot.insert(Stream::default()),
        };
        if stream.last_id == StreamId::MAX {
            return Err(StreamError::Exhausted.into());
        }
        let id = next_id(stream.last_id, parsed.id, now)?;
        let fields = args.iter_from(fields_at).map(<[u8]>::to_vec).collect();
        stream.append(id, fields)?;
        if let Some(trim) = parsed.trim {
            trimmed = stream.trim(&trim)?;
        }
        Ok(Edit::Write(Some(id)))
    })?;
    match added {
        Some(id) => {
            if notify::any(ctx) {
                notify::fire_created(ctx, created, notify::STREAM, "xadd", key);
                if trimmed > 0 {
                    fire(ctx, notify::STREAM, "xtrim", key);
                }
            }
            super::entries::id(out, id);
            ctx.shared.waiters.pushed_all(key);
        }
        None => out.null(),
    }
    Ok(())
}

/// The identifier an entry added after `last` gets (Redis's
/// `streamAppendItem`): `*` takes the clock (or `last`'s millisecond if the
/// clock is behind it) and the next sequence; `<ms>-*` the next sequence
/// in `ms`; a full identifier itself. Each must be above `last`.
fn next_id(last: StreamId, asked: Option<Spelled>, now: u64) -> Result<StreamId, StreamError> {
    let id = match asked {
        None if now > last.ms => StreamId::new(now, 0),
        None => last.next().ok_or(StreamError::AddNotAbove)?,
        Some(Spelled::AutoSeq(ms)) if ms == last.ms => {
            let seq = last.seq.checked_add(1).ok_or(StreamError::AddNotAbove)?;
            StreamId::new(ms, seq)
        }
        Some(Spelled::AutoSeq(ms)) => StreamId::new(ms, 0),
        Some(Spelled::Full(id)) => id,
    };
    if id <= last {
        return Err(StreamError::AddNotAbove);
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_follow_the_last_one() {
        let last = StreamId::new(5, 3);
        assert_eq!(next_id(last, None, 9), Ok(StreamId::new(9, 0)));
        assert_eq!(next_id(last, None, 2), Ok(StreamId::new(5, 4)));
        let auto = |ms| Some(Spelled::AutoSeq(ms));
        assert_eq!(next_id(last, auto(5), 0), Ok(StreamId::new(5, 4)));
        assert_eq!(next_id(last, auto(7), 0), Ok(StreamId::new(7, 0)));
        assert_eq!(next_id(last, auto(4), 0), Err(StreamError::AddNotAbove));
        let full = |ms, seq| Some(Spelled::Full(StreamId::new(ms, seq)));
        assert_eq!(next_id(last, full(5, 3), 0), Err(StreamError::AddNotAbove));
        assert_eq!(next_id(last, full(5, 4), 0), Ok(StreamId::new(5, 4)));
        let top = StreamId::new(5, u64::MAX);
        assert_eq!(next_id(top, auto(5), 0), Err(StreamError::AddNotAbove));
        assert_eq!(next_id(top, None, 0), Ok(StreamId::new(6, 0)));
    }
}
