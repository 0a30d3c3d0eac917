//! The ACL file (`aclfile`), in Redis's format: one `user <name> <rules>`
//! line per user, blank lines ignored, passwords as `#<sha256>` (or
//! `>clear-text`, hashed when read).
//!
//! Reading checks every line and reports every problem, each naming the
//! file and line, so a bad file is refused as a whole (at start or by
//! `ACL LOAD`). Writing (`ACL SAVE`) replaces the file atomically: a
//! temporary file beside it is written and synced, renamed over it, and
//! the directory synced. The file is small and written rarely, so this I/O
//! runs on the calling thread.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use super::rules::apply_all;
use super::users::{valid_username, User};

/// Reads and parses the ACL file at `path`. Users come back with
/// generation 0 (the store assigns them).
pub fn read(path: &Path) -> Result<Vec<User>, String> {
    let text = fs::read(path).map_err(|err| {
        format!(
            "Error loading ACLs, opening file '{}': {}",
            path.display(),
            io_text(&err)
        )
    })?;
    parse(&text, path)
}

/// Parses ACL file `text` (`path` only names it in errors): every user, or
/// every problem found, each sentence naming its line.
pub fn parse(text: &[u8], path: &Path) -> Result<Vec<User>, String> {
    let mut users: Vec<User> = Vec::new();
    let mut errors = String::new();
    for (index, line) in text.split(|&b| b == b'\n').enumerate() {
        let number = index + 1;
        let words: Vec<&[u8]> = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        let Some((&keyword, rest)) = words.split_first() else {
            continue;
        };
        let Some((&name, rules)) = rest.split_first().filter(|_| keyword == b"user") else {
            errors.push_str(&format!(
                "{}:{number} should start with user keyword followed by the username. ",
                path.display()
            ));
            continue;
        };
        if !valid_username(name) {
            errors.push_str(&format!(
                "{}:{number}: Usernames can't contain spaces or null characters. ",
                path.display()
            ));
            continue;
        }
        if users.iter().any(|u| u.name == name) {
            errors.push_str(&format!(
                "WARNING: Duplicate user '{}' found on line {number}. ",
                String::from_utf8_lossy(name)
            ));
            continue;
        }
        let mut user = User::new(name, 0);
        match apply_all(&mut user, rules.iter().copied()) {
            Ok(()) => users.push(user),
            Err(failed) => errors.push_str(&format!(
                "{}:{number}: Error in applying operation '{}': {}. ",
                path.display(),
                String::from_utf8_lossy(&failed.rule),
                failed.error
            )),
        }
    }
    if errors.is_empty() {
        Ok(users)
    } else {
        Err(errors.trim_end().to_string())
    }
}

/// The file's text for `users`: one description line each.
pub fn render<'a>(users: impl IntoIterator<Item = &'a User>) -> Vec<u8> {
    let mut text = Vec::new();
    for user in users {
        text.extend_from_slice(&user.describe());
        text.push(b'\n');
    }
    text
}

/// Replaces the file at `path` with `text`, atomically and durably. The
/// new file keeps the old one's permissions (owner-only when new: it holds
/// password hashes).
pub fn write(path: &Path, text: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let mode = fs::metadata(path).map_or(0o600, |m| m.permissions().mode() & 0o7777);
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(&tmp)?;
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        file.write_all(text)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    File::open(dir)?.sync_all()
}

/// An I/O error's text without Rust's ` (os error N)` suffix.
fn io_text(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_users_and_skips_blank_lines() {
        let text =
            b"user alice on >pw ~cache:* +@read\n\n  \r\nuser default on nopass ~* &* +@all\r\n";
        let users = parse(text, Path::new("users.acl")).unwrap();
        assert_eq!(users.len(), 2);
        assert!(users[0].accepts(b"pw"));
        assert_eq!(
            String::from_utf8(users[1].describe()).unwrap(),
            "user default on nopass ~* &* +@all"
        );
    }

    #[test]
    fn every_bad_line_is_named() {
        let text = b"user alice on >pw ~* +@all\nuser alice on\nfoo bar\nuser bob +nosuch\nuser\nuser c on foo";
        let err = parse(text, Path::new("/etc/users.acl")).unwrap_err();
        assert_eq!(
            err,
            "WARNING: Duplicate user 'alice' found on line 2. \
             /etc/users.acl:3 should start with user keyword followed by the username. \
             /etc/users.acl:4: Error in applying operation '+nosuch': Unknown command or category name in ACL. \
             /etc/users.acl:5 should start with user keyword followed by the username. \
             /etc/users.acl:6: Error in applying operation 'foo': Syntax error."
        );
    }

    #[test]
    fn saves_atomically_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("strata-acl-file-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("users.acl");
        let mut alice = User::new(b"alice", 0);
        apply_all(
            &mut alice,
            [&b"on"[..], b">pw", b"%R~r:*", b"+@read", b"-get"],
        )
        .unwrap();
        let default = User::default_user(0, Some("secret"));
        write(&path, &render([&default, &alice])).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back[0].describe(), default.describe());
        assert_eq!(back[1].describe(), alice.describe());
        assert!(back[1].accepts(b"pw"));
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let leftovers = fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file left behind");
        assert!(read(&dir.join("missing.acl"))
            .unwrap_err()
            .ends_with("missing.acl': No such file or directory"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
