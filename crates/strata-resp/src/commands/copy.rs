//! `COPY source destination [DB destination-db] [REPLACE]`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Copies the value (of any type) and expiry atomically: 1 if copied, 0
/// when the source is missing or the destination exists without REPLACE.
/// Strata has one database: `DB 0` only.
pub fn copy<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut replace = false;
    let mut i = 3;
    while i < args.len() {
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"replace" => replace = true,
            b"db" if i + 1 < args.len() => {
                let db = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                if db != 0 {
                    return Err(RespError::DbIndexOutOfRange);
                }
                i += 1;
            }
            _ => return Err(RespError::Syntax),
        }
        i += 1;
    }
    let (source, destination) = (args.get(1), args.get(2));
    if source == destination {
        return Err(RespError::SameObject);
    }
    // A large collection's chunks are copied too (engine side).
    let copied = ctx.store.copy(source, destination, replace)?;
    if copied && notify::any(ctx) {
        // Redis adds the destination anew even over an existing key.
        fire(ctx, notify::NEW, "new", destination);
        fire(ctx, notify::GENERIC, "copy_to", destination);
    }
    out.integer(i64::from(copied));
    Ok(())
}
