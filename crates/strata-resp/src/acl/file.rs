//! The ACL file (`aclfile`), in Redis's format: one `user <name> <rules>`
//! line per user, blank lines ignored, passwords as `#<sha256>` (or
//! `>clear-text`, hashed when read).
//!
//! Reading checks every line and reports every problem, each naming the
//! file and line, so a bad file is refused as a whole (at start or by
//! `ACL LOAD`). Writing (`ACL SAVE`) replaces the file atomically through
//! strata-device's [`Directory::replace_with_permissions`] (a temporary
//! written and synced, renamed over it, the names synced), so the power-cut
//! and fault directories test it as they test the log. The file is small and written rarely, so this I/O
//! runs on the calling thread.

use std::fs;
use std::io;
use std::path::Path;

use strata_device::{Directory, FsDirectory, SyncMode};

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

/// Replaces the file at `path` with `text`, atomically and durably,
/// through a [`FsDirectory`] on its directory (which must exist).
pub fn write(path: &Path, text: &[u8]) -> io::Result<()> {
    let (dir, name) = crate::file_path::split(path)?;
    // `FsDirectory::open` would create a missing directory; a save into
    // one fails instead, as it always has.
    if !fs::metadata(dir)?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a directory",
        ));
    }
    write_to(&FsDirectory::open(dir, SyncMode::Fdatasync)?, name, text)
}

/// Replaces the device `name` of `dir` with `text` by the directory's
/// atomic replace. The new file keeps the old one's permissions
/// (owner-only when new: it holds password hashes). On an error the old
/// file is whole: in place, or back after a power cut.
pub fn write_to(dir: &dyn Directory, name: &str, text: &[u8]) -> io::Result<()> {
    let mode = match dir.permissions(name) {
        Ok(mode) => mode,
        Err(err) if err.kind() == io::ErrorKind::NotFound => 0o600,
        Err(err) => return Err(err),
    };
    dir.replace_with_permissions(name, text, mode)
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
    use std::os::unix::fs::PermissionsExt;
    use std::sync::Arc;

    use strata_device::{Faults, FaultyDirectory, MemDirectory};

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

    #[test]
    fn save_keeps_the_old_files_permissions() {
        let dir = std::env::temp_dir().join(format!("strata-acl-mode-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("users.acl");
        fs::write(&path, b"user default on nopass ~* &* +@all\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write(&path, &render([&User::default_user(0, Some("pw"))])).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        assert!(read(&path).unwrap()[0].accepts(b"pw"));
        let missing = dir.join("no/such/dir/users.acl");
        assert!(write(&missing, b"").is_err());
        assert!(!dir.join("no").exists(), "no directory created");
        fs::remove_dir_all(&dir).unwrap();
    }

    const OLD: &[u8] = b"user default on nopass ~* &* +@all\n";

    /// The text a save writes: the default user with a password, and alice.
    fn new_text() -> Vec<u8> {
        let mut alice = User::new(b"alice", 0);
        apply_all(&mut alice, [&b"on"[..], b">pw", b"~a:*", b"+get"]).unwrap();
        render([&User::default_user(0, Some("secret")), &alice])
    }

    /// After a power cut: the old file (0644) or the new one, whole, with
    /// the old file's bits.
    fn assert_old_or_new(dir: &MemDirectory, new: &[u8], ok: bool) {
        let got = dir.read_all("users.acl").unwrap();
        assert!(got == OLD || got == new, "torn: {got:?}");
        if ok {
            assert_eq!(got, new, "a successful save was lost");
        }
        assert_eq!(dir.permissions("users.acl").unwrap(), 0o640);
        assert!(parse(&got, Path::new("users.acl")).is_ok());
    }

    #[test]
    fn a_power_cut_or_a_failing_device_leaves_a_whole_file() {
        let new = new_text();
        for inject in [
            (|f: &Faults, k| f.fail_syncs_after(k)) as fn(&Faults, u64),
            |f, k| f.fail_writes_after(k),
            |f, k| {
                f.fail_writes_after(k + 1);
                f.tear_next_write(7);
            },
            |_, _| {},
        ] {
            for k in 0..3 {
                let mem = MemDirectory::new();
                mem.replace_with_permissions("users.acl", OLD, 0o640)
                    .unwrap();
                let faulty = FaultyDirectory::new(Arc::new(mem.clone()));
                inject(&faulty.faults(), k);
                let ok = write_to(&faulty, "users.acl", &new).is_ok();
                assert_old_or_new(&mem.crash(), &new, ok);
                for seed in 0..8 {
                    assert_old_or_new(&mem.crash_torn(seed), &new, ok);
                }
            }
        }
    }

    #[test]
    fn a_failing_write_fails_the_save_and_keeps_the_old_file() {
        let mem = MemDirectory::new();
        mem.replace_with_permissions("users.acl", OLD, 0o600)
            .unwrap();
        let faulty = FaultyDirectory::new(Arc::new(mem.clone()));
        faulty.faults().fail_writes_after(0);
        assert!(write_to(&faulty, "users.acl", &new_text()).is_err());
        assert_eq!(mem.read_all("users.acl").unwrap(), OLD);
        assert_eq!(mem.crash().read_all("users.acl").unwrap(), OLD);
        // A new file is owner-only.
        write_to(&mem, "fresh.acl", OLD).unwrap();
        assert_eq!(mem.permissions("fresh.acl").unwrap(), 0o600);
    }
}
