//! Redis streams, as their commands see them: [`StreamId`] (`id.rs`:
//! identifiers and their spellings), [`Stream`] (`model.rs`: entries,
//! counters, consumer groups and pending entries), `codec.rs` (the stored
//! value), [`Trim`] (`trim.rs`: `MAXLEN`/`MINID`, exact or by nodes),
//! `delivery.rs` (what `XREADGROUP` hands a consumer), `claim.rs`
//! (acknowledging and claiming pending entries: `XACK`, `XCLAIM`,
//! `XAUTOCLAIM`) and [`RaxShape`] (`nodes.rs`: the radix tree `XINFO
//! STREAM` describes).
//!
//! A leaf. A stream is one record of kind `Stream` whose value is the
//! encoding of `codec.rs`; a command decodes it, changes it and writes it
//! back (`commands/stream/stored.rs`), so it rides every placement, the
//! command log, checkpoints and recovery as any record does. The price is
//! that each change rewrites the whole stream: right for the short,
//! trimmed streams of event logs and job queues, and bounded by the
//! largest item the keyspace stores.

mod claim;
mod codec;
mod delivery;
mod id;
mod model;
mod nodes;
mod trim;

pub use claim::{elapsed, AutoClaim, AutoClaimed, Claim, Claimed};
pub use codec::{decode, encode};
pub use delivery::HistoryItem;
pub use id::{Spelled, StreamId};
pub use model::{Consumer, Entry, Group, Pending, Stream, NODE_ENTRIES};
pub use nodes::RaxShape;
pub use trim::{Strategy, Trim, DEFAULT_LIMIT};
