//! Writing entries, identifiers and a group's counters in replies: an entry is
//! `[id, [field, value, ...]]`, an identifier a bulk `<ms>-<seq>`.

use crate::stream::{Entry, Group, Stream, StreamId};
use crate::writer::ReplyWriter;

/// An identifier as a bulk string.
pub fn id(out: &mut ReplyWriter<'_>, id: StreamId) {
    out.bulk(id.to_string().as_bytes());
}

/// One entry: its identifier and its fields and values.
pub fn entry(out: &mut ReplyWriter<'_>, e: &Entry) {
    out.array(2);
    id(out, e.id);
    out.array(e.fields.len());
    for f in &e.fields {
        out.bulk(f);
    }
}

/// Entries as an array.
pub fn entries<'e>(out: &mut ReplyWriter<'_>, list: impl ExactSizeIterator<Item = &'e Entry>) {
    out.array(list.len());
    for e in list {
        entry(out, e);
    }
}

/// A signed reply of an unsigned counter, as Redis casts it.
pub fn int(n: u64) -> i64 {
    n as i64
}

/// A group's `entries-read`: null when unknown.
pub fn entries_read(out: &mut ReplyWriter<'_>, g: &Group) {
    match g.entries_read {
        Some(n) => out.integer(int(n)),
        None => out.null(),
    }
}

/// A group's `lag`: null when it cannot be known.
pub fn lag(out: &mut ReplyWriter<'_>, s: &Stream<'_>, g: &Group) {
    match s.lag(g) {
        Some(n) => out.integer(n),
        None => out.null(),
    }
}
