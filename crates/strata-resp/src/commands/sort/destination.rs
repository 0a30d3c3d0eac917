//! `SORT ... STORE`'s destination: whatever it held (any type, its expiry
//! too) is replaced by a list of the result, packed while it fits
//! `list-max-listpack-size` and large otherwise (Redis 7.2 builds a
//! quicklist and converts it to a listpack when it fits); an empty result
//! deletes the key. One journal record.

use strata_kv::large::{Deque, Side};
use strata_kv::{collection, Store, ValueKind};

use crate::encodings::ListLimit;
use crate::reply::RespError;

/// Replaces `key` with the list of `elements` (deletes it when empty);
/// returns whether `key` existed before.
pub fn replace<S: Store, E: AsRef<[u8]>>(
    store: &mut S,
    key: &[u8],
    limit: ListLimit,
    elements: &[E],
) -> Result<bool, RespError> {
    store.edit_large(key, |edit| {
        let existed = edit.exists();
        if elements.is_empty() {
            edit.delete()?;
            return Ok(existed);
        }
        let packed = collection::encoded_len(elements.iter().map(AsRef::as_ref));
        if limit.fits(elements.len() as u64, packed as u64) {
            let value = collection::encode(elements.iter().map(AsRef::as_ref));
            edit.put_whole(ValueKind::List, &value, None)?;
            return Ok(existed);
        }
        // A large value there goes first, chunks and all, so no chunk of
        // it can outlive the new list's head.
        if edit.current()?.is_some_and(|c| c.chunks.is_some()) {
            edit.delete()?;
        }
        let mut deque = Deque::create(edit, None);
        for e in elements {
            deque.push(Side::Back, e.as_ref())?;
        }
        deque.finish()?;
        Ok(existed)
    })?
}
