//! The kinds of entry the keyspace appends to the SSD store (the kind
//! byte each entry carries) and what a flush marker holds. A leaf: the
//! tier, the rebuild scan and the defragmenter all read them.

/// An entry holding a whole record.
pub(crate) const KIND_PUT: u8 = 1;
/// An entry holding a deleted key.
pub(crate) const KIND_TOMBSTONE: u8 = 2;
/// An entry holding a deleted chunk of a large collection.
pub(crate) const KIND_CHUNK_TOMBSTONE: u8 = 4;
/// An entry marking a flush of the whole keyspace.
pub(crate) const KIND_FLUSH: u8 = 3;
/// Payload bytes of a flush marker (a sequence number, for debugging).
pub(crate) const FLUSH_PAYLOAD_LEN: usize = 8;

/// The entry kind of a tombstone of a key in `ns`.
pub(crate) fn tombstone_kind(ns: crate::chunk::Namespace) -> u8 {
    match ns {
        crate::chunk::Namespace::User => KIND_TOMBSTONE,
        crate::chunk::Namespace::Chunk => KIND_CHUNK_TOMBSTONE,
    }
}
