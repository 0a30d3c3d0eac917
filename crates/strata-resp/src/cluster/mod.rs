//! Redis Cluster mode on one node (`cluster_enabled`): the node owns all
//! 16384 hash slots, so cluster-aware clients (redis-py's `RedisCluster`,
//! Lettuce, go-redis, ioredis, Jedis) discover it with `CLUSTER SLOTS` or
//! `CLUSTER SHARDS` and send every key here; no `MOVED` or `ASK` ever
//! happens. What cluster mode changes for clients is kept: a request whose
//! keys hash to different slots is refused with `CROSSSLOT` (an `EXEC`
//! whose queued commands do, too), `SELECT` of another database is
//! refused, `HELLO` says `mode cluster`.
//!
//! Strata has no cluster bus: it cannot join other nodes, take replicas
//! or give slots away (`CLUSTER MEET`, `DELSLOTS`, `SETSLOT`, `RESET`
//! are refused, saying so). The node id and epoch are kept in the
//! cluster config file (`nodes_file`, Redis's `nodes.conf`) when the
//! node has one (the server's is in its data directory), so a restart
//! keeps them; without one the id is drawn at each start.
//!
//! `slot`: the key-to-slot hash (CRC16 with hash tags); `nodes_file`: the
//! config file; this file: the node's identity and the slot check of a
//! request.

mod nodes_file;
mod slot;

pub use nodes_file::{NodesFile, Saved};
pub use slot::{key_slot, SLOTS};

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::args::Args;
use crate::connection::Transaction;
use crate::key_args::key_args;
use crate::spec::CommandSpec;

/// This node, as the cluster commands describe it.
#[derive(Debug)]
pub struct ClusterNode {
    /// 40 hex digits.
    pub id: String,
    /// The shard's id (Redis 7.2's `CLUSTER MYSHARDID`): 40 hex digits, kept
    /// in the config file like the node id.
    pub shard_id: String,
    /// The address announced: empty when the port listens on every
    /// address (clients then use the one they connected to, as with a
    /// Redis node that has not learned its address).
    pub ip: String,
    /// The RESP port.
    pub port: u16,
    /// The config epoch (0 until `CLUSTER BUMPEPOCH` or
    /// `SET-CONFIG-EPOCH`; a one-node cluster's current epoch too).
    pub epoch: AtomicU64,
    /// Where the id and epoch are kept; `None`: nowhere (a new id each
    /// start).
    pub file: Option<NodesFile>,
}

impl ClusterNode {
    /// The node serving on `bind:port`: the one `file` remembers, else a
    /// new one whose id `fresh_id` gives (40 hex digits a call), written to
    /// `file` at once as Redis writes `nodes.conf` at start. A file without
    /// a shard id (Redis 7.0's) gets a new one. A file that cannot be read,
    /// is corrupted or cannot be written is an error.
    pub fn start(
        mut fresh_id: impl FnMut() -> String,
        bind: IpAddr,
        port: u16,
        file: Option<NodesFile>,
    ) -> Result<Self, String> {
        let saved = match &file {
            Some(file) => file.load()?,
            None => None,
        };
        let saved = saved.unwrap_or_else(|| Saved {
            id: fresh_id(),
            shard_id: None,
            epoch: 0,
        });
        let shard_id = saved.shard_id.unwrap_or_else(&mut fresh_id);
        let ip = if bind.is_unspecified() {
            String::new()
        } else {
            bind.to_string()
        };
        let node = ClusterNode {
            id: saved.id,
            shard_id,
            ip,
            port,
            epoch: AtomicU64::new(saved.epoch),
            file,
        };
        node.save()
            .map_err(|err| format!("cannot write the cluster config file: {err}"))?;
        Ok(node)
    }

    /// Writes the id and the epoch now in force to the config file (when
    /// there is one). Each write reads the epoch under the file's lock, so
    /// the last write holds the latest epoch.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        file.save_with(|| {
            let saved = Saved {
                id: self.id.clone(),
                shard_id: Some(self.shard_id.clone()),
                epoch: self.epoch.load(Ordering::Acquire),
            };
            nodes_file::render(&saved, &self.ip, self.port, self.bus_port())
        })
    }

    /// The cluster bus port Redis would use (the port plus 10000), shown
    /// in `CLUSTER NODES`; nothing listens there.
    pub fn bus_port(&self) -> u32 {
        u32::from(self.port) + 10_000
    }
}

/// Two keys of one request in different slots (`CROSSSLOT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrossSlot;

/// The slot of the keys of a request, `None` when it has none; refused
/// when they hash to different slots.
pub fn request_slot(spec: &CommandSpec, args: &Args<'_>) -> Result<Option<u16>, CrossSlot> {
    let mut slot = None;
    for (i, _) in key_args(spec, args).unwrap_or_default() {
        same_slot(&mut slot, key_slot(args.get(i)))?;
    }
    Ok(slot)
}

/// The slot of every key the commands queued in `tx` name together (what
/// `EXEC` is checked against).
pub fn transaction_slot(tx: &Transaction) -> Result<Option<u16>, CrossSlot> {
    let mut slot = None;
    for queued in &tx.queue {
        if let Some(s) = request_slot(queued.spec, &queued.args.args())? {
            same_slot(&mut slot, s)?;
        }
    }
    Ok(slot)
}

fn same_slot(slot: &mut Option<u16>, next: u16) -> Result<(), CrossSlot> {
    match *slot {
        Some(s) if s != next => Err(CrossSlot),
        _ => {
            *slot = Some(next);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::with_words;
    use crate::lookup::lookup;

    fn slot_of(words: &str) -> Result<Option<u16>, CrossSlot> {
        let words: Vec<&[u8]> = words.split(' ').map(str::as_bytes).collect();
        with_words(&words, |args| {
            request_slot(lookup(args.get(0)).unwrap(), args)
        })
    }

    #[test]
    fn keys_of_a_request_must_share_a_slot() {
        assert_eq!(slot_of("get foo"), Ok(Some(12182)));
        assert_eq!(slot_of("mset a 1 b 2"), Err(CrossSlot));
        assert_eq!(slot_of("mset {a}x 1 {a}y 2"), Ok(Some(key_slot(b"a"))));
        assert_eq!(slot_of("eval body 2 a b"), Err(CrossSlot));
        assert_eq!(slot_of("ping"), Ok(None));
        // Options after counted keys are not keys.
        assert_eq!(slot_of("zunion 1 {z}a weights 2"), Ok(Some(key_slot(b"z"))));
    }

    #[test]
    fn announced_address() {
        let x = || "x".to_string();
        let any = ClusterNode::start(x, "0.0.0.0".parse().unwrap(), 7000, None).unwrap();
        assert_eq!((any.ip.as_str(), any.bus_port()), ("", 17000));
        let local = ClusterNode::start(x, "127.0.0.1".parse().unwrap(), 7000, None).unwrap();
        assert_eq!(local.ip, "127.0.0.1");
    }

    #[test]
    fn a_node_keeps_its_id_and_epoch_in_its_file() {
        use strata_device::Directory;
        use strata_device::MemDirectory;
        let dir = MemDirectory::new();
        let file = || {
            let dir: Box<dyn Directory> = Box::new(dir.clone());
            Some(NodesFile::in_directory(dir, "nodes.conf", "nodes.conf"))
        };
        let ip = "127.0.0.1".parse().unwrap();
        let ids = |c: char| {
            let mut n = 0;
            move || {
                n += 1;
                format!("{c}{n}").repeat(20)
            }
        };
        let first = ClusterNode::start(ids('a'), ip, 7000, file()).unwrap();
        assert_eq!(
            (first.id.as_str(), first.shard_id.as_str()),
            (&*"a1".repeat(20), &*"a2".repeat(20))
        );
        first.epoch.store(4, Ordering::Release);
        first.save().unwrap();
        let again = ClusterNode::start(ids('b'), ip, 7001, file()).unwrap();
        assert_eq!(
            (again.id.as_str(), again.shard_id.as_str(), again.port),
            (&*"a1".repeat(20), &*"a2".repeat(20), 7001)
        );
        assert_eq!(again.epoch.load(Ordering::Acquire), 4);
        // A Redis 7.0 file: the id is kept, a shard id is drawn and saved.
        let old = format!(
            "{} :7000@17000 myself,master - 0 0 2 connected\nvars currentEpoch 2\n",
            "c".repeat(40)
        );
        dir.replace("nodes.conf", old.as_bytes()).unwrap();
        let upgraded = ClusterNode::start(ids('d'), ip, 7000, file()).unwrap();
        assert_eq!(
            (upgraded.id.as_str(), upgraded.shard_id.as_str()),
            (&*"c".repeat(40), &*"d1".repeat(20))
        );
        let kept = ClusterNode::start(ids('e'), ip, 7000, file()).unwrap();
        assert_eq!(kept.shard_id, upgraded.shard_id);
        dir.replace("nodes.conf", b"junk").unwrap();
        let err = ClusterNode::start(ids('f'), ip, 7000, file()).unwrap_err();
        assert!(err.contains("corrupted cluster config file"), "{err}");
    }
}
