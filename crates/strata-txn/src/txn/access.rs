//! The access set: one [`Access`] per record a transaction touched, and
//! its buffered writes ([`Write`]).

use std::collections::HashMap;
use std::ops::Range;

use crate::storage::hasher::BuildKeyHasher;
use crate::storage::RecPtr;

/// What an access holds of the record's lock (its meaning is the
/// algorithm's: NO_WAIT's lock word, Silo's lock bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Nothing.
    None,
    /// A shared lock.
    Shared,
    /// The exclusive lock.
    Exclusive,
}

/// One record touched by a transaction.
#[derive(Debug, Clone)]
pub struct Access {
    pub(crate) rec: RecPtr,
    /// The TID word first seen (only `ABSENT` kept), if `read`.
    pub(crate) observed: u64,
    pub(crate) read: bool,
    pub(crate) held: Held,
    /// Index of the buffered write, if any.
    pub(crate) write: Option<u32>,
}

/// What a buffered write does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteKind {
    /// A new row (the record was absent).
    Insert,
    /// Changed columns of a present row.
    Update,
    /// Removes the row.
    Delete,
    /// A partition word's new version (no row).
    Bump,
}

/// A buffered write.
#[derive(Debug, Clone)]
pub(crate) struct Write {
    pub access: u32,
    pub kind: WriteKind,
    /// The full row after the write, in the transaction's arena (for a
    /// delete: the row as it was, to find its index entries).
    pub data: Range<usize>,
    /// Columns written (all for an insert).
    pub mask: u64,
    /// The insert added its ordered-index entries (removed on abort).
    pub indexed: bool,
}

/// The access set and the write buffer, reused across transactions.
#[derive(Default)]
pub(crate) struct AccessSet {
    pub accesses: Vec<Access>,
    pub writes: Vec<Write>,
    pub arena: Vec<u8>,
    map: HashMap<usize, u32, BuildKeyHasher>,
}

impl AccessSet {
    pub fn clear(&mut self) {
        self.accesses.clear();
        self.writes.clear();
        self.arena.clear();
        self.map.clear();
    }

    /// The access of `rec`, if the transaction touched it.
    #[inline]
    pub fn find(&self, rec: RecPtr) -> Option<u32> {
        if self.accesses.len() <= 8 {
            return self
                .accesses
                .iter()
                .position(|a| a.rec == rec)
                .map(|i| i as u32);
        }
        self.map.get(&rec.addr()).copied()
    }

    /// The access of `rec`, created if new.
    #[inline]
    pub fn get_or_add(&mut self, rec: RecPtr) -> u32 {
        if let Some(i) = self.find(rec) {
            return i;
        }
        self.add(rec, Held::None)
    }

    /// Adds an access (the caller knows `rec` is new to the set).
    pub fn add(&mut self, rec: RecPtr, held: Held) -> u32 {
        let i = self.accesses.len() as u32;
        self.accesses.push(Access {
            rec,
            observed: 0,
            read: false,
            held,
            write: None,
        });
        if self.accesses.len() == 9 {
            for (j, a) in self.accesses.iter().enumerate() {
                self.map.insert(a.rec.addr(), j as u32);
            }
        } else if self.accesses.len() > 9 {
            self.map.insert(rec.addr(), i);
        }
        i
    }

    /// Copies `bytes` into the arena.
    pub fn stash(&mut self, bytes: &[u8]) -> Range<usize> {
        let start = self.arena.len();
        self.arena.extend_from_slice(bytes);
        start..self.arena.len()
    }

    /// Adds a buffered write for access `access`.
    pub fn add_write(
        &mut self,
        access: u32,
        kind: WriteKind,
        data: Range<usize>,
        mask: u64,
    ) -> u32 {
        let w = self.writes.len() as u32;
        self.writes.push(Write {
            access,
            kind,
            data,
            mask,
            indexed: false,
        });
        self.accesses[access as usize].write = Some(w);
        w
    }
}
