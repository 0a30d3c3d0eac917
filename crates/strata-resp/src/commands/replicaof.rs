//! `REPLICAOF host port` and its old name `SLAVEOF`. Strata is always a
//! master and does not replicate: `REPLICAOF NO ONE` is `+OK` (it is a
//! master already, as Redis answers it then), following another server is
//! refused, saying so, after Redis's check of the port.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

/// `+OK` for `NO ONE`; a refusal otherwise.
pub fn replicaof<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if args.get(1).eq_ignore_ascii_case(b"no") && args.get(2).eq_ignore_ascii_case(b"one") {
        out.ok();
        return Ok(());
    }
    parse_i64(args.get(2))
        .filter(|p| (0..=65_535).contains(p))
        .ok_or(ClientError::InvalidMasterPort)?;
    Err(ClientError::NoReplication.into())
}
