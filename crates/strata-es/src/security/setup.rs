//! What turns security on ([`SecurityConfig`]) and the state it opens
//! ([`Security`]: the file realm, the API keys, the clock). A leaf of
//! `security`: the node holds a [`Security`], the checks use it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::api_key::store::ApiKeyStore;
use super::clock::{SecurityClock, SystemClock};
use super::realm::FileRealm;

/// How often the realm's files are checked for changes by default
/// (Elasticsearch's `resource.reload.interval.high`).
pub const DEFAULT_RELOAD_INTERVAL: Duration = Duration::from_secs(5);

/// What turns security on.
#[derive(Debug, Clone)]
pub struct SecurityConfig {
    /// The file realm's directory (`users`, `users_roles`, `roles.yml`).
    pub realm_dir: PathBuf,
    /// How often the realm's files are checked for changes.
    pub reload_interval: Duration,
    /// The clock API keys are created and expire by.
    pub clock: Arc<dyn SecurityClock>,
}

impl SecurityConfig {
    /// Security with the realm in `realm_dir`, the defaults otherwise.
    pub fn new(realm_dir: impl Into<PathBuf>) -> SecurityConfig {
        SecurityConfig {
            realm_dir: realm_dir.into(),
            reload_interval: DEFAULT_RELOAD_INTERVAL,
            clock: Arc::new(SystemClock),
        }
    }
}

/// The security state of a node with security on.
#[derive(Debug)]
pub struct Security {
    pub(super) realm: FileRealm,
    pub(super) api_keys: ApiKeyStore,
    pub(super) clock: Arc<dyn SecurityClock>,
}

impl Security {
    /// Opens the realm and the API keys under the search `root`.
    pub fn open(root: &Path, config: &SecurityConfig) -> Result<Security, String> {
        let realm = FileRealm::open(&config.realm_dir, config.reload_interval)
            .map_err(|e| format!("HTTP security realm: {e}"))?;
        let api_keys = ApiKeyStore::open(root)?;
        Ok(Security {
            realm,
            api_keys,
            clock: Arc::clone(&config.clock),
        })
    }

    /// The file realm.
    pub fn realm(&self) -> &FileRealm {
        &self.realm
    }
}
