//! `SORT ... STORE`'s destination: whatever it held (any type, its expiry
//! too) is replaced by a list of the result, packed while it fits
//! `list-max-listpack-size` and large otherwise (Redis 7.2 builds a
//! quicklist and converts it to a listpack when it fits); an empty result
//! deletes the key. One journal record.

use strata_kv::Store;

use crate::commands::list::either;
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
        either::write(edit, limit, elements, None).map(|()| existed)
    })?
}
