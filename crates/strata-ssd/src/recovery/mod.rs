//! The rebuild at open: [`Recovery`] is the store between
//! [`SsdStore::open`] and [`Recovery::finish`], while the engine rebuilds
//! its index.
//!
//! - `state`: the [`Recovery`] struct itself (a leaf its children share).
//! - `headers`: the device header (formatting a blank device) and every
//!   block header, in parallel.
//! - `blocks`: whole blocks read in parallel, delivered in sequence order.
//! - `split`: the scan with its entries split among worker threads, each
//!   counting the live bytes of what it keeps.
//! - `since`: the entries appended since a position (after an adoption).
//! - `marks`: [`MarkUser`], how another user marks its entries before
//!   `finish`.
//!
//! Torn or corrupt: every written block header records the durable
//! frontier (all blocks at or below that sequence were complete and synced
//! when it was written). A bad entry in a block above the highest frontier
//! found is a torn write from the power cut: the block is cut there and the
//! bytes counted. A bad entry at or below it is corruption:
//! [`SsdError::Corrupt`] names block and offset. The frontier reaches the
//! device one flush late (the open block's header is rewritten after each
//! sync), so damage in the block that was open, or in blocks sealed since
//! the flush before last, is indistinguishable from a tear and is cut
//! (counted in [`RebuildStats`](crate::RebuildStats), logged as a warning).

mod blocks;
mod headers;
mod marks;
mod since;
mod split;
mod state;
mod tally;

pub use marks::{MarkUser, OtherUsers};
pub use split::{Route, SplitEntry};
pub use state::Recovery;
pub use tally::LiveTally;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use parking_lot::Mutex;
use strata_device::{AlignedBuf, BlockDevice, BLOCK_ALIGN};

use crate::config::{block_count, IndexHome, IoEngine, SsdConfig};
use crate::error::SsdError;
use crate::format::block_header::{BlockHeader, Written, BLOCK_HEADER_LEN};
use crate::format::device_header::USERS_VERSION;
use crate::format::entry::{footprint, ENTRY_ALIGN};
use crate::loc::BlockLoc;
use crate::pool::IoPool;
use crate::position::Position;
use crate::rings::Rings;
use crate::stats::{Counters, RebuildStats};
use crate::store::buffers::ReadBuffers;
use crate::store::geometry::Geometry;
use crate::store::handle::{record_cache, Inner, SsdStore};
use crate::store::table::{BlockState, BlockTable};
use crate::store::writer::Writer;
use crate::user::StoreUser;
use state::{corrupt, Found};

/// See [`SsdStore::open`].
pub(crate) fn open(device: Arc<dyn BlockDevice>, config: SsdConfig) -> Result<Recovery, SsdError> {
    let started = Instant::now();
    config.validate()?;
    let blocks = block_count(device.capacity(), &config)?;
    let geometry = Geometry {
        block_size: config.block_size,
        block_count: blocks,
        reserve: config.reserve_for(blocks - 1),
    };
    let (device_header, formatted) =
        headers::device_header(&*device, &geometry, config.index_home)?;
    let nonce = device_header.nonce;
    let headers = headers::block_headers(&*device, &geometry, nonce, config.rebuild_threads)?;
    let table = BlockTable::new(blocks);
    let (mut found, mut seq_high) = (Vec::new(), 0u64);
    let mut listed = vec![false; blocks as usize];
    for (block, header) in headers {
        match header {
            BlockHeader::Written(w) => {
                let used = w.used as usize;
                if !(BLOCK_HEADER_LEN..=geometry.block_size).contains(&used) {
                    return Err(corrupt(
                        block,
                        0,
                        format!("block header claims {used} used bytes"),
                    ));
                }
                if StoreUser::from_code(w.owner).is_none() {
                    return Err(corrupt(
                        block,
                        0,
                        format!("block header names an unknown owner ({})", w.owner),
                    ));
                }
                seq_high = seq_high.max(w.seq + 1);
                listed[block as usize] = true;
                found.push(Found {
                    block,
                    header: w,
                    cut: None,
                });
            }
            BlockHeader::Freed { seq_high: high } => seq_high = seq_high.max(high),
            BlockHeader::Damaged(reason) => return Err(corrupt(block, 0, reason)),
            BlockHeader::Blank => {}
        }
    }
    found.sort_by_key(|f| (f.header.seq, f.block));
    for f in &found {
        let owner = StoreUser::from_code(f.header.owner).unwrap_or(StoreUser::KV);
        table.recovered(f.block, f.header.seq, f.header.used as usize, owner);
    }
    let free = (1..blocks).filter(|&b| !listed[b as usize]).collect();
    let frontier = found.iter().map(|f| f.header.frontier).max().unwrap_or(0);
    Ok(Recovery {
        device,
        config,
        geometry,
        nonce,
        device_header,
        table,
        free,
        frontier,
        // Sequences of blocks opened since the last sync may have left no
        // header; skipping one per block guarantees none is reused.
        next_seq: seq_high.max(1) + u64::from(geometry.data_blocks()),
        scanned: false,
        stats: RebuildStats {
            formatted,
            blocks_scanned: u64::from(blocks - 1),
            blocks_valid: found.len() as u64,
            ..RebuildStats::default()
        },
        found,
        started,
    })
}

impl Recovery {
    /// Calls `visitor(loc, kind, payload)` for every entry of the primary
    /// user ([`StoreUser::KV`]) on the device, blocks in ascending sequence and entries in append order, so a later
    /// entry for the same key supersedes an earlier one. Blocks are read
    /// and checked in parallel. A torn tail in a block written after the
    /// last sync is cut and counted; any other damage is
    /// [`SsdError::Corrupt`] (the visitor may then have seen part of the
    /// entries). May be called again; each call starts over.
    ///
    /// Only for a device whose index is [`IndexHome::Rebuilt`].
    pub fn scan(&mut self, visitor: impl FnMut(BlockLoc, u8, &[u8])) -> Result<(), SsdError> {
        if self.config.index_home != IndexHome::Rebuilt {
            return Err(SsdError::Misuse(
                "scanning a device whose index is persistent (it holds no tombstones)",
            ));
        }
        self.read_blocks(false, visitor)
    }

    /// The start of a device whose index persisted on its own
    /// ([`IndexHome::Persistent`]): no entry is read except in the blocks
    /// written since the last sync, whose torn tails are cut as
    /// [`scan`](Self::scan) cuts them. The engine then marks each entry
    /// its index names with [`set_live`](Self::set_live); an entry past a
    /// block's durable end (appended after the last write that reached the
    /// device) is refused with [`SsdError::NotLive`]: lost in the crash.
    pub fn adopt(&mut self) -> Result<(), SsdError> {
        if self.config.index_home != IndexHome::Persistent {
            return Err(SsdError::Misuse(
                "adopting a device whose index is rebuilt from it",
            ));
        }
        self.read_blocks(true, |_, _, _| {})
    }

    /// The entries the block headers announce (before a scan: what it
    /// will deliver, torn tails aside), to size an index ahead. No more
    /// than the blocks' used bytes can hold, whatever a header claims.
    pub fn entries_announced(&self) -> u64 {
        let most = |f: &Found| (f.header.used as usize - BLOCK_HEADER_LEN) / footprint(0);
        (self.found.iter())
            .filter(|f| f.header.owner == StoreUser::KV.code())
            .map(|f| u64::from(f.header.entries).min(most(f) as u64))
            .sum()
    }

    /// The device's identity, random per format: an engine keeping its
    /// index elsewhere records it, to refuse a different device later.
    pub fn device_id(&self) -> u64 {
        self.nonce
    }

    /// Reads every found block (or only those written after the durable
    /// frontier), cutting torn tails, and visits their entries in order.
    fn read_blocks(
        &mut self,
        unsynced_only: bool,
        mut visitor: impl FnMut(BlockLoc, u8, &[u8]),
    ) -> Result<(), SsdError> {
        self.read_blocks_with(unsynced_only, &|_| (), |block, read, ()| {
            for (offset, entry) in &read.parsed.entries {
                let loc = BlockLoc {
                    block,
                    offset: *offset,
                };
                visitor(loc, entry.kind, &read.image[entry.payload.clone()]);
            }
            Ok(())
        })
    }

    /// Marks the entry at `loc` (payload of `payload_len` bytes) live: the
    /// engine's index points at it, or it is a tombstone the engine must
    /// keep (see the crate documentation). Call after
    /// [`scan`](Self::scan), once per live entry; blocks with nothing
    /// marked are freed by [`finish`](Self::finish).
    pub fn set_live(&self, loc: BlockLoc, payload_len: usize) -> Result<(), SsdError> {
        if !self.scanned {
            return Err(SsdError::Misuse("set_live before the scan"));
        }
        let not_live = |reason: &str| SsdError::NotLive {
            loc,
            reason: reason.to_owned(),
        };
        match self.table.state(loc.block) {
            Some((BlockState::Sealed, _)) => {}
            _ => return Err(not_live("no block holding entries")),
        }
        let used = self.table.used(loc.block);
        let size = footprint(payload_len);
        let offset = loc.offset as usize;
        if !offset.is_multiple_of(ENTRY_ALIGN) || offset < BLOCK_HEADER_LEN || offset + size > used
        {
            return Err(not_live("outside the block's entries"));
        }
        if self.table.live(loc.block) + size as u64 > (used - BLOCK_HEADER_LEN) as u64 {
            return Err(not_live(
                "more live bytes than the block holds (marked twice?)",
            ));
        }
        self.table.add_live(loc.block, size as u64);
        Ok(())
    }

    /// [`set_live`](Self::set_live) for each `(location, payload length)`.
    pub fn set_live_many(
        &self,
        entries: impl IntoIterator<Item = (BlockLoc, usize)>,
    ) -> Result<(), SsdError> {
        entries
            .into_iter()
            .try_for_each(|(loc, len)| self.set_live(loc, len))
    }

    /// What the rebuild found so far.
    pub fn stats(&self) -> RebuildStats {
        RebuildStats {
            duration: self.started.elapsed(),
            ..self.stats
        }
    }

    /// Ends the rebuild: rewrites the header of each kept block whose tail
    /// was cut, writes freed markers over blocks with nothing marked live,
    /// syncs, and returns the store, ready for appends. Refused before a
    /// successful [`scan`](Self::scan).
    pub fn finish(mut self) -> Result<SsdStore, SsdError> {
        if !self.scanned {
            return Err(SsdError::Misuse("finish before a successful scan"));
        }
        let io = |what: String| move |e| SsdError::io(what, e);
        self.device
            .sync()
            .map_err(io("syncing before the rebuild's writes".into()))?;
        let mut page = AlignedBuf::zeroed(BLOCK_ALIGN);
        let mut released = Vec::new();
        for f in &self.found {
            let offset = self.geometry.offset(f.block);
            if self.table.live(f.block) == 0 {
                BlockHeader::Freed {
                    seq_high: self.next_seq,
                }
                .encode(self.nonce, &mut page);
                page[BLOCK_HEADER_LEN..].fill(0);
                released.push(f.block);
            } else if let Some((used, entries)) = f.cut {
                self.device
                    .read_at(&mut page, offset)
                    .map_err(io(format!("reading block {}", f.block)))?;
                let header = Written {
                    used: used as u32,
                    entries,
                    ..f.header
                };
                BlockHeader::Written(header).encode(self.nonce, &mut page);
            } else {
                continue;
            }
            let what = format!("rewriting the header of block {}", f.block);
            self.device.write_at(&page, offset).map_err(io(what))?;
        }
        self.device
            .sync()
            .map_err(io("syncing the rebuild".into()))?;
        self.table.make_free(&self.free);
        self.table.make_free(&released);
        self.stats.blocks_released = released.len() as u64;
        self.stats.duration = self.started.elapsed();
        let stats = self.stats;
        tracing::info!(
            ?stats.duration,
            blocks = stats.blocks_valid,
            entries = stats.entries,
            torn = stats.torn_blocks,
            "SSD tier rebuilt"
        );
        let cache = record_cache(&self.config)?;
        let pool = IoPool::new(
            self.config.io_threads,
            self.config.io_queue_depth,
            self.config.io_engine,
            self.device.clone(),
        )?;
        // The ring engine in force (io_uring allowed) on a file.
        let rings = (pool.engine() == IoEngine::Uring && self.device.ring_file().is_some())
            .then(|| Rings::new(self.device.clone(), self.config.io_queue_depth));
        let inner = Inner {
            pool,
            rings,
            buffers: ReadBuffers::new(self.config.read_buffers),
            writer: Mutex::new(Writer::new(self.geometry.block_size, self.next_seq)),
            frontier: AtomicU64::new(self.next_seq - 1),
            // Everything on the device was synced above.
            synced_to: AtomicU64::new(Position::new(self.next_seq, 0).to_bits()),
            unsynced: AtomicBool::new(false),
            runs_writing: Mutex::new(BTreeSet::new()),
            poison: OnceLock::new(),
            counters: Counters::default(),
            device: self.device,
            geometry: self.geometry,
            nonce: self.nonce,
            users_enabled: AtomicBool::new(self.device_header.version >= USERS_VERSION),
            device_header: self.device_header,
            table: self.table,
            cache,
            rebuild: stats,
        };
        Ok(SsdStore {
            inner: Arc::new(inner),
        })
    }
}
