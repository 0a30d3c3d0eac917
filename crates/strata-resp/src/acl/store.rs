//! [`Acl`]: the users of the RESP front end, shared by every connection.
//!
//! Users are immutable values behind `Arc`s in a name-ordered map; every
//! change publishes new values under the write lock and then bumps an
//! epoch. A connection caches its user and the epoch it read it at, and
//! compares epochs before each command (one atomic load): a change made by
//! `ACL SETUSER`, `ACL LOAD` or `CONFIG SET requirepass` applies to
//! already-authenticated connections from their next command on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::file;
use super::log::AclLog;
use super::rules::{apply_all, FailedRule};
/// Kept here too: the name check as this module has always offered it.
pub use super::users::valid_username;
use super::users::User;

/// The name of the user every connection starts as.
pub const DEFAULT_USER: &[u8] = b"default";

/// Denials counted for `INFO stats` (`acl_access_denied_*`).
#[derive(Debug, Default)]
pub struct DeniedCounts {
    /// Failed authentications.
    pub auth: AtomicU64,
    /// Refused commands.
    pub command: AtomicU64,
    /// Refused keys.
    pub key: AtomicU64,
}

impl DeniedCounts {
    /// Zeroes the counts (`CONFIG RESETSTAT`).
    pub fn reset(&self) {
        for count in [&self.auth, &self.command, &self.key] {
            count.store(0, Ordering::Relaxed);
        }
    }
}

/// Why an ACL operation on the whole store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `ACL LOAD`/`ACL SAVE` without `aclfile`.
    #[error("no ACL file is configured")]
    NoFile,
    /// `ACL DELUSER default`.
    #[error("the default user cannot be removed")]
    DefaultUser,
    /// The ACL file has errors (every one named with its line).
    #[error("{0}")]
    Load(String),
    /// The ACL file could not be written.
    #[error("cannot save the ACL file: {0}")]
    Save(#[source] std::io::Error),
}

/// The users of the RESP front end.
#[derive(Debug)]
pub struct Acl {
    users: RwLock<BTreeMap<Vec<u8>, Arc<User>>>,
    epoch: AtomicU64,
    /// The default user is `on` and `nopass`: connections need no `AUTH`.
    default_open: AtomicBool,
    generations: AtomicU64,
    file: Option<PathBuf>,
    log: Mutex<AclLog>,
    denied: DeniedCounts,
}

impl Acl {
    /// Only the default user, from `requirepass` (`on nopass ~* &* +@all`
    /// without one).
    pub fn new(requirepass: Option<&str>) -> Self {
        let acl = Self {
            users: RwLock::new(BTreeMap::new()),
            epoch: AtomicU64::new(0),
            default_open: AtomicBool::new(true),
            generations: AtomicU64::new(1),
            file: None,
            log: Mutex::new(AclLog::default()),
            denied: DeniedCounts::default(),
        };
        let default = User::default_user(acl.next_generation(), requirepass);
        acl.publish(|users| {
            users.insert(DEFAULT_USER.to_vec(), Arc::new(default));
        });
        acl
    }

    /// The users of the ACL file at `path` (`aclfile`), which `ACL LOAD` and
    /// `ACL SAVE` then use. A file without a `default` user keeps the one
    /// `requirepass` makes. Errors name every bad line.
    pub fn with_file(path: PathBuf, requirepass: Option<&str>) -> Result<Self, StoreError> {
        let mut acl = Self::new(requirepass);
        acl.file = Some(path);
        acl.load(requirepass)?;
        Ok(acl)
    }

    fn next_generation(&self) -> u64 {
        self.generations.fetch_add(1, Ordering::Relaxed)
    }

    /// Changes the map under the write lock, then bumps the epoch so
    /// connections re-read their user.
    fn publish<R>(&self, change: impl FnOnce(&mut BTreeMap<Vec<u8>, Arc<User>>) -> R) -> R {
        let mut users = self.users.write();
        let result = change(&mut users);
        let open = users
            .get(DEFAULT_USER)
            .is_some_and(|u| u.enabled && u.nopass);
        self.default_open.store(open, Ordering::Release);
        self.epoch.fetch_add(1, Ordering::Release);
        result
    }

    /// Changes each time any user changes.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Whether new connections run commands without authenticating (the
    /// default user is `on` and `nopass`).
    pub fn default_open(&self) -> bool {
        self.default_open.load(Ordering::Acquire)
    }

    /// The ACL file, when one is configured.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The user named `name`.
    pub fn user(&self, name: &[u8]) -> Option<Arc<User>> {
        self.users.read().get(name).cloned()
    }

    /// The default user (it always exists).
    pub fn default_user(&self) -> Arc<User> {
        self.user(DEFAULT_USER)
            .unwrap_or_else(|| Arc::new(User::default_user(0, None)))
    }

    /// Every user, ordered by name.
    pub fn users(&self) -> Vec<Arc<User>> {
        self.users.read().values().cloned().collect()
    }

    /// The user `name` if it is enabled and `password` is one of its
    /// passwords (or it has `nopass`). Every stored hash is compared,
    /// whatever the outcome.
    pub fn authenticate(&self, name: &[u8], password: &[u8]) -> Option<Arc<User>> {
        self.user(name).filter(|user| user.accepts(password))
    }

    /// `ACL SETUSER`: creates `name` if needed and applies `rules` to a copy,
    /// which replaces the user only if every rule applied.
    pub fn set_user<'a>(
        &self,
        name: &[u8],
        rules: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<(), FailedRule> {
        self.publish(|users| {
            let mut user = match users.get(name) {
                Some(existing) => User::clone(existing),
                None => User::new(name, self.next_generation()),
            };
            apply_all(&mut user, rules)?;
            users.insert(name.to_vec(), Arc::new(user));
            Ok(())
        })
    }

    /// `ACL DELUSER`: removes the users named (none if `default` is among
    /// them) and returns those that existed, whose connections the caller
    /// closes.
    pub fn delete_users(&self, names: &[&[u8]]) -> Result<Vec<Arc<User>>, StoreError> {
        if names.contains(&DEFAULT_USER) {
            return Err(StoreError::DefaultUser);
        }
        Ok(self.publish(|users| {
            names
                .iter()
                .filter_map(|name| users.remove(*name))
                .collect()
        }))
    }

    /// `requirepass` changed (`CONFIG SET`): the default user's passwords
    /// become that one, or `nopass` when empty.
    pub fn set_default_password(&self, requirepass: Option<&str>) {
        self.publish(|users| {
            if let Some(default) = users.get_mut(DEFAULT_USER) {
                let mut user = User::clone(default);
                user.set_default_password(requirepass);
                *default = Arc::new(user);
            }
        });
    }

    /// `ACL LOAD`: replaces every user with the file's, all or nothing.
    /// Users that keep their name keep their connections (with the new
    /// permissions); the removed ones are returned so the caller closes
    /// their connections. Without a `default` line the default user is
    /// rebuilt from `requirepass`.
    pub fn load(&self, requirepass: Option<&str>) -> Result<Vec<Arc<User>>, StoreError> {
        let path = self.file.as_deref().ok_or(StoreError::NoFile)?;
        let loaded = file::read(path).map_err(StoreError::Load)?;
        Ok(self.publish(|users| {
            let mut fresh = BTreeMap::new();
            for mut user in loaded {
                user.generation = match users.get(&user.name) {
                    Some(old) => old.generation,
                    None => self.next_generation(),
                };
                fresh.insert(user.name.clone(), Arc::new(user));
            }
            if !fresh.contains_key(DEFAULT_USER) {
                let generation = users
                    .get(DEFAULT_USER)
                    .map_or_else(|| self.next_generation(), |u| u.generation);
                let default = User::default_user(generation, requirepass);
                fresh.insert(DEFAULT_USER.to_vec(), Arc::new(default));
            }
            let old = std::mem::replace(users, fresh);
            old.into_iter()
                .filter(|(name, _)| !users.contains_key(name))
                .map(|(_, user)| user)
                .collect()
        }))
    }

    /// `ACL SAVE`: writes every user to the ACL file (atomically).
    pub fn save(&self) -> Result<(), StoreError> {
        let path = self.file.as_deref().ok_or(StoreError::NoFile)?;
        // Rendered under the read lock, written after it is released.
        let text = file::render(self.users.read().values().map(|u| &**u));
        file::write(path, &text).map_err(StoreError::Save)
    }

    /// Whether the RESP port asks for credentials: the default user is not
    /// open, or some user has a password.
    pub fn requires_auth(&self) -> bool {
        !self.default_open() || self.users.read().values().any(|u| !u.passwords.is_empty())
    }

    /// The denial log (`ACL LOG`).
    pub fn log(&self) -> &Mutex<AclLog> {
        &self.log
    }

    /// Denial counts (`INFO stats`).
    pub fn denied(&self) -> &DeniedCounts {
        &self.denied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_user_follows_requirepass() {
        let acl = Acl::new(None);
        assert!(acl.default_open() && !acl.requires_auth());
        let epoch = acl.epoch();
        acl.set_default_password(Some("pw"));
        assert!(acl.epoch() > epoch);
        assert!(!acl.default_open() && acl.requires_auth());
        assert!(acl.authenticate(b"default", b"pw").is_some());
        assert!(acl.authenticate(b"default", b"no").is_none());
        acl.set_default_password(Some(""));
        assert!(acl.default_open());
    }

    #[test]
    fn set_user_is_all_or_nothing() {
        let acl = Acl::new(None);
        acl.set_user(b"alice", [&b"on"[..], b">pw"]).unwrap();
        let generation = acl.user(b"alice").unwrap().generation;
        let failed = acl
            .set_user(b"alice", [&b"off"[..], b"+nosuch"])
            .unwrap_err();
        assert_eq!(failed.rule, b"+nosuch");
        let alice = acl.user(b"alice").unwrap();
        assert!(alice.enabled, "the failed SETUSER changed nothing");
        assert_eq!(alice.generation, generation);
        assert!(
            acl.requires_auth(),
            "a user with a password protects the port"
        );
    }

    #[test]
    fn delete_users() {
        let acl = Acl::new(None);
        acl.set_user(b"a", [&b"on"[..]]).unwrap();
        assert!(matches!(
            acl.delete_users(&[b"a", b"default"]),
            Err(StoreError::DefaultUser)
        ));
        assert!(acl.user(b"a").is_some());
        let removed = acl.delete_users(&[b"a", b"nosuch"]).unwrap();
        assert_eq!(removed.len(), 1);
        acl.set_user(b"a", [&b"on"[..]]).unwrap();
        assert_ne!(acl.user(b"a").unwrap().generation, removed[0].generation);
    }

    #[test]
    fn load_keeps_survivors_and_reports_the_removed() {
        let dir = std::env::temp_dir().join(format!("strata-acl-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("users.acl");
        std::fs::write(&path, "user alice on >a ~* +@all\nuser bob on >b\n").unwrap();
        let acl = Acl::with_file(path.clone(), Some("secret")).unwrap();
        assert!(acl.authenticate(b"default", b"secret").is_some());
        let alice = acl.user(b"alice").unwrap().generation;
        std::fs::write(
            &path,
            "user alice on >a2\nuser default on nopass ~* +@all\n",
        )
        .unwrap();
        let removed = acl.load(Some("secret")).unwrap();
        assert_eq!(
            removed.iter().map(|u| &u.name[..]).collect::<Vec<_>>(),
            [b"bob"]
        );
        assert_eq!(acl.user(b"alice").unwrap().generation, alice);
        assert!(acl.authenticate(b"alice", b"a2").is_some());
        assert!(acl.default_open());
        std::fs::write(&path, "user alice on +nosuch\n").unwrap();
        let err = acl.load(None).unwrap_err().to_string();
        assert!(
            err.contains("users.acl:1: Error in applying operation '+nosuch'"),
            "{err}"
        );
        assert!(acl.user(b"alice").is_some(), "a bad file changes nothing");
        acl.set_user(b"carol", [&b"on"[..], b">c"]).unwrap();
        acl.save().unwrap();
        let saved = std::fs::read_to_string(&path).unwrap();
        assert!(saved.contains("user carol on #"), "{saved}");
        assert!(!saved.contains(">c"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
