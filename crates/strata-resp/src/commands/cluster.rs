//! `CLUSTER <subcommand>`, `READONLY`, `READWRITE` and `ASKING`: Strata
//! is one node, not a Redis Cluster node, so it answers them as Redis does
//! without `cluster-enabled` (as `INFO cluster` says, `cluster_enabled:0`):
//! an unknown subcommand or a wrong arity as for any container command,
//! anything else with "cluster support disabled". Cluster-aware clients
//! read that answer to fall back to a standalone connection.

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

/// `CLUSTER <subcommand> ...`.
pub fn cluster<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    _out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    resolve_subcommand("cluster", &args)?;
    Err(RespError::Client(ClientError::ClusterDisabled))
}

/// `READONLY`, `READWRITE`, `ASKING`.
pub fn cluster_mode<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    _out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    Err(RespError::Client(ClientError::ClusterDisabled))
}
