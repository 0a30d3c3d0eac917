//! [`BlockTable`]: the DRAM state of every write block: free, open (taking
//! appends), sealed (full or recovered, read-only) or freeing (no live
//! bytes; its freed marker must be written and synced before reuse), its
//! sequence number, owner ([`StoreUser`]), used and live bytes.
//!
//! Per-block fields are atomics, so reads and releases from many threads
//! take no lock; the free list, the freeing list and the sequence order
//! sit behind one mutex touched only when blocks change state.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::SeqCst};

use parking_lot::Mutex;

use crate::error::SsdError;
use crate::format::block_header::BLOCK_HEADER_LEN;
use crate::user::StoreUser;

/// Where a block is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockState {
    Free = 0,
    Open = 1,
    Sealed = 2,
    Freeing = 3,
}

impl BlockState {
    fn from_u8(raw: u8) -> BlockState {
        match raw {
            1 => BlockState::Open,
            2 => BlockState::Sealed,
            3 => BlockState::Freeing,
            _ => BlockState::Free,
        }
    }
}

#[derive(Default)]
struct Slot {
    state: AtomicU8,
    /// The owner's code; meaningful while the block is not free.
    owner: AtomicU16,
    seq: AtomicU64,
    live: AtomicU64,
    used: AtomicU32,
}

#[derive(Default)]
struct Lists {
    free: VecDeque<u32>,
    freeing: Vec<u32>,
    /// Open, sealed and freeing blocks by sequence: the oldest first.
    by_seq: BTreeMap<u64, u32>,
}

/// Block counts and bytes, for stats.
#[derive(Debug, Default, Clone)]
pub(crate) struct Census {
    pub(crate) free: u32,
    pub(crate) open: u32,
    pub(crate) sealed: u32,
    pub(crate) freeing: u32,
    pub(crate) used_bytes: u64,
    pub(crate) live_bytes: u64,
    /// Per owner (the primary user always listed): blocks holding
    /// entries (open, sealed, freeing), used and live bytes.
    pub(crate) users: BTreeMap<StoreUser, UserCensus>,
}

/// One user's blocks and bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UserCensus {
    pub(crate) blocks: u32,
    pub(crate) used_bytes: u64,
    pub(crate) live_bytes: u64,
}

/// The state of all blocks; block 0 (the device header) is never used.
pub(crate) struct BlockTable {
    slots: Box<[Slot]>,
    lists: Mutex<Lists>,
}

impl BlockTable {
    /// `block_count` blocks, all free but on no list yet (recovery fills
    /// the lists).
    pub(crate) fn new(block_count: u32) -> BlockTable {
        BlockTable {
            slots: (0..block_count).map(|_| Slot::default()).collect(),
            lists: Mutex::new(Lists::default()),
        }
    }

    fn slot(&self, block: u32) -> Option<&Slot> {
        (block != 0)
            .then(|| self.slots.get(block as usize))
            .flatten()
    }

    /// State and sequence of `block`; `None` for block 0 or out of range.
    pub(crate) fn state(&self, block: u32) -> Option<(BlockState, u64)> {
        let slot = self.slot(block)?;
        Some((
            BlockState::from_u8(slot.state.load(SeqCst)),
            slot.seq.load(SeqCst),
        ))
    }

    pub(crate) fn used(&self, block: u32) -> usize {
        self.slot(block).map_or(0, |s| s.used.load(SeqCst) as usize)
    }

    pub(crate) fn live(&self, block: u32) -> u64 {
        self.slot(block).map_or(0, |s| s.live.load(SeqCst))
    }

    /// The user `block` belongs to; `None` for a free block, block 0 or
    /// out of range.
    pub(crate) fn owner(&self, block: u32) -> Option<StoreUser> {
        let slot = self.slot(block)?;
        if BlockState::from_u8(slot.state.load(SeqCst)) == BlockState::Free {
            return None;
        }
        StoreUser::from_code(slot.owner.load(SeqCst))
    }

    /// Recovery: `block` holds entries of `owner` up to `used` from
    /// sequence `seq`.
    pub(crate) fn recovered(&self, block: u32, seq: u64, used: usize, owner: StoreUser) {
        let slot = &self.slots[block as usize];
        slot.owner.store(owner.code(), SeqCst);
        slot.seq.store(seq, SeqCst);
        slot.used.store(used as u32, SeqCst);
        slot.live.store(0, SeqCst);
        slot.state.store(BlockState::Sealed as u8, SeqCst);
        self.lists.lock().by_seq.insert(seq, block);
    }

    /// Recovery: a recovered block's entries end at `used` (a torn tail
    /// was cut off).
    pub(crate) fn recovered_used(&self, block: u32, used: usize) {
        self.slots[block as usize].used.store(used as u32, SeqCst);
    }

    /// Puts free `blocks` on the free list (recovery, reclaim).
    pub(crate) fn make_free(&self, blocks: &[u32]) {
        let mut lists = self.lists.lock();
        for &block in blocks {
            let slot = &self.slots[block as usize];
            let was = BlockState::from_u8(slot.state.swap(BlockState::Free as u8, SeqCst));
            if was != BlockState::Free {
                lists.by_seq.remove(&slot.seq.load(SeqCst));
            }
            slot.live.store(0, SeqCst);
            slot.used.store(0, SeqCst);
            lists.free.push_back(block);
        }
    }

    /// Takes the oldest free block and opens it for `owner` with `seq`;
    /// with a `reserve`, only while more than that many blocks are free.
    /// `Err` carries the free count.
    pub(crate) fn open_free(
        &self,
        seq: u64,
        reserve: Option<u32>,
        owner: StoreUser,
    ) -> Result<u32, u32> {
        let mut lists = self.lists.lock();
        let free = lists.free.len() as u32;
        if reserve.is_some_and(|reserve| free <= reserve) {
            return Err(free);
        }
        let Some(block) = lists.free.pop_front() else {
            return Err(free);
        };
        let slot = &self.slots[block as usize];
        slot.owner.store(owner.code(), SeqCst);
        slot.seq.store(seq, SeqCst);
        slot.used.store(BLOCK_HEADER_LEN as u32, SeqCst);
        slot.live.store(0, SeqCst);
        slot.state.store(BlockState::Open as u8, SeqCst);
        lists.by_seq.insert(seq, block);
        Ok(block)
    }

    /// The open block now uses `used` bytes.
    pub(crate) fn set_used(&self, block: u32, used: usize) {
        self.slots[block as usize].used.store(used as u32, SeqCst);
    }

    /// Counts `bytes` more live in `block`.
    pub(crate) fn add_live(&self, block: u32, bytes: u64) {
        self.slots[block as usize].live.fetch_add(bytes, SeqCst);
    }

    /// Counts `bytes` of `block` dead; a sealed block left with none live
    /// starts freeing. The error says why the release is refused.
    pub(crate) fn release(&self, block: u32, bytes: u64) -> Result<(), String> {
        let slot = self.slot(block).ok_or("no such block")?;
        let state = BlockState::from_u8(slot.state.load(SeqCst));
        if !matches!(state, BlockState::Open | BlockState::Sealed) {
            return Err(format!("the block is {state:?}"));
        }
        let before = slot
            .live
            .fetch_update(SeqCst, SeqCst, |live| live.checked_sub(bytes))
            .map_err(|live| format!("releasing {bytes} bytes but only {live} are live"))?;
        if before == bytes {
            self.start_freeing(block);
        }
        Ok(())
    }

    /// The open block is full or done: read-only from now on.
    pub(crate) fn seal(&self, block: u32) {
        let slot = &self.slots[block as usize];
        slot.state.store(BlockState::Sealed as u8, SeqCst);
        if slot.live.load(SeqCst) == 0 {
            self.start_freeing(block);
        }
    }

    /// Sealed to freeing, once (a release and a seal may race here).
    fn start_freeing(&self, block: u32) {
        let slot = &self.slots[block as usize];
        let (sealed, freeing) = (BlockState::Sealed as u8, BlockState::Freeing as u8);
        if slot
            .state
            .compare_exchange(sealed, freeing, SeqCst, SeqCst)
            .is_ok()
        {
            self.lists.lock().freeing.push(block);
        }
    }

    /// Frees a sealed block; refused while bytes are live unless `force`.
    /// Already freeing or free: nothing to do.
    pub(crate) fn free(&self, block: u32, force: bool) -> Result<(), SsdError> {
        let slot = self.slot(block).ok_or(SsdError::Misuse("no such block"))?;
        match BlockState::from_u8(slot.state.load(SeqCst)) {
            BlockState::Free | BlockState::Freeing => Ok(()),
            BlockState::Open => Err(SsdError::Misuse("the open block cannot be freed")),
            BlockState::Sealed => {
                let live = slot.live.load(SeqCst);
                if live > 0 && !force {
                    return Err(SsdError::StillLive {
                        block,
                        live_bytes: live,
                    });
                }
                slot.live.store(0, SeqCst);
                self.start_freeing(block);
                Ok(())
            }
        }
    }

    /// Takes every freeing block (to write their freed markers).
    pub(crate) fn take_freeing(&self) -> Vec<u32> {
        std::mem::take(&mut self.lists.lock().freeing)
    }

    /// The lowest sequence of a primary user's block still holding
    /// entries on the device (open, sealed, or freeing and not yet marked
    /// freed). Other users' blocks are passed over: they hold no primary
    /// entry, so no older version a primary tombstone shadows, and a long
    /// lived run must not keep the primary's tombstones forever.
    pub(crate) fn oldest_seq(&self) -> Option<u64> {
        let primary = StoreUser::KV.code();
        let lists = self.lists.lock();
        (lists.by_seq.iter())
            .find(|(_, &block)| self.slots[block as usize].owner.load(SeqCst) == primary)
            .map(|(&seq, _)| seq)
    }

    /// The primary user's sealed blocks whose live bytes are under
    /// `threshold_pct` percent of `usable`, lowest live fraction first
    /// (other users' blocks hold runs their owner releases whole).
    pub(crate) fn candidates(&self, threshold_pct: u8, usable: usize) -> Vec<u32> {
        let limit = usable as u64 * u64::from(threshold_pct);
        let primary = StoreUser::KV.code();
        let mut found: Vec<(u64, u32)> = (1..self.slots.len() as u32)
            .filter_map(|block| {
                let slot = &self.slots[block as usize];
                let sealed = slot.state.load(SeqCst) == BlockState::Sealed as u8;
                let ours = slot.owner.load(SeqCst) == primary;
                let live = slot.live.load(SeqCst);
                (sealed && ours && live * 100 < limit).then_some((live, block))
            })
            .collect();
        found.sort_unstable();
        found.into_iter().map(|(_, block)| block).collect()
    }

    /// Free and freeing blocks (cheaper than a [`census`](Self::census)).
    pub(crate) fn free_counts(&self) -> (u32, u32) {
        let lists = self.lists.lock();
        (lists.free.len() as u32, lists.freeing.len() as u32)
    }

    /// Counts of blocks by state and bytes used and live, in all and per
    /// owner.
    pub(crate) fn census(&self) -> Census {
        let mut census = Census::default();
        census.users.insert(StoreUser::KV, UserCensus::default());
        for slot in self.slots.iter().skip(1) {
            let state = BlockState::from_u8(slot.state.load(SeqCst));
            let counter = match state {
                BlockState::Free => &mut census.free,
                BlockState::Open => &mut census.open,
                BlockState::Sealed => &mut census.sealed,
                BlockState::Freeing => &mut census.freeing,
            };
            *counter += 1;
            let (used, live) = (u64::from(slot.used.load(SeqCst)), slot.live.load(SeqCst));
            census.used_bytes += used;
            census.live_bytes += live;
            let owner = StoreUser::from_code(slot.owner.load(SeqCst));
            if let (false, Some(owner)) = (state == BlockState::Free, owner) {
                let user = census.users.entry(owner).or_default();
                user.blocks += 1;
                user.used_bytes += used;
                user.live_bytes += live;
            }
        }
        census
    }
}
