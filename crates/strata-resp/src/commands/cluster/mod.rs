//! `CLUSTER <subcommand>`, `READONLY`, `READWRITE` and `ASKING`. Without
//! cluster mode they answer as a Redis without `cluster-enabled` does
//! ("cluster support disabled"; cluster-aware clients read that to fall
//! back to a standalone connection). With it (see [`crate::cluster`]) this
//! node is a one-node cluster owning every slot: `topology` describes it
//! (`INFO`, `MYID`, `MYSHARDID`, `SLOTS`, `SHARDS`, `NODES`, `LINKS`, replicas,
//! epochs), `slots` answers for keys and slots (`KEYSLOT`,
//! `COUNTKEYSINSLOT`, `GETKEYSINSLOT`), `admin` for changes of topology
//! (Redis's own answers where a lone master gives them, a refusal where
//! Strata cannot follow: it has no cluster bus).

mod admin;
mod slots;
mod topology;

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ADDSLOTS <slot> [<slot> ...]",
    "    Assign slots to current node.",
    "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Assign slots which are between <start-slot> and <end-slot> to current node.",
    "BUMPEPOCH",
    "    Advance the cluster config epoch.",
    "COUNT-FAILURE-REPORTS <node-id>",
    "    Return number of failure reports for <node-id>.",
    "COUNTKEYSINSLOT <slot>",
    "    Return the number of keys in <slot>.",
    "DELSLOTS <slot> [<slot> ...]",
    "    Delete slots information from current node.",
    "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
    "FAILOVER [FORCE|TAKEOVER]",
    "    Promote current replica node to being a master.",
    "FORGET <node-id>",
    "    Remove a node from the cluster.",
    "GETKEYSINSLOT <slot> <count>",
    "    Return key names stored by current node in a slot.",
    "FLUSHSLOTS",
    "    Delete current node own slots information.",
    "INFO",
    "    Return information about the cluster.",
    "KEYSLOT <key>",
    "    Return the hash slot for <key>.",
    "MEET <ip> <port> [<bus-port>]",
    "    Connect nodes into a working cluster.",
    "MYID",
    "    Return the node id.",
    "MYSHARDID",
    "    Return the node's shard id.",
    "NODES",
    "    Return cluster configuration seen by node. Output format:",
    "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
    "REPLICATE <node-id>",
    "    Configure current node as replica to <node-id>.",
    "RESET [HARD|SOFT]",
    "    Reset current node (default: soft).",
    "SET-CONFIG-EPOCH <epoch>",
    "    Set config epoch of current node.",
    "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
    "    Set slot state.",
    "REPLICAS <node-id>",
    "    Return <node-id> replicas.",
    "SAVECONFIG",
    "    Force saving cluster configuration on disk.",
    "SLOTS",
    "    Return information about slots range mappings. Each range is made of:",
    "    start, end, master and replicas IP addresses, ports and ids",
    "SHARDS",
    "    Return information about slot range mappings and the nodes associated with them.",
    "LINKS",
    "    Return information about all network links between this node and its peers.",
    "    Output format is an array where each array element is a map containing attributes of a link",
    "HELP",
    "    Prints this help.",
];

/// `CLUSTER <subcommand> ...`.
pub fn cluster<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("cluster", &args)?;
    let Some(node) = ctx.shared.cluster.get() else {
        return Err(ClientError::ClusterDisabled.into());
    };
    let name = sub.name.strip_prefix("cluster|").unwrap_or(sub.name);
    match name {
        "help" => write_help(out, HELP),
        "keyslot" | "countkeysinslot" | "getkeysinslot" => {
            slots::answer(ctx.store, name, &args, out)?;
        }
        "info"
        | "myid"
        | "myshardid"
        | "slots"
        | "shards"
        | "nodes"
        | "links"
        | "replicas"
        | "slaves"
        | "count-failure-reports"
        | "bumpepoch"
        | "set-config-epoch" => {
            topology::answer(node, name, &args, out)?;
        }
        _ => admin::answer(node, name, &args, out)?,
    }
    Ok(())
}

/// `READONLY`, `READWRITE`, `ASKING`: `+OK` in cluster mode (every slot
/// is served here, for reads and writes alike).
pub fn cluster_mode<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if ctx.shared.cluster.get().is_none() {
        return Err(ClientError::ClusterDisabled.into());
    }
    out.ok();
    Ok(())
}
