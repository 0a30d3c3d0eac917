//! Streams in a payload: [`write`] in `STREAM_LISTPACKS_2` (type 19,
//! Redis 7.0's), [`read`] from types 15 (Redis 5 and 6), 19 and 21
//! (Redis 7.2's, with consumers' active times). Entries are listpack nodes
//! under their master identifier (16 bytes, big-endian): a master entry
//! (live and deleted counts, the master fields, a 0), then per entry its
//! flags (1 deleted, 2 same fields as the master), its identifier as
//! differences from the master's, its values (same fields) or field count
//! and pairs, and its element count. Then the counters (length, last
//! identifier; since 19: first identifier, largest deleted, entries
//! added) and the consumer groups: name, last identifier, entries read
//! (since 19), the pending entries (raw identifier, delivery time as 8
//! little-endian bytes, delivery count), the consumers (name, seen time,
//! active time since 21, their pending identifiers).

use super::format::{kind, put_length, put_string, Id, StreamGroup, StreamValue};
use super::listpack::{self, Builder};
use super::read::Reader;

/// Entries per node written: Redis's default `stream-node-max-entries`.
const NODE_ENTRIES: usize = 100;
const FLAG_DELETED: i64 = 1;
const FLAG_SAME_FIELDS: i64 = 2;

fn raw_id(id: Id) -> [u8; 16] {
    let mut raw = [0u8; 16];
    raw[..8].copy_from_slice(&id.0.to_be_bytes());
    raw[8..].copy_from_slice(&id.1.to_be_bytes());
    raw
}

fn put_id(out: &mut Vec<u8>, id: Id) {
    put_length(out, id.0);
    put_length(out, id.1);
}

/// Appends `s` as a `STREAM_LISTPACKS_2` object (type byte included).
pub fn write(out: &mut Vec<u8>, s: &StreamValue) {
    out.push(kind::STREAM_LISTPACKS_2);
    put_length(out, s.entries.chunks(NODE_ENTRIES).len() as u64);
    for node in s.entries.chunks(NODE_ENTRIES) {
        let master = node[0].0;
        put_string(out, &raw_id(master));
        put_string(out, &node_listpack(node, master));
    }
    put_length(out, s.entries.len() as u64);
    put_id(out, s.last_id);
    put_id(out, s.entries.first().map_or((0, 0), |e| e.0));
    put_id(out, s.max_deleted);
    put_length(out, s.entries_added);
    put_length(out, s.groups.len() as u64);
    for g in &s.groups {
        put_string(out, &g.name);
        put_id(out, g.last_id);
        put_length(out, g.entries_read.unwrap_or(u64::MAX));
        put_length(out, g.pending.len() as u64);
        for &(id, _, time, count) in &g.pending {
            out.extend_from_slice(&raw_id(id));
            out.extend_from_slice(&time.to_le_bytes());
            put_length(out, count);
        }
        put_length(out, g.consumers.len() as u64);
        for (i, (name, seen, _)) in g.consumers.iter().enumerate() {
            put_string(out, name);
            out.extend_from_slice(&seen.to_le_bytes());
            let mine: Vec<Id> = g.pending.iter().filter(|p| p.1 == i).map(|p| p.0).collect();
            put_length(out, mine.len() as u64);
            for id in mine {
                out.extend_from_slice(&raw_id(id));
            }
        }
    }
}

/// One node's listpack: the first entry's fields are the master fields.
pub(super) fn node_listpack(node: &[(Id, Vec<Vec<u8>>)], master: Id) -> Vec<u8> {
    let master_fields: Vec<&[u8]> = node[0].1.iter().step_by(2).map(Vec::as_slice).collect();
    let n = master_fields.len() as i64;
    let mut lp = Builder::default();
    lp.int(node.len() as i64);
    lp.int(0);
    lp.int(n);
    for f in &master_fields {
        lp.string(f);
    }
    lp.int(0);
    for (id, fields) in node {
        let same = fields.len() == master_fields.len() * 2
            && fields
                .iter()
                .step_by(2)
                .zip(&master_fields)
                .all(|(a, b)| a == b);
        lp.int(if same { FLAG_SAME_FIELDS } else { 0 });
        lp.int(id.0.wrapping_sub(master.0) as i64);
        lp.int(id.1.wrapping_sub(master.1) as i64);
        if same {
            for v in fields.iter().skip(1).step_by(2) {
                lp.string(v);
            }
            lp.int(n + 3);
        } else {
            let own = (fields.len() / 2) as i64;
            lp.int(own);
            for e in fields {
                lp.string(e);
            }
            lp.int(own * 2 + 4);
        }
    }
    lp.finish()
}

/// A stream object of `rdb_type` (15, 19 or 21) after its type byte.
pub fn read(r: &mut Reader<'_>, rdb_type: u8) -> Option<StreamValue> {
    let mut s = StreamValue::default();
    let nodes = r.count(2)?;
    for _ in 0..nodes {
        let key = r.string()?;
        let master = id_of(&key)?;
        let lp = listpack::entries(&r.string()?)?;
        read_node(&lp, master, &mut s.entries)?;
    }
    let length = r.number()?;
    s.last_id = (r.number()?, r.number()?);
    if rdb_type == kind::STREAM_LISTPACKS {
        s.entries_added = length;
    } else {
        let _first = (r.number()?, r.number()?);
        s.max_deleted = (r.number()?, r.number()?);
        s.entries_added = r.number()?;
    }
    if length != s.entries.len() as u64 {
        return None;
    }
    let groups = r.count(3)?;
    for _ in 0..groups {
        s.groups.push(read_group(r, rdb_type)?);
    }
    Some(s)
}

fn read_group(r: &mut Reader<'_>, rdb_type: u8) -> Option<StreamGroup> {
    let mut g = StreamGroup {
        name: r.string()?.into_owned(),
        last_id: (r.number()?, r.number()?),
        ..StreamGroup::default()
    };
    if rdb_type != kind::STREAM_LISTPACKS {
        g.entries_read = Some(r.number()?).filter(|&n| n != u64::MAX);
    }
    let pending = r.count(25)?;
    for _ in 0..pending {
        let id = id_of(r.take(16)?)?;
        let time = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        // Owner unknown until the consumers are read.
        g.pending.push((id, usize::MAX, time, r.number()?));
    }
    if !g.pending.windows(2).all(|w| w[0].0 < w[1].0) {
        return None;
    }
    let consumers = r.count(10)?;
    for i in 0..consumers {
        let name = r.string()?.into_owned();
        let seen = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let active = match rdb_type {
            kind::STREAM_LISTPACKS_3 => {
                let t = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
                // -1: never active.
                (t != u64::MAX).then_some(t)
            }
            _ => Some(seen),
        };
        g.consumers.push((name, seen, active));
        let owned = r.count(16)?;
        for _ in 0..owned {
            let id = id_of(r.take(16)?)?;
            let at = g.pending.binary_search_by(|p| p.0.cmp(&id)).ok()?;
            if g.pending[at].1 != usize::MAX {
                return None;
            }
            g.pending[at].1 = i;
        }
    }
    g.pending.iter().all(|p| p.1 != usize::MAX).then_some(g)
}

fn id_of(raw: &[u8]) -> Option<Id> {
    if raw.len() != 16 {
        return None;
    }
    let ms = u64::from_be_bytes(raw[..8].try_into().ok()?);
    let seq = u64::from_be_bytes(raw[8..].try_into().ok()?);
    Some((ms, seq))
}

/// The live entries of one node's listpack `lp` under `master`.
fn read_node(lp: &[Vec<u8>], master: Id, out: &mut Vec<(Id, Vec<Vec<u8>>)>) -> Option<()> {
    let mut c = Elements { lp, at: 0 };
    let live = c.count()?;
    let deleted = c.count()?;
    let fields = c.count()?;
    let master_fields = c.take(fields)?;
    if c.int()? != 0 || live.checked_add(deleted)? == 0 {
        return None;
    }
    for _ in 0..live.checked_add(deleted)? {
        let flags = c.int()?;
        let id = (
            master.0.wrapping_add(c.int()? as u64),
            master.1.wrapping_add(c.int()? as u64),
        );
        let fields = if flags & FLAG_SAME_FIELDS != 0 {
            let values = c.take(master_fields.len())?;
            let pairs = master_fields.iter().zip(values);
            pairs.flat_map(|(f, v)| [f.clone(), v.clone()]).collect()
        } else {
            let n = c.count()?;
            c.take(n.checked_mul(2)?)?.to_vec()
        };
        c.int()?;
        if flags & FLAG_DELETED == 0 {
            out.push((id, fields));
        }
    }
    (c.at == lp.len()).then_some(())
}

/// A cursor over a node's elements.
struct Elements<'a> {
    lp: &'a [Vec<u8>],
    at: usize,
}

impl<'a> Elements<'a> {
    fn int(&mut self) -> Option<i64> {
        let e = self.lp.get(self.at)?;
        self.at += 1;
        std::str::from_utf8(e).ok()?.parse().ok()
    }

    /// A count, no larger than the elements left.
    fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.int()?).ok()?;
        (n <= self.lp.len() - self.at).then_some(n)
    }

    fn take(&mut self, n: usize) -> Option<&'a [Vec<u8>]> {
        let end = self.at.checked_add(n)?;
        let taken = self.lp.get(self.at..end)?;
        self.at = end;
        Some(taken)
    }
}
