//! The file realm (Elasticsearch's `file` realm, named `default_file`):
//! users, their roles and the roles' definitions from one directory
//! (`files`), re-read when a file changes (checked at most every
//! `reload_interval`, 5 s by default as Elasticsearch's resource watcher),
//! and passwords checked with bcrypt behind a [`cache::CredentialCache`].
//!
//! A reload that finds a malformed file keeps the previous state and logs
//! the error; opening the realm at start fails on one.

pub mod cache;
pub mod files;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use parking_lot::{Mutex, RwLock};

use self::cache::CredentialCache;
use super::role::{self, Role};
use super::subject::{Authentication, Permission};

/// The realm's name and type in `_authenticate` and API key owners.
pub const REALM_NAME: &str = "default_file";
/// See [`REALM_NAME`].
pub const REALM_TYPE: &str = "file";

/// Modification time and length of each file, to notice changes.
type Stamp = Vec<Option<(SystemTime, u64)>>;

#[derive(Debug, Default)]
struct State {
    stamp: Stamp,
    users: files::Users,
    roles_of: HashMap<String, Vec<String>>,
    roles: HashMap<String, Arc<Role>>,
}

/// Why a password was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No such user, or the wrong password.
    BadCredentials,
}

/// See the module docs.
#[derive(Debug)]
pub struct FileRealm {
    dir: PathBuf,
    reload_interval: Duration,
    state: RwLock<Arc<State>>,
    checked: Mutex<Instant>,
    cache: CredentialCache,
}

impl FileRealm {
    /// Reads the realm in `dir`, which must exist.
    pub fn open(dir: &Path, reload_interval: Duration) -> Result<FileRealm, String> {
        if !dir.is_dir() {
            return Err(format!("{} is not a directory", dir.display()));
        }
        let state = load(dir)?;
        if state.users.is_empty() {
            tracing::warn!(
                dir = %dir.display(),
                "HTTP security is on but the users file is empty: no request can authenticate (add users with `strata users useradd`)"
            );
        }
        Ok(FileRealm {
            dir: dir.to_path_buf(),
            reload_interval,
            state: RwLock::new(Arc::new(state)),
            checked: Mutex::new(Instant::now()),
            cache: CredentialCache::new(cache::DEFAULT_TTL, cache::DEFAULT_CAPACITY),
        })
    }

    /// The realm's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The current state, re-read first if a file changed.
    fn current(&self) -> Arc<State> {
        let due = {
            let mut checked = self.checked.lock();
            let due = checked.elapsed() >= self.reload_interval;
            if due {
                *checked = Instant::now();
            }
            due
        };
        if due {
            let stamp = stamp(&self.dir);
            if stamp != self.state.read().stamp {
                match load(&self.dir) {
                    Ok(state) => {
                        tracing::info!(dir = %self.dir.display(), users = state.users.len(), roles = state.roles.len(), "file realm reloaded");
                        *self.state.write() = Arc::new(state);
                        self.cache.clear();
                    }
                    Err(err) => {
                        tracing::error!(%err, "file realm not reloaded; the previous users and roles stay in force")
                    }
                }
            }
        }
        Arc::clone(&self.state.read())
    }

    /// Checks `password` against the cache only (cheap): `Some` when the
    /// user's password passed bcrypt recently.
    pub fn authenticate_cached(&self, username: &str, password: &[u8]) -> Option<Authentication> {
        let state = self.current();
        let hash = state.users.get(username)?;
        self.cache
            .verified(username, password, hash)
            .then(|| user(&state, username))
    }

    /// Checks `password` with bcrypt (slow: call it off the async workers).
    pub fn authenticate(&self, username: &str, password: &[u8]) -> Result<Authentication, Refusal> {
        let state = self.current();
        let hash = state.users.get(username).ok_or(Refusal::BadCredentials)?;
        if self.cache.verified(username, password, hash) {
            return Ok(user(&state, username));
        }
        match bcrypt::verify(password, hash) {
            Ok(true) => {
                self.cache.remember(username, password, hash);
                Ok(user(&state, username))
            }
            Ok(false) => Err(Refusal::BadCredentials),
            Err(err) => {
                tracing::warn!(user = username, %err, "unusable password hash");
                Err(Refusal::BadCredentials)
            }
        }
    }

    /// The role called `name`: built in or from `roles.yml`.
    pub fn role(&self, name: &str) -> Option<Arc<Role>> {
        role::builtin(name).or_else(|| self.current().roles.get(name).cloned())
    }
}

/// The authentication of `username` with the roles that exist.
fn user(state: &State, username: &str) -> Authentication {
    let assigned = state.roles_of.get(username).cloned().unwrap_or_default();
    let roles = assigned
        .iter()
        .filter_map(|r| role::builtin(r).or_else(|| state.roles.get(r).cloned()))
        .collect();
    Authentication::User {
        username: username.to_string(),
        assigned,
        permission: Permission::new(roles),
    }
}

fn stamp(dir: &Path) -> Stamp {
    [files::USERS, files::USERS_ROLES, files::ROLES]
        .iter()
        .map(|f| {
            std::fs::metadata(dir.join(f))
                .ok()
                .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()))
        })
        .collect()
}

fn load(dir: &Path) -> Result<State, String> {
    // The stamp is taken first: a change while reading is seen next time.
    let stamp = stamp(dir);
    let users = files::read_users(dir)?;
    let mut roles_of: HashMap<String, Vec<String>> = HashMap::new();
    for (role, members) in files::read_users_roles(dir)? {
        for member in members {
            roles_of.entry(member).or_default().push(role.clone());
        }
    }
    let roles = files::read_roles(dir)?;
    Ok(State {
        stamp,
        users,
        roles_of,
        roles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_roles_and_reload() {
        let dir = tempfile::tempdir().unwrap();
        let mut users = files::Users::new();
        users.insert("ann".into(), bcrypt::hash("secret", 4).unwrap());
        files::write_users(dir.path(), &users).unwrap();
        let mut roles = files::UsersRoles::new();
        roles.insert("viewer".into(), vec!["ann".into()]);
        roles.insert("ghost".into(), vec!["ann".into()]);
        files::write_users_roles(dir.path(), &roles).unwrap();
        let realm = FileRealm::open(dir.path(), Duration::ZERO).unwrap();
        assert!(realm.authenticate_cached("ann", b"secret").is_none());
        let auth = realm.authenticate("ann", b"secret").unwrap();
        assert_eq!(auth.username(), "ann");
        assert!(auth.index("indices:data/read/search", "logs"));
        assert!(!auth.index("indices:data/write/update", "logs"));
        assert!(realm.authenticate_cached("ann", b"secret").is_some());
        assert_eq!(
            realm.authenticate("ann", b"wrong").unwrap_err(),
            Refusal::BadCredentials
        );
        assert_eq!(
            realm.authenticate("bob", b"secret").unwrap_err(),
            Refusal::BadCredentials
        );

        // A new roles.yml role for ann, and a changed password, are seen
        // without a restart; the cached password is forgotten.
        std::fs::write(
            dir.path().join(files::ROLES),
            "ghost:\n  cluster: [manage]\n",
        )
        .unwrap();
        users.insert("ann".into(), bcrypt::hash("changed", 4).unwrap());
        files::write_users(dir.path(), &users).unwrap();
        assert!(realm.authenticate("ann", b"secret").is_err());
        let auth = realm.authenticate("ann", b"changed").unwrap();
        assert_eq!(
            auth.cluster("cluster:admin/settings/update"),
            crate::security::role::ClusterDecision::Granted
        );
        // A broken file keeps the previous state.
        std::fs::write(dir.path().join(files::ROLES), "ghost: [[[").unwrap();
        assert!(realm.authenticate("ann", b"changed").is_ok());
        assert!(realm.role("ghost").is_some());
        assert!(FileRealm::open(dir.path(), Duration::ZERO).is_err());
        assert!(FileRealm::open(&dir.path().join("nope"), Duration::ZERO).is_err());
    }
}
