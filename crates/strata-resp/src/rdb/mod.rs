//! Redis's RDB object format as `DUMP`/`RESTORE` and `FUNCTION DUMP`/
//! `FUNCTION RESTORE` carry it: a payload is one object (its type byte and
//! encoding; for functions, library opcodes), then the RDB version as 2
//! little-endian bytes, then a CRC-64 (Jones, Redis's) of everything
//! before it as 8 little-endian bytes. `format` holds the constants, the
//! [`Value`] and that footer ([`seal`] writes it, [`open`] checks it);
//! `read` holds the [`Reader`] of RDB lengths and
//! strings (raw, integer-encoded, LZF), `object` turns a `DUMP` payload's
//! body into a [`Value`] (every encoding Redis 7.0 to 7.4 writes for
//! strings, lists, sets, sorted sets, hashes and streams; `stream` holds
//! the streams' part), `listpack` and
//! `ziplist` decode the packed blobs inside (every offset checked), and
//! `write` encodes a [`Value`] in the plain encodings every Redis 7 loads,
//! and `file` puts values together into a whole RDB file ([`FileWriter`]).
//!
//! Input from the network: nothing here panics on any payload, allocates
//! from a length the remaining bytes cannot back, or recurses. A leaf
//! (but the reply table's [`DumpError`](crate::reply::DumpError)).

mod file;
mod format;
mod listpack;
mod object;
mod read;
mod stream;
mod write;
mod ziplist;

pub use file::FileWriter;
pub use format::{
    open, put_length, put_string, seal, Id, StreamGroup, StreamValue, Value, MAX_STRING,
    MAX_VERSION, VERSION,
};
pub use object::parse;
pub use read::Reader;
pub use write::dump;

#[cfg(test)]
mod tests;
