//! `FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds]`: a
//! coordinated hand-over to a replica. Strata has no replicas, so after
//! Redis's checks of the arguments it answers as a Redis master without
//! replicas does.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

/// Always a refusal: there is no replica to fail over to, nor a failover
/// to abort.
pub fn failover<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    _out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut abort = false;
    let mut other = false;
    let mut i = 1;
    while i < args.len() {
        let word = args.get(i).to_ascii_lowercase();
        let left = args.len() - i - 1;
        match word.as_slice() {
            b"to" if left >= 2 => {
                parse_i64(args.get(i + 2)).ok_or(RespError::NotInteger)?;
                i += 2;
            }
            b"force" => {}
            b"timeout" if left >= 1 => {
                let ms = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                if ms <= 0 {
                    return Err(ClientError::FailoverTimeout.into());
                }
                i += 1;
            }
            b"abort" if !other && left == 0 => abort = true,
            _ => return Err(RespError::Syntax),
        }
        other |= !abort;
        i += 1;
    }
    Err(match abort {
        true => ClientError::NoFailover,
        false => ClientError::NoReplicas,
    }
    .into())
}
