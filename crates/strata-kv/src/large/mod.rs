//! Large encodings of collections over the engine's chunk records (see
//! [`crate::chunk`] and [`LargeEdit`](crate::LargeEdit)): `hashed.rs`
//! keeps hashes and sets in buckets by linear hashing; `meta.rs` is its
//! head value. Sorted sets (`sorted.rs`) add to those buckets an order
//! tree (`tree.rs`, nodes in `order.rs`). `deque/` keeps lists as a
//! ring of chunks.

pub mod deque;
pub mod hashed;
mod meta;
mod order;
pub mod sorted;
mod tree;

pub use deque::{is_list_head, Chunk, Deque, Side};
pub use hashed::{Hashed, Shape, TARGET_CHUNK};
pub use meta::is_head;
pub use order::{compare, Key, TARGET_NODE};
pub use sorted::Sorted;
