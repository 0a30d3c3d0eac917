//! Changing who holds a group's pending entries: acknowledging them
//! (`XACK`), removing a consumer with its entries (`XGROUP DELCONSUMER`),
//! and claiming them for another consumer (`XCLAIM`, `XAUTOCLAIM`), step
//! for step as Redis 7.2's `t_stream.c` does.
//!
//! Invariant kept: every pending entry names a consumer of its group (a
//! claim creates its consumer before it moves anything to it).

use super::body::Body;
use super::id::StreamId;
use super::model::{Group, Stream};
use super::pel::Pending;
use super::pending::GroupPel;
use crate::reply::RespError;

/// Milliseconds from `since` to `now` as Redis's signed `now - time`
/// (negative when the clock stepped back).
pub fn elapsed(now: u64, since: u64) -> i64 {
    let d = i128::from(now) - i128::from(since);
    i64::try_from(d).unwrap_or(if d < 0 { i64::MIN } else { i64::MAX })
}

/// Whether a pending entry delivered at `delivered` has been idle less
/// than `min_idle` (0: no minimum) at `now`.
fn too_recent(min_idle: i64, now: u64, delivered: u64) -> bool {
    min_idle > 0 && elapsed(now, delivered) < min_idle
}

/// Marks `consumer` (created if new) seen at `now`; whether that changed
/// the group.
fn see(g: &mut Group, consumer: &[u8], now: u64) -> bool {
    let (c, created) = g.consumer_or_create(consumer, now);
    let changed = created || c.seen_time != now;
    c.seen_time = now;
    changed
}

/// How `XCLAIM` claims: its minimum idle time and options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    /// Entries idle less than this stay where they are (0: any).
    pub min_idle: i64,
    /// The delivery time a claimed entry gets (`IDLE`/`TIME`, else now).
    pub delivery_time: u64,
    /// `RETRYCOUNT`: the delivery count a claimed entry gets.
    pub retry_count: Option<u64>,
    /// `FORCE`: entries of the stream not pending are claimed too.
    pub force: bool,
    /// `JUSTID`: the delivery count is not moved on.
    pub just_id: bool,
    /// `LASTID`: the group's last delivered identifier moves up to it.
    pub last_id: StreamId,
}

/// How `XAUTOCLAIM` scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoClaim {
    /// The first pending identifier to look at.
    pub start: StreamId,
    /// At most this many claimed or removed, `count * 10` looked at.
    pub count: u64,
    /// Entries idle less than this stay where they are (0: any).
    pub min_idle: i64,
    /// `JUSTID`: the delivery count is not moved on.
    pub just_id: bool,
}

/// What an `XCLAIM` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// Claimed identifiers, in the order asked (repeats included).
    pub ids: Vec<StreamId>,
    /// Whether the group changed (the consumer created or seen anew
    /// included).
    pub changed: bool,
}

/// What an `XAUTOCLAIM` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoClaimed {
    /// Where the next call starts (`0-0`: the scan reached the end).
    pub next: StreamId,
    /// Claimed identifiers, in order.
    pub claimed: Vec<StreamId>,
    /// Pending identifiers no longer in the stream, removed.
    pub deleted: Vec<StreamId>,
    /// Whether the group changed (the consumer created or seen anew
    /// included).
    pub changed: bool,
}

impl<'s> Stream<'s> {
    /// The group's pending entries, with the stream's entries beside them
    /// (the borrow both claims need).
    fn split_group(&mut self, group: &[u8]) -> Option<(&mut Body<'s>, GroupPel<'_, 's>)> {
        let at = self.groups.binary_search_by(|g| g.name[..].cmp(group));
        let g = self.groups.get_mut(at.ok()?)?;
        Some((&mut self.body, GroupPel::new(g, &mut self.pels)))
    }

    /// `XCLAIM`: gives `consumer` (created if new, seen `now`) each of
    /// `ids` in order (repeats included) that is pending and idle long
    /// enough, or with `FORCE` in the stream and not pending; a pending
    /// identifier no longer in the stream is removed instead. The claimed
    /// identifiers are each in the stream; `None` without the group.
    pub fn claim(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        ids: &[StreamId],
        how: &Claim,
        now: u64,
    ) -> Result<Option<Claimed>, RespError> {
        let Some((body, mut pel)) = self.split_group(group) else {
            return Ok(None);
        };
        let g = &mut *pel.group;
        let mut changed = how.last_id > g.last_id;
        if changed {
            g.last_id = how.last_id;
        }
        changed |= see(g, consumer, now);
        let owner = g.consumer_or_create(consumer, now).0.number;
        let mut claimed = Vec::new();
        for &id in ids {
            if !body.contains(id)? {
                changed |= pel.remove(id)?.is_some();
                continue;
            }
            // FORCE makes a fresh entry (delivered once, no idle check).
            let count = match pel.get(id)? {
                Some(p) if too_recent(how.min_idle, now, p.delivery_time) => continue,
                Some(p) => p.delivery_count,
                None if how.force => 1,
                None => continue,
            };
            let delivery_count = match how.retry_count {
                Some(n) => n,
                None if how.just_id => count,
                None => count.wrapping_add(1),
            };
            let pending = Pending {
                consumer: owner,
                delivery_time: how.delivery_time,
                delivery_count,
            };
            pel.insert(id, pending)?;
            claimed.push(id);
            pel.group.consumer_or_create(consumer, now).0.active_time = Some(now);
        }
        Ok(Some(Claimed {
            changed: changed || !claimed.is_empty(),
            ids: claimed,
        }))
    }

    /// `XAUTOCLAIM`: scans the group's pending entries from `how.start`,
    /// at most `how.count` claimed or removed and ten times that looked
    /// at, giving `consumer` (created if new, seen `now`) those idle long
    /// enough and removing those no longer in the stream. `None` without
    /// the group.
    pub fn auto_claim(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        how: &AutoClaim,
        now: u64,
    ) -> Result<Option<AutoClaimed>, RespError> {
        let AutoClaim {
            start,
            count,
            min_idle,
            just_id,
        } = *how;
        let Some((body, mut pel)) = self.split_group(group) else {
            return Ok(None);
        };
        let seen = see(pel.group, consumer, now);
        let owner = pel.group.consumer_or_create(consumer, now).0.number;
        let mut attempts = count.saturating_mul(10);
        let mut left = count;
        // The scan's position: the first identifier not looked at yet
        // (`None` once past the largest identifier).
        let mut from = Some(start);
        let mut done = AutoClaimed {
            next: StreamId::MIN,
            claimed: Vec::new(),
            deleted: Vec::new(),
            changed: false,
        };
        let mut active = false;
        while attempts > 0 && left > 0 {
            attempts -= 1;
            let Some(at) = from else { break };
            let Some((id, mut p)) = pel.first_from(at)? else {
                break;
            };
            from = id.next();
            if !body.contains(id)? {
                pel.remove(id)?;
                done.deleted.push(id);
                left -= 1;
                continue;
            }
            if too_recent(min_idle, now, p.delivery_time) {
                continue;
            }
            p.consumer = owner;
            p.delivery_time = now;
            if !just_id {
                p.delivery_count = p.delivery_count.wrapping_add(1);
            }
            pel.insert(id, p)?;
            done.claimed.push(id);
            left -= 1;
            active = true;
        }
        if active {
            pel.group.consumer_or_create(consumer, now).0.active_time = Some(now);
        }
        let next = match from {
            Some(at) => pel.first_from(at)?.map(|(id, _)| id),
            None => None,
        };
        done.next = next.unwrap_or(StreamId::MIN);
        done.changed = seen || active || !done.deleted.is_empty();
        Ok(Some(done))
    }
}

#[cfg(test)]
#[path = "claim_tests.rs"]
mod tests;
