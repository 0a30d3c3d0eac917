//! Lists in either encoding, being read: [`read`] tries the packed
//! encoding first, borrowing from the record; a large list's head sends it
//! to the chunks, read with the key's shard read-locked ([`ListRead`] is
//! what `LLEN`, `LRANGE`, `LINDEX` and `LPOS` need from either). A writer
//! may convert the list between the two reads (large back to packed, or
//! replace it): the second read then answers from whatever the key holds
//! under that lock, so an existing list never reads as missing.

use strata_kv::large::{is_list_head, Deque, Side};
use strata_kv::{collection, ChunkSource, Store, ValueKind};

use crate::reply::{CollectionError, RespError};

/// Reads of a list, whatever its encoding.
pub trait ListRead {
    /// Elements held.
    fn len(&self) -> u64;
    /// True when nothing is held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Elements `start..=stop` (`stop` < len).
    fn range(&mut self, start: u64, stop: u64) -> Result<Vec<Vec<u8>>, RespError>;
    /// Calls `f` with each element's index and bytes, from the front (or
    /// the back), until it returns false.
    fn scan(
        &mut self,
        from_back: bool,
        f: &mut dyn FnMut(u64, &[u8]) -> bool,
    ) -> Result<(), RespError>;
}

/// A packed list, borrowed from its record.
struct Packed<'v>(Vec<&'v [u8]>);

impl ListRead for Packed<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn range(&mut self, start: u64, stop: u64) -> Result<Vec<Vec<u8>>, RespError> {
        let (start, stop) = (start as usize, stop as usize);
        Ok(self
            .0
            .get(start..=stop)
            .unwrap_or_default()
            .iter()
            .map(|e| e.to_vec())
            .collect())
    }

    fn scan(
        &mut self,
        from_back: bool,
        f: &mut dyn FnMut(u64, &[u8]) -> bool,
    ) -> Result<(), RespError> {
        let n = self.0.len();
        for step in 0..n {
            let at = if from_back { n - 1 - step } else { step };
            if !f(at as u64, self.0[at]) {
                break;
            }
        }
        Ok(())
    }
}

impl<E: ChunkSource> ListRead for Deque<'_, E> {
    fn len(&self) -> u64 {
        Deque::len(self)
    }

    fn range(&mut self, start: u64, stop: u64) -> Result<Vec<Vec<u8>>, RespError> {
        Ok(Deque::range(self, start, stop)?)
    }

    fn scan(
        &mut self,
        from_back: bool,
        f: &mut dyn FnMut(u64, &[u8]) -> bool,
    ) -> Result<(), RespError> {
        let side = if from_back { Side::Back } else { Side::Front };
        Ok(Deque::scan(self, side, f)?)
    }
}

/// Reads `key` as a list (counting a hit or miss) and calls `f` on it;
/// `Ok(None)` when the key is missing, `WRONGTYPE` when it holds no list.
pub fn read<S: Store, R>(
    store: &mut S,
    key: &[u8],
    f: impl FnOnce(&mut dyn ListRead) -> Result<R, RespError>,
) -> Result<Option<R>, RespError> {
    let mut f = Some(f);
    let found = store.get(key, |item| {
        if item.kind != ValueKind::List {
            return Err(RespError::WrongType);
        }
        if is_list_head(item.value) {
            return Ok(None);
        }
        let elements = collection::decode_padded(item.value).ok_or(CollectionError::Damaged)?;
        match f.take() {
            Some(f) => f(&mut Packed(elements)).map(Some),
            None => Ok(None),
        }
    });
    match found {
        None => Ok(None),
        Some(Err(e)) => Err(e),
        Some(Ok(Some(r))) => Ok(Some(r)),
        Some(Ok(None)) => {
            let Some(f) = f.take() else {
                return Ok(None);
            };
            store.read_large(key, |read| {
                if let Some(mut deque) = Deque::open(read)? {
                    return f(&mut deque).map(Some);
                }
                // Converted since the packed read saw a head.
                match read.current()? {
                    None => Ok(None),
                    Some(c) if c.kind != ValueKind::List => Err(RespError::WrongType),
                    Some(c) => {
                        let elements =
                            collection::decode_padded(&c.value).ok_or(CollectionError::Damaged)?;
                        f(&mut Packed(elements)).map(Some)
                    }
                }
            })
        }
    }
}
