//! Writing entries and identifiers in replies: an entry is
//! `[id, [field, value, ...]]`, an identifier a bulk `<ms>-<seq>`.

use crate::stream::{Entry, StreamId};
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
