//! The stored layout every form of a chunk shares: which end, how long a
//! padded chunk is, what an element adds, how one is read. Both the
//! loaded [`Chunk`](super::Chunk) and the in-place edits of
//! [`stored`](super::stored) build on it, so neither imports the other.

use crate::arena::get_varint;
use crate::collection;
use crate::large::hashed::TARGET_CHUNK;

/// Which end of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The head (LEFT, index 0).
    Front,
    /// The tail (RIGHT).
    Back,
}

/// The length a chunk is stored padded to where records are rewritten in
/// place (DRAM): the most a chunk under [`TARGET_CHUNK`] takes (its packed
/// elements and a count of at most 2,048, two varint bytes). Every version
/// of an end chunk then has the same length, so a push or pop overwrites
/// its record instead of appending one (and leaving the old one as
/// garbage), as a quicklist node grows in its allocation. A chunk holding
/// one element longer than that is stored as is.
pub(crate) const PADDED_LEN: usize = TARGET_CHUNK as usize + 2;

/// Packed bytes an element adds to a chunk.
pub(crate) fn packed(e: &[u8]) -> u64 {
    collection::encoded_len([e]) as u64 - 1
}

/// Reads one packed element at `pos`, moving `pos` past it.
pub(super) fn next_element<'a>(data: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    let len = usize::try_from(get_varint(data, pos)?).ok()?;
    let end = pos.checked_add(len)?;
    let element = data.get(*pos..end)?;
    *pos = end;
    Some(element)
}
