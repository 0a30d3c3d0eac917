//! The per-class reports of `stats`: `stats items`, `stats slabs` and
//! `stats cachedump <class> <limit>`, in memcached's shape over Strata's
//! own size classes (`strata_kv::size_class`: an item's record size,
//! bucketed by powers of 1.25 from 32 bytes, ids 1 to 63).
//!
//! Strata has no slabs, so what memcached counts per slab is found by a
//! census: a walk over the items (`Keyspace::walk_items`, a step of 1024
//! items per shard lock hold, no value read from the SSD), bounded at
//! [`CENSUS_BOUND`] items. Past the bound, the classes' `number` and byte
//! counts are scaled by items / items walked (the walk visits shards and
//! hash positions in order, so what it has seen is a uniform sample of the
//! keys) and `age` is the oldest in the sample. Fields:
//!
//! - `stats items`, per class holding items: `number`, `age` (seconds since
//!   the least recently accessed item's last access, as memcached's LRU tail
//!   age), `mem_requested` (record bytes), and the engine's per-class
//!   counters since start: `evicted`, `evicted_time`, `evicted_unfetched`,
//!   `reclaimed` (expired items reclaimed), `expired_unfetched`. Fields of
//!   memcached's segmented LRU (`number_hot`, `moves_to_cold`, ...) and
//!   counters Strata does not keep per class (`outofmemory`,
//!   `evicted_nonzero`) are left out.
//! - `stats slabs`, per class: `chunk_size` (the class's largest record),
//!   `chunks_per_page` (records of that size in a 1 MiB page, memcached's
//!   page and Strata's segment size), `total_pages` (1 MiB pages the
//!   class's records fill, rounded up), `total_chunks` = `used_chunks` (the
//!   items: records are packed, no chunk is reserved), `free_chunks` and
//!   `free_chunks_end` 0 (none exist); then `active_slabs` and
//!   `total_malloced` (the keyspace's used memory). Per-class command
//!   counters (`get_hits`, `cmd_set`, ...) are not kept and left out.
//! - `stats cachedump <class> <limit>`: `ITEM <key> [<value bytes> b;
//!   <expiry, Unix seconds, 0 for none> s]` lines for items of the class,
//!   then `END`; at most `limit` items (0: no limit), at most 2 MB of
//!   output (memcached's cap), and from a walk of at most [`CENSUS_BOUND`]
//!   items. Order is the walk's (hash order), not memcached's LRU order;
//!   keys that are not printable are skipped, as memcached skips binary
//!   keys.

use bytes::{BufMut, BytesMut};
use strata_kv::size_class::{chunk_size, class_of, CLASSES};
use strata_kv::ItemInfo;

use crate::shared::Shared;

/// Items a census or a dump walks at most.
pub const CENSUS_BOUND: u64 = 1_000_000;
/// Items per walk step (per shard lock hold).
const STEP: usize = 1024;
/// memcached's cap on a `stats cachedump` reply.
const DUMP_CAP: usize = 2 * 1024 * 1024;
/// memcached's slab page (Strata's segment) size.
const PAGE: u64 = 1 << 20;

#[derive(Debug, Clone, Copy, Default)]
struct ClassCount {
    number: u64,
    bytes: u64,
    age: u64,
}

/// Items per class, from a bounded walk.
struct Census {
    classes: [ClassCount; CLASSES],
}

/// Walks at most `bound` items, calling `visit` with each; true when the
/// walk covered every item.
fn walk(shared: &Shared, bound: u64, visit: &mut dyn FnMut(&ItemInfo<'_>) -> bool) -> bool {
    let mut cursor = 0;
    let mut seen = 0u64;
    let mut go_on = true;
    loop {
        cursor = shared.keyspace.walk_items(cursor, STEP, &mut |info| {
            if go_on {
                seen += 1;
                go_on = visit(&info);
            }
        });
        if cursor == 0 {
            return true;
        }
        if !go_on || seen >= bound {
            return false;
        }
    }
}

impl Census {
    fn take(shared: &Shared) -> Census {
        let mut classes = [ClassCount::default(); CLASSES];
        let mut seen = 0u64;
        let whole = walk(shared, CENSUS_BOUND, &mut |info| {
            let class = &mut classes[class_of(info.size)];
            class.number += 1;
            class.bytes += info.size as u64;
            class.age = class.age.max(info.access.idle_secs);
            seen += 1;
            true
        });
        let items = shared.keyspace.stats().items;
        if !whole && seen > 0 && items > seen {
            for class in &mut classes {
                class.number = scale(class.number, items, seen);
                class.bytes = scale(class.bytes, items, seen);
            }
        }
        Census { classes }
    }

    fn present(&self) -> impl Iterator<Item = (usize, &ClassCount)> + '_ {
        self.classes
            .iter()
            .enumerate()
            .filter(|(_, c)| c.number > 0)
    }
}

fn scale(n: u64, total: u64, seen: u64) -> u64 {
    (u128::from(n) * u128::from(total) / u128::from(seen)) as u64
}

fn stat(out: &mut BytesMut, name: &str, value: u64) {
    out.put_slice(b"STAT ");
    out.put_slice(name.as_bytes());
    out.put_u8(b' ');
    out.put_slice(itoa::Buffer::new().format(value).as_bytes());
    out.put_slice(b"\r\n");
}

/// `stats items` (without the final `END`).
pub fn items(shared: &Shared, out: &mut BytesMut) {
    let census = Census::take(shared);
    for (class, count) in census.present() {
        let removed = shared.keyspace.class_removals(class);
        let mut field = |name: &str, value: u64| {
            stat(out, &format!("items:{class}:{name}"), value);
        };
        field("number", count.number);
        field("age", count.age);
        field("mem_requested", count.bytes);
        field("evicted", removed.evicted);
        field("evicted_time", removed.evicted_time);
        field("reclaimed", removed.reclaimed);
        field("expired_unfetched", removed.expired_unfetched);
        field("evicted_unfetched", removed.evicted_unfetched);
    }
}

/// `stats slabs` (without the final `END`).
pub fn slabs(shared: &Shared, out: &mut BytesMut) {
    let census = Census::take(shared);
    let mut active = 0;
    for (class, count) in census.present() {
        active += 1;
        let size = chunk_size(class);
        let mut field = |name: &str, value: u64| {
            stat(out, &format!("{class}:{name}"), value);
        };
        field("chunk_size", size);
        field("chunks_per_page", (PAGE / size).max(1));
        field("total_pages", count.bytes.div_ceil(PAGE));
        field("total_chunks", count.number);
        field("used_chunks", count.number);
        field("free_chunks", 0);
        field("free_chunks_end", 0);
    }
    stat(out, "active_slabs", active);
    stat(out, "total_malloced", shared.keyspace.stats().used_memory);
}

/// `stats cachedump <class> <limit>`, `END` included.
pub fn cachedump(shared: &Shared, class: u32, limit: u32, out: &mut BytesMut) {
    let class = class as usize;
    let mut shown = 0u32;
    let mut written = 0usize;
    let mut line = Vec::with_capacity(300);
    walk(shared, CENSUS_BOUND, &mut |info| {
        if class_of(info.size) != class || !info.key.iter().all(u8::is_ascii_graphic) {
            return true;
        }
        line.clear();
        line.extend_from_slice(b"ITEM ");
        line.extend_from_slice(info.key);
        line.extend_from_slice(b" [");
        line.extend_from_slice(itoa::Buffer::new().format(info.value_len).as_bytes());
        line.extend_from_slice(b" b; ");
        let expiry = info.expires_at.map_or(0, |ms| ms / 1000);
        line.extend_from_slice(itoa::Buffer::new().format(expiry).as_bytes());
        line.extend_from_slice(b" s]\r\n");
        // memcached keeps room for END within its 2 MB.
        if written + line.len() + 6 > DUMP_CAP {
            return false;
        }
        out.put_slice(&line);
        written += line.len();
        shown += 1;
        limit == 0 || shown < limit
    });
    out.put_slice(b"END\r\n");
}

/// `expired_unfetched` and `evicted_unfetched` of the general `stats`:
/// the per-class counters summed.
pub fn unfetched_totals(shared: &Shared) -> (u64, u64) {
    (1..CLASSES)
        .map(|c| shared.keyspace.class_removals(c))
        .fold((0, 0), |(exp, ev), r| {
            (exp + r.expired_unfetched, ev + r.evicted_unfetched)
        })
}
