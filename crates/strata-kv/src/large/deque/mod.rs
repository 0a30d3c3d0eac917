//! [`Deque`]: a large list as a deque of chunks.
//!
//! The chunks are a [`Ring`](crate::chunk::Ring) of consecutive numbers `first, first + 1, ..`
//! (modulo [`RING`](crate::chunk::RING), held in the head's flags word so the engine drops
//! them without reading the head): a push at the front takes number
//! `first - 1`, one at the back `first + count`, so nothing is renumbered.
//! Each chunk is a packed run (`crate::collection`) of elements in order,
//! never empty; a push opens a new end chunk when the end one would pass
//! [`TARGET_CHUNK`](crate::large::TARGET_CHUNK) bytes, a pop that empties an end chunk drops it. The
//! head's value ([`ListMeta`]) holds the ring, the element count and the
//! packed bytes: 26 bytes whatever the list's length.
//!
//! A command reads the chunks it needs (finding an index walks chunk
//! counts from the nearer end), keeps them while it runs (in their stored
//! form for pushes and pops, decoded for edits inside: `chunk`), and
//! writes the changed ones and the head at [`finish`](Deque::finish): a
//! push or pop writes one chunk and the head, in DRAM both in place (the
//! head is as long whatever the list holds, chunks are stored padded to
//! one length: `chunk::PADDED_LEN`).
//!
//! A push or pop at an end through [`push_end`](Deque::push_end) and
//! [`pop_end`](Deque::pop_end) edits the end chunk where it is stored
//! instead, where records are rewritten in place (`at_end`).
//!
//! Layout: `meta` (the head's value), `chunk` (one loaded chunk, also
//! what a packed list is edited as; `chunk/stored` edits a stored one, or
//! a packed list where its record is), `read` (index, range, scan),
//! `write` (push, pop, set, insert, remove, drop), `at_end` (pushes and
//! pops made where the end chunk is stored); this file holds the open
//! list, its chunk cache and `finish`.

mod at_end;
mod chunk;
mod meta;
mod read;
mod write;

use std::collections::HashMap;

use crate::item::ValueKind;
use crate::shard::large::LargeEdit;
use crate::shard::large_read::{ChunkSource, Current};
use crate::KvError;

pub use chunk::{stored, Chunk, Side};
pub use meta::is_list_head;
use meta::ListMeta;

fn damaged(what: &str) -> KvError {
    KvError::Storage {
        cause: format!("a large list's {what}"),
    }
}

/// A large list being read (`E`: a [`LargeRead`](crate::LargeRead)) or
/// changed (a [`LargeEdit`]).
pub struct Deque<'a, E> {
    edit: &'a mut E,
    meta: ListMeta,
    expires_at: Option<u64>,
    /// Loaded chunks by number.
    chunks: HashMap<u32, Chunk>,
    head_dirty: bool,
}

impl<'a, E: ChunkSource> Deque<'a, E> {
    /// The large list at the key; `Ok(None)` when the key holds anything
    /// else.
    pub fn open(edit: &'a mut E) -> Result<Option<Self>, KvError> {
        match edit.current()? {
            Some(current) => Self::open_current(edit, &current),
            None => Ok(None),
        }
    }

    /// [`open`](Self::open) for a caller that has read what the key holds
    /// (`current`, from `edit` with nothing written since).
    pub fn open_current(edit: &'a mut E, current: &Current) -> Result<Option<Self>, KvError> {
        if current.kind != ValueKind::List || current.chunks.is_none() {
            return Ok(None);
        }
        let meta = ListMeta::decode(&current.value).ok_or_else(|| damaged("head"))?;
        Ok(Some(Self {
            edit,
            meta,
            expires_at: current.expires_at,
            chunks: HashMap::new(),
            head_dirty: false,
        }))
    }

    /// A new, empty large list (written at [`finish`](Deque::finish)).
    pub fn create(edit: &'a mut E, expires_at: Option<u64>) -> Self {
        Self {
            edit,
            meta: ListMeta::default(),
            expires_at,
            chunks: HashMap::new(),
            head_dirty: true,
        }
    }

    /// Elements held.
    pub fn len(&self) -> u64 {
        self.meta.count
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.meta.count == 0
    }

    /// Packed bytes of the elements (each one's length prefix and bytes,
    /// as [`crate::collection::encoded_len`] counts them, less the count).
    pub fn bytes(&self) -> u64 {
        self.meta.bytes
    }

    /// The key's expiry.
    pub fn expires_at(&self) -> Option<u64> {
        self.expires_at
    }

    /// The view the deque was opened on, for the caller to write something
    /// else at the key instead (nothing the deque changed is written).
    pub fn into_edit(self) -> &'a mut E {
        self.edit
    }

    /// Chunks in use.
    pub fn chunk_count(&self) -> u32 {
        self.meta.ring.count
    }

    fn load(&mut self, pos: u32) -> Result<&mut Chunk, KvError> {
        use std::collections::hash_map::Entry;
        let number = self.meta.ring.number(pos);
        match self.chunks.entry(number) {
            Entry::Occupied(loaded) => Ok(loaded.into_mut()),
            Entry::Vacant(slot) => {
                let value = self
                    .edit
                    .chunk(number)?
                    .ok_or_else(|| damaged("chunk is missing"))?;
                let chunk = Chunk::from_stored(value).ok_or_else(|| damaged("chunk is damaged"))?;
                Ok(slot.insert(chunk))
            }
        }
    }

    /// The chunk position and the offset in it of element `i` (< len),
    /// walking chunk counts from the nearer end.
    fn locate(&mut self, i: u64) -> Result<(u32, usize), KvError> {
        let chunks = self.meta.ring.count;
        if i < self.meta.count / 2 {
            let mut rest = i;
            for pos in 0..chunks {
                let len = self.load(pos)?.len() as u64;
                if rest < len {
                    return Ok((pos, rest as usize));
                }
                rest -= len;
            }
        } else {
            let mut rest = self.meta.count - 1 - i;
            for pos in (0..chunks).rev() {
                let len = self.load(pos)?.len() as u64;
                if rest < len {
                    return Ok((pos, (len - 1 - rest) as usize));
                }
                rest -= len;
            }
        }
        Err(damaged("chunk counts disagree with its head"))
    }
}

impl Deque<'_, LargeEdit<'_>> {
    /// Writes the changed chunks and the head; deletes the key (and its
    /// chunks) when the list became empty.
    pub fn finish(self) -> Result<(), KvError> {
        if self.meta.count == 0 {
            if self.head_dirty && self.edit.current()?.is_some() {
                self.edit.delete()?;
            }
            return Ok(());
        }
        let ring = self.meta.ring;
        let mut changed: Vec<(u32, Chunk)> = self
            .chunks
            .into_iter()
            .filter(|(n, c)| c.dirty && ring.holds(*n))
            .collect();
        changed.sort_unstable_by_key(|(n, _)| *n);
        for (n, chunk) in &mut changed {
            let value = chunk.value();
            self.edit
                .put_padded_chunk(*n, ValueKind::List, value, chunk::PADDED_LEN)?;
        }
        if self.head_dirty {
            self.edit
                .put_ring_head(ValueKind::List, ring, &self.meta.encode(), self.expires_at)?;
        }
        Ok(())
    }
}
