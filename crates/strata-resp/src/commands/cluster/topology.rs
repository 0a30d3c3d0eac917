//! The one-node cluster described as Redis 7 describes a cluster: `INFO`,
//! `MYID`, `MYSHARDID`, `SLOTS`, `SHARDS`, `NODES` (this node, a master owning slots
//! 0-16383, healthy), `LINKS` (none: there are no other nodes),
//! `REPLICAS`/`SLAVES` and `COUNT-FAILURE-REPORTS` (none, for this node's
//! id; any other id is unknown), and the config epoch (`BUMPEPOCH`,
//! `SET-CONFIG-EPOCH`, with Redis's rules for a node that knows no other;
//! a change is written to the cluster config file before the reply).

use std::sync::atomic::Ordering;

use crate::args::Args;
use crate::cluster::{ClusterNode, SLOTS};
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

/// Answers subcommand `name`.
pub(super) fn answer(
    node: &ClusterNode,
    name: &str,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let epoch = node.epoch.load(Ordering::Acquire);
    match name {
        "info" => out.verbatim("txt", info(epoch).as_bytes()),
        "myid" => out.bulk(node.id.as_bytes()),
        "myshardid" => out.bulk(node.shard_id.as_bytes()),
        "slots" => {
            out.array(1);
            out.array(3);
            out.integer(0);
            out.integer(i64::from(SLOTS - 1));
            out.array(4);
            out.bulk(node.ip.as_bytes());
            out.integer(i64::from(node.port));
            out.bulk(node.id.as_bytes());
            out.map(0); // no hostname or other metadata
        }
        "shards" => shards(node, out),
        "nodes" => {
            let line = format!(
                "{} {}:{}@{} myself,master - 0 0 {epoch} connected 0-{}\n",
                node.id,
                node.ip,
                node.port,
                node.bus_port(),
                SLOTS - 1
            );
            out.verbatim("txt", line.as_bytes());
        }
        "links" => out.array(0),
        "replicas" | "slaves" => {
            known(node, args.get(2))?;
            out.array(0);
        }
        "count-failure-reports" => {
            known(node, args.get(2))?;
            out.integer(0);
        }
        "bumpepoch" => {
            // Alone, the node's epoch is the greatest: it bumps only from 0.
            let now = match node
                .epoch
                .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    save(node)?;
                    "BUMPED 1".to_string()
                }
                Err(current) => format!("STILL {current}"),
            };
            out.simple(&now);
        }
        _ => set_config_epoch(node, args.get(2), out)?,
    }
    Ok(())
}

fn info(epoch: u64) -> String {
    let fields: [(&str, u64); 11] = [
        ("cluster_slots_assigned", u64::from(SLOTS)),
        ("cluster_slots_ok", u64::from(SLOTS)),
        ("cluster_slots_pfail", 0),
        ("cluster_slots_fail", 0),
        ("cluster_known_nodes", 1),
        ("cluster_size", 1),
        ("cluster_current_epoch", epoch),
        ("cluster_my_epoch", epoch),
        ("cluster_stats_messages_sent", 0),
        ("cluster_stats_messages_received", 0),
        ("total_cluster_links_buffer_limit_exceeded", 0),
    ];
    let mut text = String::from("cluster_state:ok\r\n");
    for (name, value) in fields {
        text.push_str(&format!("{name}:{value}\r\n"));
    }
    text
}

/// `CLUSTER SHARDS`: one shard of slots 0-16383 with this node alone.
fn shards(node: &ClusterNode, out: &mut ReplyWriter<'_>) {
    out.array(1);
    out.map(2);
    out.bulk(b"slots");
    out.array(2);
    out.integer(0);
    out.integer(i64::from(SLOTS - 1));
    out.bulk(b"nodes");
    out.array(1);
    out.map(7);
    out.bulk(b"id");
    out.bulk(node.id.as_bytes());
    out.bulk(b"port");
    out.integer(i64::from(node.port));
    out.bulk(b"ip");
    out.bulk(node.ip.as_bytes());
    out.bulk(b"endpoint");
    out.bulk(node.ip.as_bytes());
    out.bulk(b"role");
    out.bulk(b"master");
    out.bulk(b"replication-offset");
    out.integer(0);
    out.bulk(b"health");
    out.bulk(b"online");
}

/// This node's id, or Redis's `Unknown node` (no other node is known).
pub(super) fn known(node: &ClusterNode, id: &[u8]) -> Result<(), RespError> {
    if id == node.id.as_bytes() {
        Ok(())
    } else {
        Err(ClientError::UnknownNode(String::from_utf8_lossy(id).into_owned()).into())
    }
}

/// Writes the cluster config file (when the node has one), Redis's error
/// when that fails.
pub(super) fn save(node: &ClusterNode) -> Result<(), RespError> {
    node.save()
        .map_err(|err| ClientError::ClusterSave(err.to_string()).into())
}

/// `SET-CONFIG-EPOCH epoch`: allowed once, while the epoch is 0.
fn set_config_epoch(
    node: &ClusterNode,
    arg: &[u8],
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let epoch = parse_i64(arg).ok_or(RespError::NotInteger)?;
    let epoch = u64::try_from(epoch).map_err(|_| ClientError::InvalidEpoch(epoch))?;
    node.epoch
        .compare_exchange(0, epoch, Ordering::AcqRel, Ordering::Acquire)
        .map_err(|_| ClientError::EpochSet)?;
    save(node)?;
    out.ok();
    Ok(())
}
