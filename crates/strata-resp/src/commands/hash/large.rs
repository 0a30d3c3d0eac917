//! Reads of large hashes (Redis's hashtable encoding, see
//! [`hashed`](crate::commands::hashed)): the values of named fields (one
//! chunk read per field), all pairs (every chunk once) and random fields
//! (by bucket); scan steps are
//! [`collection_scan`](crate::commands::collection_scan)'s. Each runs
//! inside [`read`](crate::commands::hashed::read)'s large view.

use rand::Rng;
use strata_kv::large::Hashed;
use strata_kv::LargeRead;

use crate::commands::collection::random_picks;
use crate::reply::RespError;

/// A large hash, its shard read-locked.
pub type LargeHash<'h, 's> = Hashed<'h, LargeRead<'s>>;

/// Values of `fields` (`None` for an absent field).
pub fn values<'f>(
    hash: &mut LargeHash<'_, '_>,
    fields: impl Iterator<Item = &'f [u8]>,
) -> Result<Vec<Option<Vec<u8>>>, RespError> {
    fields.map(|f| Ok(hash.get(f)?)).collect()
}

/// Every pair, fields and values alternating, bucket by bucket.
pub fn pairs(hash: &mut LargeHash<'_, '_>) -> Result<Vec<Vec<u8>>, RespError> {
    let mut all = Vec::with_capacity(usize::try_from(hash.len() * 2).unwrap_or(0));
    for b in 0..hash.buckets() {
        all.extend(hash.bucket(b)?);
    }
    Ok(all)
}

/// Pairs picked at random as `HRANDFIELD` asks (`count` as in
/// [`random_picks`]; `None`: one). A pick much smaller than the hash reads
/// one random bucket per pick (like Redis's hashtable, a field of a fuller
/// bucket is a little less likely); a larger one reads every bucket.
pub fn random(
    hash: &mut LargeHash<'_, '_>,
    count: Option<i64>,
) -> Result<Vec<[Vec<u8>; 2]>, RespError> {
    let len = hash.len();
    let want = count.map_or(1, |c| c.unsigned_abs());
    let distinct = count.is_some_and(|c| c >= 0);
    if want.saturating_mul(4) >= len {
        let mut all = Vec::new();
        for b in 0..hash.buckets() {
            all.extend(hash.bucket(b)?);
        }
        let picks = random_picks(all.len() / 2, count.unwrap_or(1))?;
        return Ok(picks
            .into_iter()
            .map(|i| [all[i * 2].clone(), all[i * 2 + 1].clone()])
            .collect());
    }
    random_picks(0, count.unwrap_or(1))?; // the count's own checks
    let mut rng = rand::thread_rng();
    let mut picked: Vec<[Vec<u8>; 2]> = Vec::new();
    while (picked.len() as u64) < want {
        let bucket = hash.bucket(rng.gen_range(0..hash.buckets()))?;
        if bucket.is_empty() {
            continue;
        }
        let at = rng.gen_range(0..bucket.len() / 2) * 2;
        if distinct && picked.iter().any(|p| p[0] == bucket[at]) {
            continue;
        }
        picked.push([bucket[at].clone(), bucket[at + 1].clone()]);
    }
    Ok(picked)
}
