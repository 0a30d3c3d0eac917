//! [`ApiKeyStore`]: every API key, kept in `<root>/api_keys.json` and
//! replaced atomically and fsynced with owner-only permissions
//! (`strata_search::save_private_json_file`) before a change is acknowledged, so
//! keys survive restarts and crashes. Secrets are never stored: only a salted SHA-256 of each
//! (`{SSHA256}` + base64 of salt and digest; a key secret carries 128
//! random bits, so a fast hash is as safe as a slow one, which is what
//! Elasticsearch's `ssha256` API key hashing relies on too).
//!
//! Keys invalidated or expired more than a week ago (Elasticsearch's
//! `delete.retention_period`) are dropped at the next change; at most
//! [`MAX_KEYS`] are kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine;
use parking_lot::{Mutex, RwLock};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use strata_search::{load_json_file, save_private_json_file};

use crate::error::EsError;
use crate::security::realm::cache::constant_time_eq;
use crate::security::role::Role;
use crate::security::subject::Permission;

/// Most keys the store holds (each change rewrites the file).
pub const MAX_KEYS: usize = 10_000;
/// How long invalidated and expired keys are kept (7 days).
pub const RETENTION_MILLIS: u64 = 7 * 24 * 3600 * 1000;
/// The store file's version.
const VERSION: u64 = 1;

/// One stored key.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ApiKeyRecord {
    /// The key's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `{SSHA256}` + base64(salt ‖ sha256(salt ‖ secret)).
    pub hash: String,
    /// Creation time (epoch milliseconds).
    pub creation: u64,
    /// Expiry time, if any.
    pub expiration: Option<u64>,
    /// Whether it was invalidated.
    pub invalidated: bool,
    /// When it was invalidated.
    pub invalidation: Option<u64>,
    /// The owner.
    pub username: String,
    /// The owner's realm.
    pub realm: String,
    /// The owner's realm type.
    pub realm_type: String,
    /// The key's metadata.
    pub metadata: Value,
    /// The key's own role descriptors (`None`: none were given).
    pub role_descriptors: Option<Map<String, Value>>,
    /// The owner's role descriptors at creation.
    pub limited_by: Map<String, Value>,
}

impl ApiKeyRecord {
    /// Whether `now` is past the expiry.
    pub fn expired(&self, now: u64) -> bool {
        self.expiration.is_some_and(|e| e <= now)
    }
}

/// A record with its role descriptors compiled.
#[derive(Debug)]
pub struct StoredKey {
    /// The record.
    pub record: ApiKeyRecord,
    /// The key's own permission.
    pub key: Option<Permission>,
    /// The owner's permission at creation.
    pub limited_by: Permission,
}

impl StoredKey {
    fn compile(record: ApiKeyRecord) -> Result<StoredKey, String> {
        let compile = |map: &Map<String, Value>| -> Result<Permission, String> {
            map.iter()
                .map(|(name, body)| Role::parse(name, body).map(Arc::new))
                .collect::<Result<Vec<_>, _>>()
                .map(Permission::new)
        };
        Ok(StoredKey {
            key: record.role_descriptors.as_ref().map(compile).transpose()?,
            limited_by: compile(&record.limited_by)?,
            record,
        })
    }
}

type Keys = BTreeMap<String, Arc<StoredKey>>;

/// See the module docs.
#[derive(Debug)]
pub struct ApiKeyStore {
    path: PathBuf,
    keys: RwLock<Arc<Keys>>,
    /// Serializes changes (each one rewrites the file).
    writer: Mutex<()>,
}

impl ApiKeyStore {
    /// Opens the store under `root` (empty if the file is absent).
    /// A damaged file is an error: starting without it would silently
    /// lock every key's user out.
    pub fn open(root: &Path) -> Result<ApiKeyStore, String> {
        let path = root.join("api_keys.json");
        let mut keys = Keys::new();
        if let Some(doc) = load_json_file(&path).map_err(|e| e.to_string())? {
            let damaged = |why: String| format!("damaged {}: {why}", path.display());
            if doc["version"].as_u64() != Some(VERSION) {
                return Err(damaged(format!("unknown version {}", doc["version"])));
            }
            let records: Vec<ApiKeyRecord> =
                serde_json::from_value(doc["keys"].clone()).map_err(|e| damaged(e.to_string()))?;
            for record in records {
                let key = StoredKey::compile(record).map_err(damaged)?;
                keys.insert(key.record.id.clone(), Arc::new(key));
            }
        }
        Ok(ApiKeyStore {
            path,
            keys: RwLock::new(Arc::new(keys)),
            writer: Mutex::new(()),
        })
    }

    /// The key with `id`.
    pub fn get(&self, id: &str) -> Option<Arc<StoredKey>> {
        self.keys.read().get(id).cloned()
    }

    /// Every key.
    pub fn all(&self) -> Vec<Arc<StoredKey>> {
        self.keys.read().values().cloned().collect()
    }

    /// Applies `change` to a copy of the records, drops keys past their
    /// retention, saves, then makes the result visible. `change` returns
    /// its answer or an error (nothing saved).
    pub fn update<T>(
        &self,
        now: u64,
        change: impl FnOnce(&mut BTreeMap<String, ApiKeyRecord>) -> Result<T, EsError>,
    ) -> Result<T, EsError> {
        let _writer = self.writer.lock();
        let mut records: BTreeMap<String, ApiKeyRecord> = self
            .keys
            .read()
            .iter()
            .map(|(id, k)| (id.clone(), k.record.clone()))
            .collect();
        let answer = change(&mut records)?;
        records.retain(|_, r| {
            let gone_since = match (r.invalidation, r.expiration) {
                (Some(i), _) if r.invalidated => Some(i),
                (_, Some(e)) if e <= now => Some(e),
                _ => None,
            };
            gone_since.is_none_or(|t| now.saturating_sub(t) < RETENTION_MILLIS)
        });
        if records.len() > MAX_KEYS {
            return Err(EsError::IllegalArgument(format!(
                "too many API keys [{}]: at most {MAX_KEYS} are kept; invalidate unused keys",
                records.len()
            )));
        }
        let doc = json!({"version": VERSION, "keys": records.values().collect::<Vec<_>>()});
        // Owner-only: the file holds the keys' salted hashes.
        save_private_json_file(&self.path, &doc)?;
        let mut keys = Keys::new();
        for (id, record) in records {
            let key = StoredKey::compile(record).map_err(EsError::Internal)?;
            keys.insert(id, Arc::new(key));
        }
        *self.keys.write() = Arc::new(keys);
        Ok(answer)
    }
}

/// A new random token of `bytes` bytes, base64url without padding.
pub fn random_token(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rngs::OsRng.fill_bytes(&mut buf);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
}

/// The stored form of `secret`.
pub fn hash_secret(secret: &str) -> String {
    let mut salt = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut salt);
    let digest = salted(&salt, secret);
    let mut both = salt.to_vec();
    both.extend_from_slice(&digest);
    format!(
        "{{SSHA256}}{}",
        base64::engine::general_purpose::STANDARD.encode(both)
    )
}

/// Whether `secret` is the one `stored` was made from.
pub fn verify_secret(secret: &str, stored: &str) -> bool {
    let Some(encoded) = stored.strip_prefix("{SSHA256}") else {
        return false;
    };
    let Ok(both) = base64::engine::general_purpose::STANDARD.decode(encoded) else {
        return false;
    };
    if both.len() != 48 {
        return false;
    }
    constant_time_eq(&salted(&both[..16], secret), &both[16..])
}

fn salted(salt: &[u8], secret: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(salt);
    h.update(secret.as_bytes());
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, now: u64) -> ApiKeyRecord {
        ApiKeyRecord {
            id: id.into(),
            name: "k".into(),
            hash: hash_secret("s3cret"),
            creation: now,
            expiration: None,
            invalidated: false,
            invalidation: None,
            username: "ann".into(),
            realm: "default_file".into(),
            realm_type: "file".into(),
            metadata: json!({}),
            role_descriptors: None,
            limited_by: serde_json::from_value(json!({"viewer": {"cluster": ["monitor"]}}))
                .unwrap(),
        }
    }

    #[test]
    fn secrets_hash_and_verify() {
        let stored = hash_secret("abc");
        assert!(verify_secret("abc", &stored));
        assert!(!verify_secret("abd", &stored));
        assert_ne!(stored, hash_secret("abc"), "salted");
        assert!(!verify_secret("abc", "plain"));
        assert_eq!(random_token(16).len(), 22);
    }

    #[test]
    fn keys_persist_and_old_ones_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = ApiKeyStore::open(dir.path()).unwrap();
        let now = 1_000_000;
        store
            .update(now, |keys| {
                keys.insert("a".into(), record("a", now));
                let mut gone = record("b", now);
                gone.invalidated = true;
                gone.invalidation = Some(now);
                keys.insert("b".into(), gone);
                Ok(())
            })
            .unwrap();
        let reopened = ApiKeyStore::open(dir.path()).unwrap();
        assert_eq!(reopened.all().len(), 2);
        assert_eq!(
            reopened.get("a").unwrap().record,
            record_with_hash(&store, "a")
        );
        // A week later the invalidated key is dropped at the next change.
        reopened.update(now + RETENTION_MILLIS, |_| Ok(())).unwrap();
        assert!(reopened.get("b").is_none() && reopened.get("a").is_some());
        // A failed change saves nothing.
        let err = reopened.update::<()>(now, |keys| {
            keys.clear();
            Err(EsError::Internal("no".into()))
        });
        assert!(err.is_err() && reopened.get("a").is_some());
        std::fs::write(dir.path().join("api_keys.json"), "{\"version\": 9}").unwrap();
        assert!(ApiKeyStore::open(dir.path()).is_err());
    }

    fn record_with_hash(store: &ApiKeyStore, id: &str) -> ApiKeyRecord {
        store.get(id).unwrap().record.clone()
    }
}
