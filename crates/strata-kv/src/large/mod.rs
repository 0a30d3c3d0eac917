//! Large encodings of collections over the engine's chunk records (see
//! [`crate::chunk`] and [`LargeEdit`](crate::LargeEdit)): `hashed.rs`
//! keeps hashes and sets in buckets by linear hashing (`meta.rs` is its
//! head value); `deque.rs` keeps lists as a ring of chunks.

pub mod deque;
pub mod hashed;
mod meta;

pub use deque::{is_list_head, Deque, Side};
pub use hashed::{Hashed, Shape, TARGET_CHUNK};
pub use meta::is_head;
