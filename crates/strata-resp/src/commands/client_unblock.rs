//! `CLIENT UNBLOCK client-id [TIMEOUT|ERROR]`: ends the wait of a client
//! blocked in `BLPOP` and the other blocking commands, `XREAD BLOCK` or
//! `WAIT`, as if its timeout passed (the default) or with `-UNBLOCKED`.
//! Replies 1 when that client was blocked, 0 otherwise (an unknown id, a
//! negative one, a client not blocked or already woken).

use crate::args::Args;
use crate::blocking::Unblock;
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::shared::Shared;

/// Unblocks the client named by `args` (`CLIENT UNBLOCK id [how]`).
pub fn unblock(shared: &Shared, args: &Args<'_>) -> Result<i64, RespError> {
    if args.len() > 4 {
        return Err(RespError::SubcommandArgs {
            sub: String::from_utf8_lossy(args.get(1)).into_owned(),
            command: "CLIENT".into(),
        });
    }
    let id = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let how = match args.len() {
        4 => match args.get(3).to_ascii_lowercase().as_slice() {
            b"timeout" => Unblock::Timeout,
            b"error" => Unblock::Error,
            _ => return Err(ClientError::UnblockReason.into()),
        },
        _ => Unblock::Timeout,
    };
    let unblocked = u64::try_from(id).is_ok_and(|id| shared.waiters.unblock(id, how));
    Ok(i64::from(unblocked))
}
