//! Removing nodes from the ends of a [`Body`]: trims (`MAXLEN`, `MINID`,
//! exact or whole nodes only, as Redis's `streamTrim`) and end nodes an
//! `XDEL` emptied. Dropping a front node moves the ring's first number, so
//! the chunks left behind are dropped when the head is written.

use super::body::Body;
use super::id::StreamId;
use super::node::NODE_ENTRIES;
use super::trim::{Strategy, Trim};
use crate::reply::RespError;

impl Body<'_> {
    /// Drops empty nodes at both ends. An emptied last node is freed as
    /// Redis frees it, and the next entry then opens a node of its own.
    pub(super) fn drop_empty_ends(&mut self) -> Result<(), RespError> {
        while self.ring.count > 0 && self.node(self.ring.count - 1)?.is_empty() {
            self.drop_back();
            self.tail_used = NODE_ENTRIES;
        }
        while self.ring.count > 0 && self.node(0)?.is_empty() {
            self.drop_front();
        }
        Ok(())
    }

    pub(super) fn drop_front(&mut self) {
        let number = self.ring.number(0);
        self.nodes.remove(&number);
        self.ring.first = self.ring.number(1);
        self.ring.count -= 1;
        self.front_hint = None;
    }

    pub(super) fn drop_back(&mut self) {
        let number = self.ring.number(self.ring.count - 1);
        self.nodes.remove(&number);
        self.ring.count -= 1;
    }

    pub(super) fn refresh_first(&mut self) -> Result<(), RespError> {
        let first = self.range(StreamId::MIN, StreamId::MAX, 1, false)?;
        self.first_id = first.first().map_or(StreamId::MIN, |e| e.id);
        Ok(())
    }

    /// Trims from the front as `trim` asks (Redis's `streamTrim`): whole
    /// nodes while they may go, then, unless approximate, part of the
    /// next; returns how many entries went.
    pub fn trim(&mut self, trim: &Trim) -> Result<u64, RespError> {
        let mut removed = 0u64;
        while self.ring.count > 0 {
            if let Strategy::MaxLen(max) = trim.strategy {
                if self.len <= max {
                    break;
                }
            }
            let node_len = u64::from(self.front_len()?);
            if trim.limit != 0 && removed + node_len > trim.limit {
                break;
            }
            let whole = match trim.strategy {
                Strategy::MaxLen(max) => self.len.saturating_sub(node_len) >= max,
                Strategy::MinId(min) => self.node(0)?.last_id().is_none_or(|last| last < min),
            };
            if whole {
                self.drop_front();
                self.len = self.len.saturating_sub(node_len);
                removed += node_len;
                continue;
            }
            if trim.approx {
                break;
            }
            let len = self.len;
            let n = self.node(0)?;
            let entries = n.entries_mut();
            let cut = match trim.strategy {
                Strategy::MaxLen(max) => {
                    usize::try_from(len.saturating_sub(max)).unwrap_or(usize::MAX)
                }
                Strategy::MinId(min) => entries.partition_point(|e| e.id < min),
            };
            let cut = cut.min(entries.len());
            entries.drain(..cut);
            n.edited();
            self.len = self.len.saturating_sub(cut as u64);
            removed += cut as u64;
            break;
        }
        if removed > 0 {
            self.refresh_first()?;
            if self.len == 0 {
                self.tail_used = 0;
            }
        }
        Ok(removed)
    }
}
