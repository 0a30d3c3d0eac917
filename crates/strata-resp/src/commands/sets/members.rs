//! Reading a set's members, owned ([`members`]) or as a lookup over the
//! packed value ([`Members`]).

use crate::commands::collection::read;
use crate::reply::RespError;
use std::collections::HashSet;
use strata_kv::{Store, ValueKind};

/// The members of `key`'s set, copied (empty for a missing key).
pub fn members<S: Store>(store: &mut S, key: &[u8]) -> Result<Vec<Vec<u8>>, RespError> {
    Ok(read(store, key, ValueKind::Set, |m| {
        m.iter().map(|e| e.to_vec()).collect()
    })?
    .unwrap_or_default())
}

/// Membership tests over one set: a scan for small sets, a hash set for
/// large ones.
pub struct Members<'m> {
    set: Option<HashSet<&'m [u8]>>,
    members: &'m [&'m [u8]],
}

impl<'m> Members<'m> {
    /// An index over `members`.
    pub fn new(members: &'m [&'m [u8]]) -> Self {
        let set = (members.len() > 16).then(|| members.iter().copied().collect());
        Self { set, members }
    }

    /// Whether `m` is a member.
    pub fn contains(&self, m: &[u8]) -> bool {
        match &self.set {
            Some(set) => set.contains(m),
            None => self.members.contains(&m),
        }
    }
}
