//! Redis streams, as their commands see them: [`StreamId`] (`id.rs`:
//! identifiers and their spellings), [`Stream`] (`model.rs`: entries,
//! counters, consumer groups and pending entries), `codec.rs` (the stored
//! value), [`Trim`] (`trim.rs`: `MAXLEN`/`MINID`, exact or by nodes) and
//! `delivery.rs` (what `XREADGROUP` hands a consumer).
//!
//! A leaf. A stream is one record of kind `Stream` whose value is the
//! encoding of `codec.rs`; a command decodes it, changes it and writes it
//! back (`commands/stream/stored.rs`), so it rides every placement, the
//! command log, checkpoints and recovery as any record does. The price is
//! that each change rewrites the whole stream: right for the short,
//! trimmed streams of event logs and job queues, and bounded by the
//! largest item the keyspace stores.

mod codec;
mod delivery;
mod id;
mod model;
mod trim;

pub use codec::{decode, encode};
pub use delivery::HistoryItem;
pub use id::{Spelled, StreamId};
pub use model::{Consumer, Entry, Group, Pending, Stream, NODE_ENTRIES};
pub use trim::{Strategy, Trim, DEFAULT_LIMIT};
