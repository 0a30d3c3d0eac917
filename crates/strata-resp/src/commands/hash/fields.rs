//! Finding fields in a hash: one field's value in either encoding
//! ([`with_field`]), or in decoded packed pairs one field ([`find`]) or
//! many ([`Fields`], a map for large hashes).

use std::collections::HashMap;

use strata_kv::{collection, Store, ValueKind};

use crate::commands::hashed::{read_stored, Stored};
use crate::reply::{CollectionError, RespError};

/// Calls `f` on the value of `field` in the hash at `key` (`None`: no such
/// field); `Ok(None)` when the key is missing, `WRONGTYPE` for another
/// kind. A packed hash is walked where it lies, nothing decoded or copied.
pub fn with_field<S: Store, R>(
    store: &mut S,
    key: &[u8],
    field: &[u8],
    f: impl FnOnce(Option<&[u8]>) -> R,
) -> Result<Option<R>, RespError> {
    read_stored(store, key, ValueKind::Hash, |hash| match hash {
        Stored::Packed(bytes) => match collection::pair_value(bytes, field) {
            Ok(at) => Ok(f(at.map(|at| &bytes[at]))),
            Err(_) => Err(CollectionError::Damaged.into()),
        },
        Stored::Large(hash) => Ok(f(hash.get(field)?.as_deref())),
    })
}

/// Above this many fields, lookups of several fields go through a map
/// built once per command instead of a scan per field.
const SCAN_LIMIT: usize = 16;

/// The pair index of `field` in `pairs` (fields and values alternating).
pub fn find(pairs: &[&[u8]], field: &[u8]) -> Option<usize> {
    pairs.chunks_exact(2).position(|p| p[0] == field)
}

/// Finds many fields in one hash: a scan for small hashes, a map for large.
pub struct Fields<'p> {
    map: Option<HashMap<&'p [u8], usize>>,
}

impl<'p> Fields<'p> {
    /// An index over `pairs` as they are now.
    pub fn new(pairs: &[&'p [u8]]) -> Self {
        let map = (pairs.len() / 2 > SCAN_LIMIT).then(|| {
            pairs
                .chunks_exact(2)
                .enumerate()
                .map(|(i, p)| (p[0], i))
                .collect()
        });
        Self { map }
    }

    /// The pair index of `field`.
    pub fn find(&self, pairs: &[&[u8]], field: &[u8]) -> Option<usize> {
        match &self.map {
            Some(map) => map.get(field).copied(),
            None => find(pairs, field),
        }
    }

    /// Notes that `field` was appended as pair `index`.
    pub fn added(&mut self, field: &'p [u8], index: usize) {
        if let Some(map) = &mut self.map {
            map.insert(field, index);
        }
    }
}
