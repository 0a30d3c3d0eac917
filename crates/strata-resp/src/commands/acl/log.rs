//! `ACL LOG [count | RESET]`: the most recent denials, newest first.

use crate::acl::log::MAX_ENTRIES;
use crate::args::Args;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::shared::Shared;
use crate::writer::ReplyWriter;

use super::wrong_args;

/// Entries shown without a count.
const DEFAULT_COUNT: usize = 10;

/// `ACL LOG`: each entry as Redis 7.2 reports it (ten fields).
pub fn log(shared: &Shared, args: &Args<'_>, out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    let count = match args.len() {
        2 => DEFAULT_COUNT,
        3 if args.get(2).eq_ignore_ascii_case(b"reset") => {
            shared.acl.log().lock().clear();
            out.ok();
            return Ok(());
        }
        3 => {
            let n = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
            usize::try_from(n).unwrap_or(0).min(MAX_ENTRIES)
        }
        _ => return Err(wrong_args(args)),
    };
    let entries = shared.acl.log().lock().newest(count);
    let now_ms = shared.keyspace.clock().now_ms();
    out.array(entries.len());
    for entry in entries {
        out.map(10);
        out.bulk(b"count");
        out.integer(i64::try_from(entry.count).unwrap_or(i64::MAX));
        out.bulk(b"reason");
        out.bulk(entry.reason.name().as_bytes());
        out.bulk(b"context");
        out.bulk(entry.context.name().as_bytes());
        out.bulk(b"object");
        out.bulk(&entry.object);
        out.bulk(b"username");
        out.bulk(&entry.username);
        out.bulk(b"age-seconds");
        out.double(now_ms.saturating_sub(entry.created_ms) as f64 / 1000.0);
        out.bulk(b"client-info");
        out.bulk(entry.client_info.as_bytes());
        out.bulk(b"entry-id");
        out.integer(i64::try_from(entry.entry_id).unwrap_or(i64::MAX));
        out.bulk(b"timestamp-created");
        out.integer(i64::try_from(entry.created_ms).unwrap_or(i64::MAX));
        out.bulk(b"timestamp-last-updated");
        out.integer(i64::try_from(entry.updated_ms).unwrap_or(i64::MAX));
    }
    Ok(())
}
