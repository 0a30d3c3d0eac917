//! # strata-ssd: the SSD tier's write-block store
//!
//! Records are opaque payloads to this crate (the engine encodes key,
//! value, flags and expiry inside, and chooses a kind byte per entry). They
//! are appended into large write blocks (64 KiB to 8 MiB, 1 MiB by
//! default) assembled in DRAM and written to a [`BlockDevice`] with
//! aligned, unbuffered I/O, so the engine, not the OS page cache, decides
//! what stays in DRAM. The engine's index holds a [`BlockLoc`] per record
//! (block, offset; the length is in the entry header).
//!
//! ## Layout
//! - [`store`](SsdStore): appends, reads (blocking, or [`read_async`](SsdStore::read_async)
//!   through a pool of I/O threads), releases, flush, stats, and the
//!   defragmentation dialog ([`SsdStore::defrag_candidates`],
//!   [`SsdStore::entries`], [`SsdStore::append_relocated`],
//!   [`SsdStore::free_block`]).
//! - `recovery`: [`SsdStore::open`] returns a [`Recovery`]: the parallel
//!   rebuild scan or the adoption, live marking ([`LiveTally`] per
//!   thread), [`Recovery::finish`].
//! - `format`: the on-device layout (device header, block headers,
//!   entries), pure functions.
//! - `files`: [`FileSet`], another user's immutable files as runs of
//!   fixed-size chunks with their [`Catalog`] in a directory of its own,
//!   committed after a flush so a crash keeps the old set or the new one.
//! - the DRAM record cache is `strata-cache`'s byte-budgeted S3-FIFO.
//! - `pool`: the reader threads behind `read_async`, one blocking read
//!   at a time each, or one thread keeping an io_uring ring full
//!   ([`IoEngine`]).
//! - `rings`: with the io_uring engine, each serving thread's own ring:
//!   a miss asked from a tokio runtime is read through it and finished by
//!   a task of that runtime, with no hand-off to another thread (the pool
//!   takes what does not fit).
//! - [`config`](SsdConfig), [`error`](SsdError), [`loc`](BlockLoc),
//!   [`position`](Position) (append order),
//!   [`stats`](SsdStats), [`open_ssd_path`] (a directory or a block device).
//!
//! ## Users
//! One store on one device serves several engines ([`StoreUser`]); every
//! block belongs to one of them, recorded in its header, so the store
//! counts blocks and bytes per user ([`SsdStats::users`]) from its block
//! table. The primary user ([`StoreUser::KV`]) appends entry by entry
//! into the open block, and only its entries reach a scan, adoption's
//! reads since a position and the defragmenter. Another user appends
//! *runs* ([`SsdStore::append_run`]): whole blocks of its own, written and
//! sealed at once, whose locations it keeps in a catalog of its own and
//! marks live at restart; what it does not mark is freed ([`FileSet`]
//! keeps whole files that way, with their [`Catalog`]). A device
//! formatted before users existed is read as the primary user's and raised
//! to the format that records owners by its first run.
//!
//! ## Durability
//! An append is readable at once and durable after the next successful
//! [`SsdStore::flush`] (the engine calls it on a timer): a power cut loses
//! at most what was appended since the last flush, and a torn tail is cut
//! at restart. A failed write or sync poisons the store; the device's file
//! reserves its blocks when opened (`strata-device`), so a full filesystem
//! is not such a failure. Writes are
//! refused with [`SsdError::Full`] before the device is full: ordinary
//! appends leave a reserve of free blocks (max(2, 1%)) to the
//! defragmenter.
//!
//! ## Rebuild
//! [`Recovery::scan`] yields every entry in (block sequence, offset) order:
//! the order they were appended in, relocations included. The engine keeps
//! the last entry per key, then marks each surviving entry with
//! [`Recovery::set_live`]; blocks with nothing marked are freed.
//! [`Recovery::scan_split`] does the same with the entries split among
//! worker threads by a router the engine gives (each key's entries to one
//! worker, still in order), each worker marking what it keeps in its own
//! [`LiveTally`] as it goes.
//!
//! ## Adoption (a persistent index)
//! A device formatted with [`IndexHome::Persistent`] holds no tombstones
//! and is never scanned into an index: the engine's index survived (in
//! persistent memory). [`Recovery::adopt`] reads only the block headers and
//! the blocks written after the last sync (cutting torn tails); the engine
//! marks the entry of each index entry live ([`Recovery::set_live`], or from
//! many threads with [`Recovery::tally`]), and an entry past its block's
//! durable end is refused as not live: its record was lost in the crash.
//! To find an older record of such a key, the engine remembers positions
//! in append order ([`Position`], [`SsdStore::position`],
//! [`SsdStore::synced_position`]) and reads what was appended since one
//! ([`Recovery::visit_since`]): the blocks of the last flush window.
//! The rules below about tombstones do not apply to such a device; the
//! others (release after the superseding append, relocation under the
//! key's lock) do, and the engine must repoint an index entry only to a
//! relocated copy that is already durable.
//!
//! ## The contract that keeps deletes deleted
//! The store keeps superseded entries on the device until their block is
//! freed, so a rebuild sees old versions. The engine MUST follow these
//! rules (`tests/common/mod.rs` is an engine that does, and
//! `tests/model.rs` checks it across clean and torn power cuts):
//! 1. A delete appends a tombstone entry (a kind of the engine's choosing)
//!    naming the key, and the index keeps pointing at it. Exactly the
//!    entries the index points at are live: a put or delete releases
//!    ([`SsdStore::release`]) the entry the index pointed at before (put or
//!    tombstone), and only after the superseding append returned.
//! 2. The defragmenter, meeting in block `B` an entry the index points at,
//!    relocates it ([`SsdStore::append_relocated`], then releases the
//!    original), except a tombstone when `B` is the primary user's oldest
//!    block on the device (`store.oldest_seq() == store.block_seq(B)`):
//!    that tombstone is released and the key leaves the index. Why this is
//!    enough: every older version of the key was appended before the
//!    tombstone's first copy, so it lies in a primary block whose sequence
//!    is at most `B`'s; when `B` is the oldest primary block still on the
//!    device, those versions are in `B` itself and vanish with it (other
//!    users' blocks hold none).
//! 3. The defragmenter's check "does the index still point here" and its
//!    relocation happen atomically with respect to writes of that key
//!    (under the key's shard lock), or a write racing it could be
//!    overtaken by a stale copy.
//! 4. At rebuild, the index keeps the last entry of every key, tombstones
//!    included, and marks each live ([`Recovery::set_live`]).
//!
//! The store's own part: a block's freed marker is written only after a
//! sync covering every append made before the block started freeing, and
//! entry checksums are seeded per block life, so a freed or reused block
//! never brings old entries back.
//!
//! ## Packing a location
//! [`BlockLoc::pack`] gives 47 bits: the offset / 8 in 20 bits
//! (8 MiB / 8 bytes) and the block in 27 (2^27 blocks; devices with more
//! are refused). With a 16-bit tag that fills 63 bits of an 8-byte entry.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![forbid(unsafe_code)]

mod config;
mod device_path;
mod error;
mod files;
mod format;
mod loc;
mod pool;
mod position;
mod recovery;
mod rings;
mod stats;
mod store;
mod user;

pub use config::{
    IndexHome, IoEngine, SsdConfig, MAX_BLOCK_SIZE, MIN_BLOCK_SIZE, RECORD_CACHE_USER,
};
pub use device_path::{open_ssd_path, IoMode, DATA_FILE_NAME};
pub use error::SsdError;
pub use files::{Catalog, FileSet, SetFile};
pub use format::entry::PAYLOAD_ALIGN_PAD;
pub use loc::{BlockLoc, BLOCK_BITS, OFFSET_BITS, PACKED_BITS};
pub use position::Position;
pub use recovery::{LiveTally, MarkUser, OtherUsers, Recovery, Route, SplitEntry};
pub use stats::{DefragStats, RebuildStats, SsdStats, UserSpace};
pub use store::{Entry, FreeSpace, SsdStore};
pub use strata_device::BlockDevice;
pub use user::StoreUser;
