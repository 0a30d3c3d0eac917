//! Reading a set in either encoding (see
//! [`hashed`](crate::commands::hashed)): packed sets are read borrowing
//! the record; a large one (Redis's hashtable) through its chunks,
//! touching only the buckets a command needs.

use std::collections::HashSet;

use strata_kv::large::Hashed;
use strata_kv::{LargeRead, Store, ValueKind};

use crate::commands::collection::random_picks;
use crate::commands::hashed::{read, View};
use crate::reply::RespError;

/// Every member of a large set, bucket by bucket.
pub fn all_members(set: &mut Hashed<'_, LargeRead<'_>>) -> Result<Vec<Vec<u8>>, RespError> {
    let mut all = Vec::with_capacity(usize::try_from(set.len()).unwrap_or(0));
    for b in 0..set.buckets() {
        all.extend(set.bucket(b)?);
    }
    Ok(all)
}

/// The members of `key`'s set, copied (empty for a missing key).
pub fn members<S: Store>(store: &mut S, key: &[u8]) -> Result<Vec<Vec<u8>>, RespError> {
    let found = read(store, key, ValueKind::Set, |set| match set {
        View::Packed(m) => Ok(m.iter().map(|e| e.to_vec()).collect()),
        View::Large(set) => all_members(set),
    })?;
    Ok(found.unwrap_or_default())
}

/// Whether each of `candidates` is a member (all false for a missing key).
pub fn contains_each<'c, S: Store>(
    store: &mut S,
    key: &[u8],
    candidates: impl Iterator<Item = &'c [u8]> + Clone,
) -> Result<Vec<bool>, RespError> {
    let found = read(store, key, ValueKind::Set, |set| match set {
        View::Packed(set) => {
            let members = Members::new(set);
            Ok(candidates.clone().map(|m| members.contains(m)).collect())
        }
        View::Large(set) => {
            let mut answers = Vec::new();
            for m in candidates.clone() {
                answers.push(set.get(m)?.is_some());
            }
            Ok(answers)
        }
    })?;
    Ok(found.unwrap_or_else(|| candidates.map(|_| false).collect()))
}

/// The number of members (0 for a missing key).
pub fn card<S: Store>(store: &mut S, key: &[u8]) -> Result<u64, RespError> {
    let found = read(store, key, ValueKind::Set, |set| match set {
        View::Packed(set) => Ok(set.len() as u64),
        View::Large(set) => Ok(set.len()),
    })?;
    Ok(found.unwrap_or(0))
}

/// Members picked as `SRANDMEMBER` asks (`count` as in [`random_picks`]).
/// A pick much smaller than a large set reads one random bucket per pick;
/// a larger one reads every bucket.
pub fn random<S: Store>(store: &mut S, key: &[u8], count: i64) -> Result<Vec<Vec<u8>>, RespError> {
    let found = read(store, key, ValueKind::Set, |set| {
        let set = match set {
            View::Packed(set) => {
                let picks = random_picks(set.len(), count)?;
                return Ok(picks.into_iter().map(|i| set[i].to_vec()).collect());
            }
            View::Large(set) => set,
        };
        let want = count.unsigned_abs();
        if want.saturating_mul(4) >= set.len() {
            let all = all_members(set)?;
            let picks = random_picks(all.len(), count)?;
            return Ok(picks.into_iter().map(|i| all[i].clone()).collect());
        }
        random_picks(0, count)?; // the count's own checks
        let (mut rng, distinct) = (rand::thread_rng(), count >= 0);
        let mut picked = Vec::new();
        let mut seen = HashSet::new();
        while (picked.len() as u64) < want {
            let Some(mut entry) = set.random(&mut rng)? else {
                break;
            };
            let member = entry.swap_remove(0);
            if !distinct || seen.insert(member.clone()) {
                picked.push(member);
            }
        }
        Ok(picked)
    })?;
    Ok(found.unwrap_or_default())
}

/// Membership tests over one packed set: a scan for small sets, a hash
/// set for larger ones.
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
