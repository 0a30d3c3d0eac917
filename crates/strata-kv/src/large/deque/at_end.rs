//! A push or pop at an end of a large list being changed, made where the
//! end chunk is stored when it can be (values in DRAM, the chunk not
//! loaded by this command, room in its padding, not its last element):
//! one lookup of the chunk, only the element and the bytes after it
//! moved, and the head rewritten in place. Otherwise (a new or emptied
//! end chunk, values on persistent memory or the SSD tier)
//! [`Deque::push`] and [`Deque::pop`], written at `finish`.
//!
//! Invariant: the stored list is whole after each edit made here (its
//! chunk and its head are both written at once), so a command that fails
//! later leaves no head that disagrees with its chunks; hence an edit here
//! is tried only while nothing else this command changed waits for
//! `finish` (the head is clean).

use super::chunk::{packed, stored};
use super::{Deque, Side};
use crate::item::ValueKind;
use crate::shard::large::LargeEdit;
use crate::KvError;

impl Deque<'_, LargeEdit<'_>> {
    /// Adds `element` at `side` (as [`push`](Deque::push)).
    pub fn push_end(&mut self, side: Side, element: &[u8]) -> Result<(), KvError> {
        if let Some(number) = self.stored_end(side) {
            let edit = |value: &mut [u8]| stored::push(value, side, element).map(|end| (end, ()));
            if self.edit.edit_chunk(number, edit)?.is_some() {
                self.meta.count += 1;
                self.meta.bytes += packed(element);
                return self.write_head();
            }
        }
        self.push(side, element)
    }

    /// Removes the element at `side` (as [`pop`](Deque::pop)); `None`
    /// when empty.
    pub fn pop_end(&mut self, side: Side) -> Result<Option<Vec<u8>>, KvError> {
        if self.meta.count > 1 {
            if let Some(number) = self.stored_end(side) {
                let edit = |value: &mut [u8]| stored::pop(value, side).map(|(e, end)| (end, e));
                if let Some(element) = self.edit.edit_chunk(number, edit)? {
                    self.meta.count -= 1;
                    self.meta.bytes = self.meta.bytes.saturating_sub(packed(&element));
                    self.write_head()?;
                    return Ok(Some(element));
                }
            }
        }
        self.pop(side)
    }

    /// The number of the end chunk at `side` when it may be edited where
    /// it is stored: the head is clean, values are in DRAM, and this
    /// command has not loaded the chunk.
    fn stored_end(&self, side: Side) -> Option<u32> {
        let ring = self.meta.ring;
        if self.head_dirty || ring.count == 0 || !self.edit.rewrites_in_place() {
            return None;
        }
        let pos = match side {
            Side::Front => 0,
            Side::Back => ring.count - 1,
        };
        let number = ring.number(pos);
        (!self.chunks.contains_key(&number)).then_some(number)
    }

    /// Writes the head now (in place where it was found).
    fn write_head(&mut self) -> Result<(), KvError> {
        let meta = self.meta.encode();
        self.edit
            .put_ring_head(ValueKind::List, self.meta.ring, &meta, self.expires_at)
    }
}
