//! [`Node`]: one node in hand, kept in its stored form (`node.rs`) until an
//! edit inside it needs its entries decoded: walks (ranges, lookups, the
//! binary search over nodes) read entries in place, and an append extends
//! the stored bytes and bumps the count, so `XADD` to a large stream copies
//! one entry, not its node.
//!
//! Invariant: `count`, `first` and `last` describe the entries, whichever
//! form holds them; `raw` is current while `decoded` is `None`.

use super::id::StreamId;
use super::node::{self, entry_len, Entry, Header, Reader, HEADER, MIN_ENTRY};

/// One entry read in place: its identifier, its field count and the
/// stored fields (each a u32 length and bytes).
#[derive(Debug, Clone, Copy)]
pub(super) struct EntryRef<'a> {
    pub(super) id: StreamId,
    fields: u32,
    stored: &'a [u8],
}

impl EntryRef<'_> {
    /// The entry, copied.
    pub(super) fn to_entry(self) -> Entry {
        let mut r = Reader(self.stored);
        // Walked when the node was taken in: these reads cannot fail.
        let fields = (0..self.fields)
            .filter_map(|_| r.bytes().map(<[u8]>::to_vec))
            .collect();
        Entry {
            id: self.id,
            fields,
        }
    }
}

/// A node in hand.
#[derive(Debug, Clone)]
pub(super) struct Node {
    raw: Vec<u8>,
    decoded: Option<Vec<Entry>>,
    count: u32,
    first: Option<StreamId>,
    last: Option<StreamId>,
    /// Changed since it was read (chunked bodies write only these).
    pub(super) dirty: bool,
}

/// Walks the stored entries after the header, yielding each in place;
/// `None` in the item when the bytes are damaged (the walk then ends).
fn walk(raw: &[u8]) -> impl Iterator<Item = Option<EntryRef<'_>>> {
    let mut r = Reader(raw.get(HEADER..).unwrap_or(&[]));
    std::iter::from_fn(move || {
        if r.0.is_empty() {
            return None;
        }
        let entry = (|| {
            let id = r.id()?;
            let fields = r.u32()?;
            let start = r.0;
            for _ in 0..fields {
                r.bytes()?;
            }
            let used = start.len() - r.0.len();
            Some(EntryRef {
                id,
                fields,
                stored: &start[..used],
            })
        })();
        if entry.is_none() {
            r.0 = &[];
        }
        Some(entry)
    })
}

impl Node {
    /// A node from its stored form, taken in from its header without
    /// walking the entries; `None` when the header does not fit the bytes
    /// (entries past them, more entries than they can hold, anything but
    /// the zeros a padded chunk ends in after them). Stored bytes come back
    /// as written (records are checksummed below): the entries are read
    /// with every length checked as they are walked, so a node damaged
    /// inside yields fewer entries, never a panic.
    pub(super) fn from_stored(mut raw: Vec<u8>) -> Option<Node> {
        let header = Header::read(&mut Reader(&raw))?;
        let used = HEADER.checked_add(usize::try_from(header.bytes).ok()?)?;
        let entries = raw.get(HEADER..used)?;
        let room = usize::try_from(header.count).ok()?.checked_mul(MIN_ENTRY)?;
        if room > entries.len() || (header.count == 0) != entries.is_empty() {
            return None;
        }
        // OR-folded: a loop the compiler vectorizes, over up to 4 KiB.
        if raw[used..].iter().fold(0u8, |acc, &b| acc | b) != 0 {
            return None;
        }
        let (first, last) = match header.count {
            0 => (None, None),
            _ => {
                let first = Reader(entries).id()?;
                if first > header.last {
                    return None;
                }
                (Some(first), Some(header.last))
            }
        };
        raw.truncate(used);
        Some(Node {
            raw,
            decoded: None,
            count: header.count,
            first,
            last,
            dirty: false,
        })
    }

    /// A new node holding `entry`.
    pub(super) fn with(entry: Entry) -> Node {
        let mut node = Node {
            raw: node::encode(&[]),
            decoded: None,
            count: 0,
            first: None,
            last: None,
            dirty: true,
        };
        node.push(entry);
        node
    }

    /// Entries held.
    pub(super) fn len(&self) -> usize {
        self.count as usize
    }

    /// True without entries.
    pub(super) fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The first entry's identifier.
    pub(super) fn first_id(&self) -> Option<StreamId> {
        self.first
    }

    /// The last entry's identifier.
    pub(super) fn last_id(&self) -> Option<StreamId> {
        self.last
    }

    /// Stored bytes (as written).
    pub(super) fn stored_len(&self) -> usize {
        match &self.decoded {
            None => self.raw.len(),
            Some(d) => HEADER + d.iter().map(entry_len).sum::<usize>(),
        }
    }

    /// Every entry in order, read in place (one small vector of views per
    /// walk; no entry is copied until a caller wants it).
    pub(super) fn views(&self) -> Vec<View<'_>> {
        match &self.decoded {
            None => walk(&self.raw)
                .take(self.len())
                .map_while(|e| e)
                .map(View::Stored)
                .collect(),
            Some(d) => d.iter().map(View::Decoded).collect(),
        }
    }

    /// The entries, decoded for an edit inside the node (the node is then
    /// marked changed and its counters kept by [`Node::edited`]).
    pub(super) fn entries_mut(&mut self) -> &mut Vec<Entry> {
        if self.decoded.is_none() {
            let entries: Vec<Entry> = walk(&self.raw)
                .take(self.len())
                .map_while(|e| e)
                .map(EntryRef::to_entry)
                .collect();
            self.decoded = Some(entries);
        }
        self.dirty = true;
        self.decoded.get_or_insert_with(Vec::new)
    }

    /// Refreshes the counters after an edit through [`Node::entries_mut`].
    pub(super) fn edited(&mut self) {
        if let Some(d) = &self.decoded {
            self.count = node::len32(d.len());
            self.first = d.first().map(|e| e.id);
            self.last = d.last().map(|e| e.id);
        }
    }

    /// Appends `entry` (above every entry held).
    pub(super) fn push(&mut self, entry: Entry) {
        self.first.get_or_insert(entry.id);
        self.last = Some(entry.id);
        self.count += 1;
        self.dirty = true;
        match &mut self.decoded {
            Some(d) => d.push(entry),
            None => {
                let last = entry.id;
                node::encode_entry(&mut self.raw, &entry);
                Header::write(&mut self.raw, self.count, last);
            }
        }
    }

    /// The stored form.
    pub(super) fn stored(&self) -> Vec<u8> {
        match &self.decoded {
            None => self.raw.clone(),
            Some(d) => node::encode(d),
        }
    }

    /// Appends the stored form to `w`.
    pub(super) fn store_into(&self, w: &mut Vec<u8>) {
        match &self.decoded {
            None => w.extend_from_slice(&self.raw),
            Some(d) => node::encode_into(w, d),
        }
    }
}

/// An entry of a node in hand, in whichever form the node holds it.
#[derive(Debug, Clone, Copy)]
pub(super) enum View<'a> {
    /// Read in place from the stored form.
    Stored(EntryRef<'a>),
    /// Decoded.
    Decoded(&'a Entry),
}

impl View<'_> {
    /// Its identifier.
    pub(super) fn id(&self) -> StreamId {
        match self {
            View::Stored(e) => e.id,
            View::Decoded(e) => e.id,
        }
    }

    /// The entry, copied.
    pub(super) fn to_entry(self) -> Entry {
        match self {
            View::Stored(e) => e.to_entry(),
            View::Decoded(e) => e.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(ms: u64, value: &str) -> Entry {
        Entry {
            id: StreamId::new(ms, 0),
            fields: vec![b"f".to_vec(), value.as_bytes().to_vec()],
        }
    }

    #[test]
    fn appends_stay_stored_and_read_back() {
        let mut n = Node::with(entry(1, "a"));
        n.push(entry(2, "bb"));
        n.push(entry(3, ""));
        assert!(n.decoded.is_none(), "appends keep the stored form");
        let back = Node::from_stored(n.stored()).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(
            (back.first_id(), back.last_id()),
            (n.first_id(), n.last_id())
        );
        let got: Vec<Entry> = back.views().into_iter().map(View::to_entry).collect();
        assert_eq!(got, [entry(1, "a"), entry(2, "bb"), entry(3, "")]);
        assert_eq!(back.stored_len(), n.stored().len());
    }

    #[test]
    fn an_edit_inside_decodes_and_keeps_the_counters() {
        let mut n = Node::with(entry(1, "a"));
        n.push(entry(2, "b"));
        n.push(entry(3, "c"));
        n.entries_mut().remove(0);
        n.edited();
        assert_eq!((n.len(), n.first_id()), (2, Some(StreamId::new(2, 0))));
        n.push(entry(4, "d"));
        let back = Node::from_stored(n.stored()).unwrap();
        let ids: Vec<StreamId> = back.views().iter().map(View::id).collect();
        assert_eq!(ids, [2, 3, 4].map(|ms| StreamId::new(ms, 0)));
    }

    #[test]
    fn damaged_nodes_are_refused() {
        let mut n = Node::with(entry(5, "a"));
        n.push(entry(6, "b"));
        let raw = n.stored();
        for cut in 0..raw.len() {
            assert!(
                Node::from_stored(raw[..cut].to_vec()).is_none(),
                "cut at {cut}"
            );
        }
        // More entries than the bytes can hold.
        let mut wrong_count = raw.clone();
        wrong_count[..4].copy_from_slice(&4u32.to_le_bytes());
        assert!(Node::from_stored(wrong_count).is_none());
        // A count the bytes could hold: the walk yields what is there.
        let mut one_more = raw.clone();
        one_more[..4].copy_from_slice(&3u32.to_le_bytes());
        let back = Node::from_stored(one_more).unwrap();
        assert_eq!(back.views().len(), 2);
        // A first entry after the last.
        let falling = node::encode(&[entry(6, "b"), entry(5, "a")]);
        assert!(Node::from_stored(falling).is_none());
        // Entry bytes past the stored ones.
        let mut long = raw.clone();
        long[4..8].copy_from_slice(&(raw.len() as u32).to_le_bytes());
        assert!(Node::from_stored(long).is_none());
        // A padded chunk: zeros after the entries are room, anything else
        // is damage.
        let mut padded = raw.clone();
        padded.resize(raw.len() + 300, 0);
        let back = Node::from_stored(padded.clone()).unwrap();
        assert_eq!((back.len(), back.stored()), (2, raw.clone()));
        *padded.last_mut().unwrap() = 1;
        assert!(Node::from_stored(padded).is_none());
    }
}
