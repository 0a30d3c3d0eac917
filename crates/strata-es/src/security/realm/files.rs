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
//! atomically (temporary file, fsync, rename, directory fsync) with
//! owner-only permissions.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

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
    let text: String = users.iter().map(|(u, h)| format!("{u}:{h}\n")).collect();
    replace(&dir.join(USERS), text.as_bytes())
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
/// owner only.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp: PathBuf = path.with_extension("tmp");
    let fail = |what: &str, e: std::io::Error| format!("cannot {what} {}: {e}", tmp.display());
    {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut f = options.open(&tmp).map_err(|e| fail("create", e))?;
        f.write_all(bytes).map_err(|e| fail("write", e))?;
        f.sync_all().map_err(|e| fail("sync", e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| fail("rename", e))?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| format!("cannot sync {}: {e}", dir.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
}
