//! `SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::key_type::type_name;
use crate::glob;
use crate::number::{parse_cursor, parse_i64};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Largest COUNT honoured per step (bounds one reply's size).
const MAX_COUNT: usize = 100_000;

/// One scan step: the next cursor (0 when done) and the keys visited that
/// match the filters.
pub fn scan<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let cursor = parse_cursor(args.get(1)).ok_or(RespError::InvalidCursor)?;
    let mut pattern: Option<&[u8]> = None;
    let mut count = 10usize;
    let mut type_wanted: Option<&[u8]> = None;
    let mut i = 2;
    while i < args.len() {
        let has_value = i + 1 < args.len();
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"match" if has_value => {
                let p = args.get(i + 1);
                pattern = (p != b"*").then_some(p);
            }
            b"count" if has_value => {
                let n = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                if n < 1 {
                    return Err(RespError::Syntax);
                }
                count = usize::try_from(n).unwrap_or(MAX_COUNT).min(MAX_COUNT);
            }
            b"type" if has_value => {
                type_wanted = Some(args.get(i + 1));
            }
            _ => return Err(RespError::Syntax),
        }
        i += 2;
    }
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let next = ctx.store.scan_keys(cursor, count, &mut |key| {
        let matched = match pattern {
            None => true,
            Some(p) => glob::matches(p, key),
        };
        if matched {
            keys.push(key.to_vec());
        }
    });
    if let Some(wanted) = type_wanted {
        // A key removed since it was visited has no type and is dropped.
        keys.retain(|key| {
            ctx.store
                .kind(key)
                .is_some_and(|kind| type_name(kind).as_bytes().eq_ignore_ascii_case(wanted))
        });
    }
    out.array(2);
    out.bulk_integer(next);
    out.array(keys.len());
    for key in &keys {
        out.bulk(key);
    }
    Ok(())
}
