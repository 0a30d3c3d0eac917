//! One rebuild worker's part of the keyspace (`ssd_rebuild.rs`): the
//! shards `w, w + W, w + 2W, ...` of `W` workers, built from the entries of
//! their keys alone, in append order. The router, on the SSD store's reader
//! threads, hashes each key once and sends its entry to the worker owning
//! its shard, with the hash; flush markers go to every worker.
//!
//! For its keys, a part does what a single-threaded scan would do, entry by
//! entry:
//! - a record points its key at itself (a later entry of a key wins), and
//!   its bytes count live in the worker's tally instead of the record it
//!   supersedes;
//! - a tombstone removes its key (uncounting its record) and is remembered
//!   as the key's last entry until a record of the key comes;
//! - a flush marker forgets everything before it.

use std::collections::HashMap;

use strata_ssd::{BlockLoc, LiveTally, Route, SplitEntry};

use crate::arena::decode;
use crate::chunk::{record_hash, Namespace, CHUNK};
use crate::shard::ssd::FoundRecord;
use crate::shard::ShardInner;
use crate::tier::ssd::{KIND_CHUNK_TOMBSTONE, KIND_FLUSH, KIND_PUT, KIND_TOMBSTONE};
use crate::tier::ValueRef;

/// How the keyspace is split among the workers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    /// Shards of the keyspace (a power of two).
    pub shards: usize,
    /// Workers (at most `shards`).
    pub workers: usize,
    pub segment_size: usize,
    /// Index slots reserved per shard for the keys expected.
    pub reserve: usize,
    /// The keyspace's hash seed.
    pub seed: u64,
}

impl Layout {
    fn hash(&self, key: &[u8], flags: u64) -> u64 {
        record_hash(self.seed, key, flags)
    }

    fn shard_of(&self, hash: u64) -> usize {
        hash as usize & (self.shards - 1)
    }

    /// Where the entry goes, with its key's hash. An entry that is not
    /// what its kind says goes to the first worker, which reports it.
    pub(super) fn route(&self, kind: u8, payload: &[u8]) -> Route {
        let hash = match kind {
            KIND_PUT => match decode(payload).filter(|h| h.record_len() == payload.len()) {
                Some(h) => self.hash(&payload[h.header_len..h.header_len + h.key_len], h.flags),
                None => return Route::to(0, 0),
            },
            KIND_TOMBSTONE => self.hash(payload, 0),
            KIND_CHUNK_TOMBSTONE => self.hash(payload, CHUNK),
            KIND_FLUSH => return Route::everyone(),
            _ => return Route::to(0, 0),
        };
        Route::to(self.shard_of(hash) % self.workers, hash)
    }
}

/// One worker's shards and what it keeps besides them.
pub(super) struct Part {
    layout: Layout,
    /// Shards `worker, worker + workers, ...`, in that order.
    pub shards: Vec<ShardInner>,
    /// Per shard: the last tombstone of each key (namespace byte, then
    /// the key; see [`crate::chunk`]) whose last entry it is.
    pub tombstones: Vec<HashMap<Vec<u8>, BlockLoc>>,
    pub marker: Option<BlockLoc>,
    pub max_cas: u64,
    pub failure: Option<String>,
    worker: usize,
    /// A tombstone map's key, built without allocating.
    scratch: Vec<u8>,
}

impl Part {
    pub(super) fn new(layout: Layout, worker: usize) -> Part {
        let mut part = Part {
            layout,
            shards: Vec::new(),
            tombstones: Vec::new(),
            marker: None,
            max_cas: 0,
            failure: None,
            worker,
            scratch: Vec::new(),
        };
        part.reset();
        part
    }

    /// Empty shards, presized (the start, and a flush marker).
    fn reset(&mut self) {
        let owned = (self.worker..self.layout.shards).step_by(self.layout.workers);
        let layout = self.layout;
        self.shards = owned
            .clone()
            .map(|_| {
                let mut shard = ShardInner::new(layout.segment_size);
                shard.reserve_index(layout.reserve);
                shard
            })
            .collect();
        self.tombstones = owned.map(|_| HashMap::new()).collect();
    }

    /// Starts loading the index lines of the entry tagged `tag`, which
    /// comes a few entries later (a flush marker's tag 0 costs one useless
    /// hint).
    pub(super) fn prefetch(&self, tag: u64) {
        let local = self.layout.shard_of(tag) / self.layout.workers;
        if let Some(shard) = self.shards.get(local) {
            shard.prefetch_index(tag);
        }
    }

    /// Applies one entry routed here; the first failure stops the part.
    pub(super) fn visit(&mut self, tally: &mut LiveTally, entry: SplitEntry<'_>) {
        if self.failure.is_some() {
            return;
        }
        if let Err(e) = self.apply(tally, entry) {
            self.failure = Some(e);
        }
    }

    fn apply(&mut self, tally: &mut LiveTally, entry: SplitEntry<'_>) -> Result<(), String> {
        let SplitEntry {
            loc,
            kind,
            payload,
            tag: hash,
        } = entry;
        let local = self.layout.shard_of(hash) / self.layout.workers;
        let tallied = |e: strata_ssd::SsdError| format!("counting live entries: {e}");
        match kind {
            KIND_PUT => {
                let Some(header) = decode(payload).filter(|h| h.record_len() == payload.len())
                else {
                    return Err(format!("the SSD entry at {loc} is not a record"));
                };
                let key = &payload[header.header_len..header.header_len + header.key_len];
                self.forget_tombstone(local, Namespace::of(header.flags), key);
                self.max_cas = self.max_cas.max(header.cas);
                let found = FoundRecord {
                    key,
                    cas: header.cas,
                    flags: header.flags,
                    expires_at: header.expires_at,
                    vref: ValueRef {
                        loc,
                        len: payload.len() as u32,
                    },
                };
                let seed = self.layout.seed;
                let hasher = move |key: &[u8], flags: u64| record_hash(seed, key, flags);
                let superseded = self.shards[local]
                    .restore_stub(hash, &hasher, &found)
                    .map_err(|e| format!("rebuilding the index: {e}"))?;
                if let Some(old) = superseded {
                    tally.unmark(old.loc, old.len as usize).map_err(tallied)?;
                }
                tally.mark(loc, payload.len()).map_err(tallied)
            }
            KIND_TOMBSTONE | KIND_CHUNK_TOMBSTONE => {
                let ns = match kind {
                    KIND_TOMBSTONE => Namespace::User,
                    _ => Namespace::Chunk,
                };
                if let Some(old) = self.shards[local].forget_key(ns, hash, payload) {
                    tally.unmark(old.loc, old.len as usize).map_err(tallied)?;
                }
                let mut key = Vec::with_capacity(payload.len() + 1);
                key.push(ns_byte(ns));
                key.extend_from_slice(payload);
                self.tombstones[local].insert(key, loc);
                Ok(())
            }
            KIND_FLUSH => {
                self.reset();
                tally.clear();
                self.marker = Some(loc);
                Ok(())
            }
            other => Err(format!("the SSD entry at {loc} has unknown kind {other}")),
        }
    }

    /// A record of `key` came: a tombstone before it is not its last entry.
    fn forget_tombstone(&mut self, local: usize, ns: Namespace, key: &[u8]) {
        let map = &mut self.tombstones[local];
        if map.is_empty() {
            return;
        }
        self.scratch.clear();
        self.scratch.push(ns_byte(ns));
        self.scratch.extend_from_slice(key);
        map.remove(&self.scratch[..]);
    }
}

fn ns_byte(ns: Namespace) -> u8 {
    u8::from(ns == Namespace::Chunk)
}
