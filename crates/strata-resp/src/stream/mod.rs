//! Redis streams, as their commands see them: [`StreamId`] (`id.rs`:
//! identifiers and their spellings), [`Stream`] (`model.rs`: entries,
//! counters, consumer groups), [`GroupPel`] (`pending.rs`: a group's
//! pending entries, kept in the tree of `pel/`), `codec.rs` and
//! `groups.rs` (the stored value), [`Trim`] (`trim.rs`: `MAXLEN`/`MINID`, exact or by nodes),
//! `delivery.rs` (what `XREADGROUP` hands a consumer), `claim.rs`
//! (acknowledging and claiming pending entries: `XACK`, `XCLAIM`,
//! `XAUTOCLAIM`) and [`RaxShape`] (`nodes.rs`: the radix tree `XINFO
//! STREAM` describes).
//!
//! A leaf (over the engine's chunk reads). A stream's entries are nodes of
//! at most 100 entries, as Redis's listpack nodes (`node.rs`). A short
//! stream is one record holding every node (packed); past one node or
//! [`PACKED_MAX`] bytes it becomes a head record and one chunk record per
//! node (large, `body.rs`), so a change rewrites and logs the nodes it
//! touches and the head (counters and groups), not the stream: an `XADD`
//! one node, an `XDEL` one, a trim the nodes it cuts. The groups' pending
//! entries are chunks of the same stream after the entry nodes (`pel/`),
//! so an `XACK`, an `XREADGROUP` or a claim rewrites the leaves it
//! touches, not the pending list. The stored forms are `codec.rs`'s;
//! `commands/stream/stored.rs` reads and writes them.

/// Bytes past which a packed stream is stored large.
pub const PACKED_MAX: usize = 8 << 10;

mod body;
mod claim;
mod codec;
mod cut;
mod delivery;
mod groups;
mod held;
mod id;
mod model;
mod node;
mod nodes;
mod pel;
mod pending;
mod trim;

pub use body::{Body, NODE_PAD};
pub use claim::{elapsed, AutoClaim, AutoClaimed, Claim, Claimed};
pub use codec::{decode_head, decode_packed, encode_head, encode_packed, is_head};
pub use delivery::HistoryItem;
pub use id::{Spelled, StreamId};
pub use model::{Consumer, Group, Stream};
pub use node::{Entry, NODE_BYTES, NODE_ENTRIES};
pub use nodes::RaxShape;
pub use pel::Pending;
pub use pending::GroupPel;
pub use trim::{Strategy, Trim, DEFAULT_LIMIT};
