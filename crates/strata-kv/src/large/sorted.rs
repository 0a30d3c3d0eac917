//! [`Sorted`]: a large sorted set (Redis's skiplist encoding) as member
//! buckets plus an order tree.
//!
//! - Chunks `0..buckets` are [`Hashed`] buckets of (member, 8-byte score)
//!   pairs: `ZSCORE`, and the old score a change needs.
//! - Chunks `buckets..buckets + nodes` are the [`Tree`] of (score, member)
//!   keys with subtree counts: ranks, score and lexicographic ranges.
//!
//! The head's value is the buckets' state ([`Meta`], which starts
//! `00 C5`, so [`is_head`](super::is_head) holds) followed by the root's
//! chunk number and the node count (varints): about 30 bytes. A change of
//! one member rewrites its bucket, the tree path of its old and new key
//! and the head; nothing written grows with the set.

use super::meta::{push_varint, Meta};
use super::order::Key;
use super::tree::Tree;
use super::Hashed;
use crate::arena::get_varint;
use crate::collection;
use crate::item::ValueKind;
use crate::shard::large::LargeEdit;
use crate::shard::large_read::ChunkSource;
use crate::KvError;

/// A large sorted set being read (`E`: a [`LargeRead`](crate::LargeRead))
/// or changed (a [`LargeEdit`]).
pub struct Sorted<'a, E> {
    members: Hashed<'a, E>,
    tree: Tree,
    dirty: bool,
    /// Every member goes at [`finish`](Sorted::finish) ([`clear`](Sorted::clear)).
    cleared: bool,
}

fn damaged(what: &str) -> KvError {
    KvError::Storage {
        cause: format!("a large sorted set is damaged: {what}"),
    }
}

fn decode_head(value: &[u8], chunks: u32) -> Option<(Meta, Tree)> {
    let (meta, mut pos) = Meta::decode_prefix(value)?;
    let root = u32::try_from(get_varint(value, &mut pos)?).ok()?;
    let nodes = u32::try_from(get_varint(value, &mut pos)?).ok()?;
    let base = meta.buckets();
    let sane = pos == value.len()
        && nodes > 0
        && base.checked_add(nodes) == Some(chunks)
        && (base..chunks).contains(&root);
    sane.then(|| (meta, Tree::new(root, base, nodes)))
}

impl<'a, E: ChunkSource> Sorted<'a, E> {
    /// The large sorted set at the key; `Ok(None)` when the key holds
    /// anything else.
    pub fn open(src: &'a mut E) -> Result<Option<Self>, KvError> {
        let Some(current) = src.current()? else {
            return Ok(None);
        };
        let Some(chunks) = current.chunks else {
            return Ok(None);
        };
        if current.kind != ValueKind::SortedSet {
            return Ok(None);
        }
        let (meta, tree) =
            decode_head(&current.value, chunks).ok_or_else(|| damaged("the head"))?;
        let members = Hashed::with(src, ValueKind::SortedSet, meta, current.expires_at);
        Ok(Some(Self {
            members,
            tree,
            dirty: false,
            cleared: false,
        }))
    }

    /// Members held.
    pub fn len(&self) -> u64 {
        match self.cleared {
            true => 0,
            false => self.members.len(),
        }
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key's expiry.
    pub fn expires_at(&self) -> Option<u64> {
        self.members.expires_at()
    }

    /// A member's score; `None` when absent.
    pub fn score(&mut self, member: &[u8]) -> Result<Option<f64>, KvError> {
        match self.members.get(member)? {
            None => Ok(None),
            Some(bytes) => collection::score_of(&bytes)
                .map(Some)
                .ok_or_else(|| damaged("a score")),
        }
    }

    /// The rank (from the lowest) of `member` with score `score`.
    pub fn rank(&mut self, score: f64, member: &[u8]) -> Result<Option<u64>, KvError> {
        self.tree.rank(self.members.source(), (score, member))
    }

    /// How many members come before the first for which `before(score,
    /// member)` is false; `before` must hold for a prefix in order.
    pub fn count_before(&mut self, before: &dyn Fn(f64, &[u8]) -> bool) -> Result<u64, KvError> {
        self.tree.count_before(self.members.source(), before)
    }

    /// The members of ranks `start..end` with their scores, in order.
    pub fn range(&mut self, start: u64, end: u64) -> Result<Vec<Key>, KvError> {
        let end = end.min(self.len());
        self.tree.range(self.members.source(), start, end)
    }

    /// Member buckets: the cursor range of `ZSCAN`.
    pub fn buckets(&self) -> u32 {
        self.members.buckets()
    }

    /// Bucket `b`'s members and scores.
    pub fn bucket(&mut self, b: u32) -> Result<Vec<Key>, KvError> {
        let flat = self.members.bucket(b)?;
        flat.chunks_exact(2)
            .map(|p| {
                let score = collection::score_of(&p[1]).ok_or_else(|| damaged("a score"))?;
                Ok((score, p[0].clone()))
            })
            .collect()
    }
}

impl<'a, 's> Sorted<'a, LargeEdit<'s>> {
    /// A new, empty large sorted set at the edit's key (what it held is
    /// replaced at [`finish`](Self::finish)).
    pub fn create(edit: &'a mut LargeEdit<'s>, expires_at: Option<u64>) -> Self {
        let members = Hashed::create(edit, ValueKind::SortedSet, expires_at);
        let tree = Tree::empty(members.buckets());
        Self {
            members,
            tree,
            dirty: true,
            cleared: false,
        }
    }

    /// Sets `member`'s score (adding it when new); returns the old score.
    pub fn put(&mut self, member: &[u8], score: f64) -> Result<Option<f64>, KvError> {
        if score.is_nan() {
            return Err(damaged("a NaN score"));
        }
        let old = self.score(member)?;
        if old.map(f64::to_bits) == Some(score.to_bits()) {
            return Ok(old);
        }
        self.dirty = true;
        if let Some(o) = old {
            if !self.tree.remove(self.members.source(), (o, member))? {
                return Err(damaged("a member missing from the order"));
            }
        }
        self.tree
            .insert(self.members.source(), (score, member.to_vec()))?;
        self.members.put(member, &collection::score_bytes(score))?;
        // A bucket split takes the number of the first tree node.
        while self.tree.base < self.members.buckets() {
            self.tree.bucket_added(self.members.source())?;
        }
        Ok(old)
    }

    /// Removes `member`; returns its score if it was there.
    pub fn remove(&mut self, member: &[u8]) -> Result<Option<f64>, KvError> {
        let Some(old) = self.score(member)? else {
            return Ok(None);
        };
        self.dirty = true;
        if !self.tree.remove(self.members.source(), (old, member))? {
            return Err(damaged("a member missing from the order"));
        }
        self.members.remove(member)?;
        Ok(Some(old))
    }

    /// Removes every member: the key and its chunks are deleted at
    /// [`finish`](Self::finish), reading nothing more. The caller calls
    /// nothing else but `len` and `finish` after this.
    pub fn clear(&mut self) {
        self.cleared = true;
        self.dirty = true;
    }

    /// Writes the changed buckets, nodes and the head; deletes the key
    /// when the set became empty (with its chunks).
    pub fn finish(mut self) -> Result<(), KvError> {
        if !self.dirty {
            return Ok(());
        }
        if self.is_empty() {
            self.members.source_mut().delete()?;
            return Ok(());
        }
        self.members.write_buckets()?;
        self.tree.write(self.members.source_mut())?;
        let mut head = self.members.meta().encode();
        push_varint(&mut head, u64::from(self.tree.root));
        push_varint(&mut head, u64::from(self.tree.nodes));
        let chunks = self.tree.base + self.tree.nodes;
        let expires_at = self.members.expires_at();
        self.members
            .source_mut()
            .put_head(ValueKind::SortedSet, chunks, &head, expires_at)
    }
}
