//! `_source` kept as a shape and its values.
//!
//! Documents of one index mostly share their keys, their nesting and their
//! spacing; stored whole, every source repeats them, and the compressed
//! store still pays a few bytes per repeat. A source is stored instead as
//! [`SHAPED`], the number of its *shape* (the JSON text with each string
//! value replaced by `0x00` and each other scalar by `0x01`) and its
//! values' bytes, each ended by `0x00`: lossless, so a hit's `_source` is
//! the text that was indexed, byte for byte. The eventdata sources take a
//! sixth less space in the compressed store (docs/benchmarks.md, issue 35).
//!
//! A shard's shapes are numbered in the order they first appear and never
//! renumbered: stored bytes are copied as they are by merges, so a number
//! means one shape for the shard's lifetime. The table is saved whole
//! ([`SourceShapes::save`], an atomic replace) before each commit that may
//! hold a document of a new shape, so that no committed document names a
//! shape the shard cannot read back. A shape enters the table the second
//! time it is met, so that sources whose keys are data (a map keyed by
//! user ids) do not fill it with shapes met once. A source that cannot be
//! split (a byte below `0x02`, a string without its end, a bracket out of
//! place), whose shape is met for the first time, or whose shape would
//! pass the table's bounds is stored as it came.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::Path;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use tantivy::directory::error::OpenReadError;
use tantivy::Directory;

/// First byte of a shaped source; a JSON text never starts with it.
pub(crate) const SHAPED: u8 = 0x01;
/// The table's file in the shard directory (outside tantivy's management:
/// its garbage collection never deletes it).
pub(crate) const SHAPES_FILE: &str = "source_shapes.bin";
const MAGIC: &[u8; 8] = b"STRSHP1\n";

/// In a shape: where a string value was (its quotes included).
const STRING_SLOT: u8 = 0x00;
/// In a shape: where a number, `true`, `false` or `null` was.
const SCALAR_SLOT: u8 = 0x01;
/// Ends each value in a shaped source.
const VALUE_END: u8 = 0x00;

/// A longer shape is not worth a table entry.
const SHAPE_MAX_BYTES: usize = 16 * 1024;
/// The table's bounds: shapes past them are stored whole.
const TABLE_MAX_SHAPES: usize = 4096;
const TABLE_MAX_BYTES: usize = 1024 * 1024;
/// Hashes of shapes met once that are remembered; the set starts over
/// when full (a shape met again after that waits for a third sighting).
const SEEN_MAX: usize = 64 * 1024;
/// Objects and arrays nested deeper are stored whole (indexing refuses
/// sources nested past 128 levels before this is reached).
const DEPTH_MAX: usize = 512;

/// One shard's shape table.
#[derive(Default)]
pub(crate) struct SourceShapes {
    table: RwLock<Table>,
    /// How many shapes the saved file holds; taken while saving.
    saved: Mutex<usize>,
}

#[derive(Default)]
struct Table {
    ids: HashMap<Arc<[u8]>, u32>,
    shapes: Vec<Arc<[u8]>>,
    bytes: usize,
    /// The hashes of shapes met once and not in the table.
    seen: HashSet<u64>,
}

impl SourceShapes {
    /// The table saved in `dir` (empty if there is none yet).
    pub(crate) fn load(dir: &dyn Directory) -> io::Result<SourceShapes> {
        let bytes = match dir.atomic_read(Path::new(SHAPES_FILE)) {
            Ok(bytes) => bytes,
            Err(OpenReadError::FileDoesNotExist(_)) => return Ok(SourceShapes::default()),
            Err(e) => return Err(io::Error::other(e)),
        };
        let shapes = parse_file(&bytes)?;
        let mut table = Table::default();
        for shape in shapes {
            table.insert(shape.into());
        }
        let saved = table.shapes.len();
        Ok(SourceShapes {
            table: RwLock::new(table),
            saved: Mutex::new(saved),
        })
    }

    /// Saves the table in `dir` if it gained shapes since it was last
    /// saved. Every shape of a document encoded before the call is saved
    /// when it returns.
    pub(crate) fn save(&self, dir: &dyn Directory) -> io::Result<()> {
        let mut saved = self.saved.lock();
        let shapes: Vec<Arc<[u8]>> = {
            let table = self.table.read();
            if table.shapes.len() == *saved {
                return Ok(());
            }
            table.shapes.clone()
        };
        dir.atomic_write(Path::new(SHAPES_FILE), &file_bytes(&shapes))?;
        *saved = shapes.len();
        Ok(())
    }

    /// How `source` is stored: shaped, or `None` to store it as it is.
    pub(crate) fn encode(&self, source: &[u8]) -> Option<Vec<u8>> {
        let (shape, values) = split(source)?;
        let id = self.id_of(shape)?;
        let mut out = Vec::with_capacity(values.len() + 6);
        out.push(SHAPED);
        push_varint(&mut out, id);
        out.extend_from_slice(&values);
        Some(out)
    }

    /// The source stored as `stored` (as it is unless shaped).
    pub(crate) fn decode<'a>(&self, stored: &'a [u8]) -> io::Result<std::borrow::Cow<'a, [u8]>> {
        let Some(rest) = stored.strip_prefix(&[SHAPED]) else {
            return Ok(std::borrow::Cow::Borrowed(stored));
        };
        let corrupt = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
        let (id, values) =
            read_varint(rest).ok_or_else(|| corrupt("a shaped source without its shape"))?;
        let shape = self.table.read().shapes.get(id as usize).cloned();
        let shape = shape.ok_or_else(|| {
            corrupt(&format!(
                "a stored source names shape {id}, which this shard does not have"
            ))
        })?;
        join(&shape, values)
            .map(std::borrow::Cow::Owned)
            .ok_or_else(|| corrupt("a shaped source whose values do not fit its shape"))
    }

    /// The number of `shape`: added when met the second time and within
    /// the bounds, `None` until then.
    fn id_of(&self, shape: Vec<u8>) -> Option<u32> {
        if let Some(&id) = self.table.read().ids.get(shape.as_slice()) {
            return Some(id);
        }
        let fits = |table: &Table| {
            table.shapes.len() < TABLE_MAX_SHAPES
                && table.bytes + shape.len() <= TABLE_MAX_BYTES
                && shape.len() <= SHAPE_MAX_BYTES
        };
        let hash = xxhash_rust::xxh3::xxh3_64(&shape);
        let mut table = self.table.write();
        if let Some(&id) = table.ids.get(shape.as_slice()) {
            return Some(id);
        }
        if !fits(&table) {
            return None;
        }
        if table.seen.remove(&hash) {
            return Some(table.insert(shape.into()));
        }
        if table.seen.len() == SEEN_MAX {
            table.seen.clear();
        }
        table.seen.insert(hash);
        None
    }
}

impl Table {
    fn insert(&mut self, shape: Arc<[u8]>) -> u32 {
        let id = self.shapes.len() as u32;
        self.bytes += shape.len();
        self.shapes.push(Arc::clone(&shape));
        self.ids.insert(shape, id);
        id
    }
}

/// `source`'s shape and values, or `None` when it cannot be split losslessly.
fn split(source: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    if source.iter().any(|&b| b < 0x02) {
        return None;
    }
    let mut shape = Vec::with_capacity(256);
    let mut values = Vec::with_capacity(source.len());
    // The open containers: `true` for an object.
    let mut open: Vec<bool> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < source.len() {
        let b = source[i];
        match b {
            b'"' => {
                let end = string_end(source, i)?;
                if expect_key {
                    shape.extend_from_slice(&source[i..=end]);
                    expect_key = false;
                } else {
                    shape.push(STRING_SLOT);
                    values.extend_from_slice(&source[i + 1..end]);
                    values.push(VALUE_END);
                }
                i = end + 1;
                continue;
            }
            b'{' | b'[' => {
                if open.len() == DEPTH_MAX {
                    return None;
                }
                open.push(b == b'{');
                expect_key = b == b'{';
                shape.push(b);
            }
            b'}' | b']' => {
                if open.pop()? != (b == b'}') {
                    return None;
                }
                expect_key = false;
                shape.push(b);
            }
            b',' => {
                expect_key = open.last() == Some(&true);
                shape.push(b);
            }
            b':' | b' ' | b'\t' | b'\n' | b'\r' => shape.push(b),
            _ => {
                let end = source[i..]
                    .iter()
                    .position(|c| b"{}[],:\" \t\n\r".contains(c))
                    .map_or(source.len(), |n| i + n);
                shape.push(SCALAR_SLOT);
                values.extend_from_slice(&source[i..end]);
                values.push(VALUE_END);
                i = end;
                continue;
            }
        }
        i += 1;
    }
    open.is_empty().then_some((shape, values))
}

/// The index of the quote that ends the string opened at `start`.
fn string_end(source: &[u8], start: usize) -> Option<usize> {
    let mut j = start + 1;
    loop {
        j += memchr::memchr2(b'\\', b'"', source.get(j..)?)?;
        if source[j] == b'"' {
            return Some(j);
        }
        // An escape: the next byte is escaped, whatever it is.
        j += 2;
    }
}

/// The source of `shape` filled with `values`; `None` if they do not fit.
fn join(shape: &[u8], values: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(shape.len() + values.len() + 64);
    let mut rest = values;
    for &b in shape {
        match b {
            STRING_SLOT | SCALAR_SLOT => {
                let n = rest.iter().position(|&c| c == VALUE_END)?;
                let quote = b == STRING_SLOT;
                if quote {
                    out.push(b'"');
                }
                out.extend_from_slice(&rest[..n]);
                if quote {
                    out.push(b'"');
                }
                rest = &rest[n + 1..];
            }
            _ => out.push(b),
        }
    }
    rest.is_empty().then_some(out)
}

fn push_varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_varint(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let mut n: u32 = 0;
    for (i, &b) in bytes.iter().enumerate().take(5) {
        n |= u32::from(b & 0x7f).checked_shl(7 * i as u32)?;
        if b < 0x80 {
            return Some((n, &bytes[i + 1..]));
        }
    }
    None
}

/// The file: [`MAGIC`], each shape as a `u32` length and its bytes, and
/// the xxh3 of everything before it.
fn file_bytes(shapes: &[Arc<[u8]>]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for shape in shapes {
        out.extend_from_slice(&(shape.len() as u32).to_le_bytes());
        out.extend_from_slice(shape);
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

fn parse_file(bytes: &[u8]) -> io::Result<Vec<Vec<u8>>> {
    let corrupt = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{SHAPES_FILE} is corrupt: its sources cannot be read"),
        )
    };
    let body_len = bytes.len().checked_sub(8).ok_or_else(corrupt)?;
    let (body, sum) = bytes.split_at(body_len);
    let sum = u64::from_le_bytes(sum.try_into().map_err(|_| corrupt())?);
    if xxhash_rust::xxh3::xxh3_64(body) != sum {
        return Err(corrupt());
    }
    let mut rest = body.strip_prefix(MAGIC).ok_or_else(corrupt)?;
    let mut shapes = Vec::new();
    while !rest.is_empty() {
        let (len, after) = rest.split_first_chunk::<4>().ok_or_else(corrupt)?;
        let len = u32::from_le_bytes(*len) as usize;
        let shape = after.get(..len).ok_or_else(corrupt)?;
        shapes.push(shape.to_vec());
        rest = &after[len..];
    }
    Ok(shapes)
}

#[cfg(test)]
#[path = "source_shapes_tests.rs"]
mod tests;
