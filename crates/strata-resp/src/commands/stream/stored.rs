//! Reading and changing the stream at a key, in either stored form (see
//! [`crate::stream`]): packed, one record holding every node, or large, a
//! head and one chunk per node read only as a command needs them. Any
//! other kind is `WRONGTYPE`. Redis keeps an empty stream, so nothing here
//! deletes the key.
//!
//! Reads take two looks as the other collections' do: a packed stream is
//! decoded from the borrowed record (counting a hit or miss), a large one
//! read with the shard read-locked; a writer may convert the key between
//! the looks, and the second look reads whatever it holds then. A change
//! runs with the key's shard write-locked and writes, in one journal
//! record, the packed value, or the changed chunks (entry nodes, then the
//! pending entries' tree nodes, placed right after them) and the head; a
//! packed stream past one node or [`PACKED_MAX`] bytes (pending entries
//! included) is written large from then on.

use strata_kv::chunk::Ring;
use strata_kv::chunk::RING;
use strata_kv::{ChunkSource, Current, KvError, LargeEdit, Store, ValueKind};

use crate::reply::{RespError, StreamError};
use crate::stream::{
    decode_head, decode_packed, encode_head, encode_packed, is_head, Stream, NODE_PAD, PACKED_MAX,
};

fn damaged() -> RespError {
    StreamError::Damaged.into()
}

/// Calls `f` with the stream `source`'s key holds; `Ok(None)` when the key
/// is missing.
fn with_current<R>(
    source: &dyn ChunkSource,
    f: impl FnOnce(&mut Stream<'_>) -> Result<R, RespError>,
) -> Result<Option<R>, RespError> {
    match source.current()? {
        None => Ok(None),
        Some(c) if c.kind != ValueKind::Stream => Err(RespError::WrongType),
        Some(Current {
            chunks: Some(n),
            value,
            ..
        }) => {
            let mut s = decode_head(&value, n, source).ok_or_else(damaged)?;
            f(&mut s).map(Some)
        }
        Some(c) => {
            let mut s = decode_packed(&c.value).ok_or_else(damaged)?;
            f(&mut s).map(Some)
        }
    }
}

/// Calls `f` with the stream at `key`; `Ok(None)` when the key is missing.
pub fn read<S: Store, R>(
    store: &mut S,
    key: &[u8],
    f: impl FnOnce(&mut Stream<'_>) -> Result<R, RespError>,
) -> Result<Option<R>, RespError> {
    let mut f = Some(f);
    let found = store.get(key, |item| {
        if item.kind != ValueKind::Stream {
            return Err(RespError::WrongType);
        }
        if is_head(item.value) {
            return Ok(None);
        }
        let mut s = decode_packed(item.value).ok_or_else(damaged)?;
        match f.take() {
            Some(f) => f(&mut s).map(Some),
            None => Ok(None),
        }
    });
    match found {
        None => Ok(None),
        Some(Err(e)) => Err(e),
        Some(Ok(Some(r))) => Ok(Some(r)),
        Some(Ok(None)) => match f.take() {
            Some(f) => store.read_large(key, |read| with_current(read, f)),
            None => Ok(None),
        },
    }
}

/// What an [`edit`] closure decided.
pub enum Edit<R> {
    /// Nothing changed: nothing is written.
    Keep(R),
    /// The stream changed (or was created): it is written back.
    Write(R),
}

/// What a change writes.
enum Write {
    /// The packed value.
    Whole(Vec<u8>),
    /// Changed chunks (entry nodes, flagged when last, then the pending
    /// entries' tree nodes), then the head naming `ring`.
    Large {
        chunks: Vec<(u32, Vec<u8>, bool)>,
        ring: Ring,
        head: Vec<u8>,
    },
}

/// Runs `f` on the stream at `key` (`None` when missing: `f` may create
/// one by setting it) with the key's shard write-locked, and writes the
/// stream back when `f` says it changed. On `Err` nothing is written.
pub fn edit<S: Store, R>(
    store: &mut S,
    key: &[u8],
    f: impl FnOnce(&mut Option<Stream<'_>>) -> Result<Edit<R>, RespError>,
) -> Result<R, RespError> {
    store.edit_large(key, |edit| {
        let current = edit.current()?;
        let expires_at = current.as_ref().and_then(|c| c.expires_at);
        let (result, write) = {
            let source: &dyn ChunkSource = &*edit;
            let mut slot = match current {
                None => None,
                Some(c) if c.kind != ValueKind::Stream => return Err(RespError::WrongType),
                Some(Current {
                    chunks: Some(n),
                    value,
                    ..
                }) => Some(decode_head(&value, n, source).ok_or_else(damaged)?),
                Some(c) => Some(decode_packed(&c.value).ok_or_else(damaged)?),
            };
            match f(&mut slot)? {
                Edit::Keep(r) => (r, None),
                Edit::Write(r) => (r, slot.map(plan).transpose()?),
            }
        };
        if let Some(write) = write {
            apply(edit, write, expires_at)?;
        }
        Ok(result)
    })?
}

/// Writes the new stream `s` expiring at `expires_at` at the key `edit`
/// holds, which holds nothing (`RESTORE` removed what was there).
pub fn write_new(
    edit: &mut LargeEdit<'_>,
    s: Stream<'_>,
    expires_at: Option<u64>,
) -> Result<(), RespError> {
    apply(edit, plan(s)?, expires_at)
}

/// What writing `s` back takes: its packed value while it is one node
/// within [`PACKED_MAX`] bytes (pending entries included) and not already
/// large, else its changed nodes (every node, renumbered, when it turns
/// large), its changed pending entries' nodes, placed right after the
/// entry nodes, and its head. The ring spans both.
fn plan(mut s: Stream<'_>) -> Result<Write, RespError> {
    if !s.body.is_chunked() {
        let packed = encode_packed(&mut s)?;
        if s.body.node_count() <= 1 && packed.len() <= PACKED_MAX {
            return Ok(Write::Whole(packed));
        }
        s.body.renumber_all();
    }
    let body = s.body.ring();
    let count = u64::from(body.count) + u64::from(s.pels.count());
    if count >= u64::from(RING) {
        let size = usize::try_from(count).unwrap_or(usize::MAX);
        let limit = RING as usize;
        return Err(RespError::Engine(KvError::TooLarge { size, limit }));
    }
    let tree = s.pels.place(body.number(body.count))?;
    let head = encode_head(&mut s)?;
    let mut chunks = s.body.changed_chunks();
    chunks.extend(tree.into_iter().map(|(n, v)| (n, v, false)));
    Ok(Write::Large {
        chunks,
        ring: Ring {
            first: body.first,
            count: body.count + s.pels.count(),
        },
        head,
    })
}

fn apply(edit: &mut LargeEdit<'_>, write: Write, expires_at: Option<u64>) -> Result<(), RespError> {
    match write {
        Write::Whole(value) => edit.put_whole(ValueKind::Stream, &value, expires_at)?,
        Write::Large { chunks, ring, head } => {
            for (number, value, last) in chunks {
                match last {
                    true => edit.put_padded_chunk(number, ValueKind::Stream, &value, NODE_PAD)?,
                    false => edit.put_chunk(number, ValueKind::Stream, &value)?,
                }
            }
            edit.put_ring_head(ValueKind::Stream, ring, &head, expires_at)?;
        }
    }
    Ok(())
}

/// Whether `stream` has a group `group` with a consumer `consumer` (for
/// `xgroup-createconsumer`, which the commands that add one announce).
pub fn has_consumer(stream: &Stream<'_>, group: &[u8], consumer: &[u8]) -> bool {
    stream
        .group(group)
        .is_some_and(|g| g.consumer(consumer).is_some())
}
