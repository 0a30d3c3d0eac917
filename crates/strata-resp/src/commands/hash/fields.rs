//! Finding fields in a hash's packed pairs: one field ([`find`]) or many
//! ([`Fields`], a map for large hashes).

use std::collections::HashMap;

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
