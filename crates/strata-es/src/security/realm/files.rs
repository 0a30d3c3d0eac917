//! The file realm's files, in Elasticsearch's formats, in one directory:
//!
//! - `users`: one `username:hash` line per user; the hash is bcrypt
//!   (`$2a$`, `$2b$` or `$2y$`). Empty lines and `#` comments are skipped.
//! - `users_roles`: one `role:user1,user2` line per role.
//! - `roles.yml`: role names mapped to role descriptors.
//!
//! A missing file is empty. Reading is strict (a malformed line or role is
//! an error naming the file and line), so a typo never silently locks a
//! user out or grants nothing. Writing (for `strata users`) replaces a file
//! atomically with owner-only permissions through strata-device's
//! [`Directory::replace_with_permissions`], which the power-cut and fault
//! directories test.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use strata_device::{Directory, FsDirectory, SyncMode};

use crate::security::role::{self, Role};

/// File names inside the realm directory.
pub const USERS: &str = "users";
/// See the module docs.
pub const USERS_ROLES: &str = "users_roles";
/// See the module docs.
pub const ROLES: &str = "roles.yml";

/// Users and their password hashes, by name.
pub type Users = BTreeMap<String, String>;
/// Roles and their users, by role name.
pub type UsersRoles = BTreeMap<String, Vec<String>>;

/// Checks a user name as Elasticsearch does: 1 to 1024 printable ASCII
/// characters, no leading or trailing space, and no `:` (the separator).
pub fn validate_username(name: &str) -> Result<(), String> {
    let printable = name.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b':');
    if name.is_empty() || name.len() > 1024 || !printable || name.trim() != name {
        return Err(format!(
            "invalid user name [{name}]: 1 to 1024 printable ASCII characters without ':' and without leading or trailing spaces"
        ));
    }
    Ok(())
}

/// Whether `hash` is a bcrypt hash this realm verifies.
pub fn is_bcrypt(hash: &str) -> bool {
    ["$2a$", "$2b$", "$2y$"].iter().any(|p| hash.starts_with(p)) && hash.len() == 60
}

fn read(path: &Path) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Meaningful lines: (1-based number, trimmed text).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// Reads `<dir>/users`.
pub fn read_users(dir: &Path) -> Result<Users, String> {
    let path = dir.join(USERS);
    let mut users = Users::new();
    for (n, line) in lines(&read(&path)?) {
        let at = || format!("{}:{n}", path.display());
        let (name, hash) = line
            .split_once(':')
            .ok_or_else(|| format!("{}: expected username:hash", at()))?;
        validate_username(name).map_err(|e| format!("{}: {e}", at()))?;
        if !is_bcrypt(hash) {
            return Err(format!(
                "{}: the password hash of user [{name}] is not bcrypt ($2a$, $2b$ or $2y$)",
                at()
            ));
        }
        users.insert(name.to_string(), hash.to_string());
    }
    Ok(users)
}

/// Reads `<dir>/users_roles`.
pub fn read_users_roles(dir: &Path) -> Result<UsersRoles, String> {
    let path = dir.join(USERS_ROLES);
    let mut roles = UsersRoles::new();
    for (n, line) in lines(&read(&path)?) {
        let (role, users) = line
            .split_once(':')
            .ok_or_else(|| format!("{}:{n}: expected role:user1,user2", path.display()))?;
        let role = role.trim();
        if role.is_empty() {
            return Err(format!("{}:{n}: empty role name", path.display()));
        }
        let entry = roles.entry(role.to_string()).or_default();
        for user in users.split(',').map(str::trim).filter(|u| !u.is_empty()) {
            validate_username(user).map_err(|e| format!("{}:{n}: {e}", path.display()))?;
            if !entry.iter().any(|u| u == user) {
                entry.push(user.to_string());
            }
        }
    }
    Ok(roles)
}

/// Reads and compiles `<dir>/roles.yml`. A role may not redefine a
/// built-in one.
pub fn read_roles(dir: &Path) -> Result<HashMap<String, Arc<Role>>, String> {
    let path = dir.join(ROLES);
    let text = read(&path)?;
    let doc: Value = if text.trim().is_empty() {
        Value::Null
    } else {
        serde_yaml_ng::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?
    };
    let mut roles = HashMap::new();
    match doc {
        Value::Null => {}
        Value::Object(map) => {
            for (name, body) in map {
                if role::is_builtin(&name) {
                    return Err(format!(
                        "{}: role [{name}] is built in and cannot be redefined",
                        path.display()
                    ));
                }
                let compiled =
                    Role::parse(&name, &body).map_err(|e| format!("{}: {e}", path.display()))?;
                roles.insert(name, Arc::new(compiled));
            }
        }
        _ => {
            return Err(format!(
                "{}: expected a mapping of role names",
                path.display()
            ))
        }
    }
    Ok(roles)
}

/// Replaces `<dir>/users` with `users`.
pub fn write_users(dir: &Path, users: &Users) -> Result<(), String> {
    replace(&dir.join(USERS), users_text(users).as_bytes())
}

/// The `users` file's text.
fn users_text(users: &Users) -> String {
    users.iter().map(|(u, h)| format!("{u}:{h}\n")).collect()
}

/// Replaces `<dir>/users_roles` with `roles` (roles without users are
/// left out).
pub fn write_users_roles(dir: &Path, roles: &UsersRoles) -> Result<(), String> {
    let text: String = roles
        .iter()
        .filter(|(_, users)| !users.is_empty())
        .map(|(r, users)| format!("{r}:{}\n", users.join(",")))
        .collect();
    replace(&dir.join(USERS_ROLES), text.as_bytes())
}

/// Writes `bytes` to `path` atomically and durably, readable by the
/// owner only, through a [`FsDirectory`] on the realm directory (which
/// must exist).
fn replace(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Err(fail(std::io::ErrorKind::InvalidInput.into()));
    };
    // `FsDirectory::open` would create a missing directory; writing into
    // one fails instead, as it always has.
    std::fs::metadata(dir).map_err(fail)?;
    let dir = FsDirectory::open(dir, SyncMode::Fdatasync).map_err(fail)?;
    replace_in(&dir, name, bytes).map_err(fail)
}

/// Replaces the device `name` of `dir` with `bytes` (mode 0600) by the
/// directory's atomic replace: after a power cut or a failed write the
/// file is its old or its new content, whole.
fn replace_in(dir: &dyn Directory, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    dir.replace_with_permissions(name, bytes, 0o600)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use strata_device::{Faults, FaultyDirectory, MemDirectory};

    use super::*;

    const HASH: &str = "$2a$04$abcdefghijklmnopqrstuuHZ8s2TyIYwn7FQxGv3XWr3z8iN.p3Gy";

    #[test]
    fn users_and_roles_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_users(dir.path()).unwrap().is_empty());
        let mut users = Users::new();
        users.insert("ann".into(), HASH.into());
        users.insert("bob smith".into(), HASH.replace("$2a$", "$2y$"));
        write_users(dir.path(), &users).unwrap();
        assert_eq!(read_users(dir.path()).unwrap(), users);
        let mut roles = UsersRoles::new();
        roles.insert("superuser".into(), vec!["ann".into()]);
        roles.insert("viewer".into(), vec!["ann".into(), "bob smith".into()]);
        roles.insert("empty".into(), vec![]);
        write_users_roles(dir.path(), &roles).unwrap();
        roles.remove("empty");
        assert_eq!(read_users_roles(dir.path()).unwrap(), roles);
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(USERS),
            format!("# admins\n\nann:{HASH}\nbob\n"),
        )
        .unwrap();
        let e = read_users(dir.path()).unwrap_err();
        assert!(e.ends_with("users:4: expected username:hash"), "{e}");
        std::fs::write(dir.path().join(USERS), "ann:{PBKDF2}abc\n").unwrap();
        assert!(read_users(dir.path()).unwrap_err().contains("not bcrypt"));
        std::fs::write(dir.path().join(USERS_ROLES), "viewer ann\n").unwrap();
        assert!(read_users_roles(dir.path()).is_err());
        std::fs::write(dir.path().join(USERS_ROLES), "viewer: ann , bob,\n").unwrap();
        assert_eq!(
            read_users_roles(dir.path()).unwrap()["viewer"],
            ["ann", "bob"]
        );
    }

    #[test]
    fn roles_yml() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_roles(dir.path()).unwrap().is_empty());
        std::fs::write(
            dir.path().join(ROLES),
            "logs_writer:\n  cluster: ['monitor']\n  indices:\n    - names: ['logs-*']\n      privileges: ['write', 'create_index']\n      allow_restricted_indices: false\nadmin:\n  cluster: [all]\n",
        )
        .unwrap();
        let roles = read_roles(dir.path()).unwrap();
        assert!(roles["logs_writer"].index("indices:admin/create", "logs-a"));
        assert!(!roles["logs_writer"].index("indices:admin/create", "other"));
        std::fs::write(dir.path().join(ROLES), "superuser:\n  cluster: [none]\n").unwrap();
        assert!(read_roles(dir.path()).unwrap_err().contains("built in"));
        std::fs::write(
            dir.path().join(ROLES),
            "bad:\n  indices: [{names: [a], privileges: [frob]}]\n",
        )
        .unwrap();
        assert!(read_roles(dir.path())
            .unwrap_err()
            .contains("unknown index privilege [frob]"));
        std::fs::write(dir.path().join(ROLES), "- a\n").unwrap();
        assert!(read_roles(dir.path()).is_err());
    }

    #[test]
    fn written_files_are_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(USERS);
        std::fs::write(&path, "").unwrap();
        let users = Users::from([("ann".to_string(), HASH.to_string())]);
        write_users(dir.path(), &users).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let missing = dir.path().join("absent");
        assert!(write_users(&missing, &users).is_err());
        assert!(!missing.exists(), "no directory created");
    }

    /// After a power cut: the old `users` file or the new one, whole and
    /// owner-only.
    fn assert_old_or_new(dir: &MemDirectory, old: &[u8], new: &[u8], ok: bool) {
        let got = dir.read_all(USERS).unwrap();
        assert!(got == old || got == new, "torn: {got:?}");
        if ok {
            assert_eq!(got, new, "a successful update was lost");
        }
        assert_eq!(dir.permissions(USERS).unwrap(), 0o600);
    }

    #[test]
    fn a_power_cut_or_a_failing_device_leaves_a_whole_file() {
        let ann = Users::from([("ann".to_string(), HASH.to_string())]);
        let mut both = ann.clone();
        both.insert("bob".into(), HASH.replace("$2a$", "$2b$"));
        let (old, new) = (users_text(&ann), users_text(&both));
        for inject in [
            (|f: &Faults, k| f.fail_syncs_after(k)) as fn(&Faults, u64),
            |f, k| f.fail_writes_after(k),
            |f, k| {
                f.fail_writes_after(k + 1);
                f.tear_next_write(9);
            },
        ] {
            for k in 0..3 {
                let mem = MemDirectory::new();
                replace_in(&mem, USERS, old.as_bytes()).unwrap();
                let faulty = FaultyDirectory::new(Arc::new(mem.clone()));
                inject(&faulty.faults(), k);
                let ok = replace_in(&faulty, USERS, new.as_bytes()).is_ok();
                let (old, new) = (old.as_bytes(), new.as_bytes());
                assert_old_or_new(&mem.crash(), old, new, ok);
                for seed in 0..8 {
                    assert_old_or_new(&mem.crash_torn(seed), old, new, ok);
                }
            }
        }
    }

    #[test]
    fn a_failing_write_fails_the_update_and_keeps_the_old_file() {
        let mem = MemDirectory::new();
        replace_in(&mem, USERS, b"old").unwrap();
        let faulty = FaultyDirectory::new(Arc::new(mem.clone()));
        faulty.faults().fail_writes_after(0);
        assert!(replace_in(&faulty, USERS, b"new").is_err());
        assert_eq!(mem.read_all(USERS).unwrap(), b"old");
        assert_eq!(mem.crash().read_all(USERS).unwrap(), b"old");
    }
}
