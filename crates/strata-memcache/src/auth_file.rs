//! The authentication file of memcached's ASCII authentication (`-Y`):
//! one `user:password` per line. Strata keeps only the SHA-256 of each
//! user name and password and compares them in time that does not depend
//! on which entry, or which byte, differs.
//!
//! Stricter than memcached in two ways, both naming the file and line at
//! start: an entry with an empty user or password, or with a space in
//! either, is refused (the client sends them separated by a space, so such
//! an entry could never log in); blank lines and a trailing `\r` are
//! ignored instead of refused.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Why the file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthFileError {
    /// The file could not be read.
    #[error("cannot read memcache_auth_file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a usable `user:password` entry.
    #[error("{}:{line}: malformed entry, should be 'user:password' (non-empty, without spaces)", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// Its 1-based line number.
        line: usize,
    },
    /// The file has no entries: nobody could log in.
    #[error("{} has no 'user:password' entries", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

type Digest32 = [u8; 32];

fn digest(bytes: &[u8]) -> Digest32 {
    Sha256::digest(bytes).into()
}

fn same(a: &Digest32, b: &Digest32) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The credentials clients may log in with.
#[derive(Debug)]
pub struct AuthFile {
    path: PathBuf,
    /// `(SHA-256 of the user, SHA-256 of the password)`; a user may have
    /// several passwords, as in memcached.
    entries: Vec<(Digest32, Digest32)>,
}

impl AuthFile {
    /// Reads the file at `path`.
    pub fn load(path: &Path) -> Result<Self, AuthFileError> {
        let text = std::fs::read(path).map_err(|source| AuthFileError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses file `text` (`path` names it in errors and `stats settings`).
    pub fn parse(text: &[u8], path: &Path) -> Result<Self, AuthFileError> {
        let mut entries = Vec::new();
        for (index, line) in text.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            let malformed = || AuthFileError::Malformed {
                path: path.to_owned(),
                line: index + 1,
            };
            let colon = line.iter().position(|&b| b == b':').ok_or_else(malformed)?;
            let (user, password) = (&line[..colon], &line[colon + 1..]);
            let usable = |part: &[u8]| !part.is_empty() && !part.contains(&b' ');
            if !usable(user) || !usable(password) {
                return Err(malformed());
            }
            entries.push((digest(user), digest(password)));
        }
        if entries.is_empty() {
            return Err(AuthFileError::Empty {
                path: path.to_owned(),
            });
        }
        Ok(Self {
            path: path.to_owned(),
            entries,
        })
    }

    /// The file's path (`stats settings` reports it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `user` with `password` is an entry. Every entry is compared.
    pub fn check(&self, user: &[u8], password: &[u8]) -> bool {
        let (user, password) = (digest(user), digest(password));
        self.entries.iter().fold(false, |found, (u, p)| {
            (same(u, &user) & same(p, &password)) | found
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_checks() {
        let file = AuthFile::parse(
            b"alice:secret\r\n\nbob:pw:with:colons\nalice:second\n",
            Path::new("auth"),
        )
        .unwrap();
        assert!(file.check(b"alice", b"secret"));
        assert!(file.check(b"alice", b"second"));
        assert!(file.check(b"bob", b"pw:with:colons"));
        assert!(!file.check(b"alice", b"pw:with:colons"));
        assert!(!file.check(b"carol", b"secret"));
        assert!(!file.check(b"", b""));
    }

    #[test]
    fn malformed_lines_are_named() {
        for (text, line) in [
            (&b"alice:x\nnocolon\n"[..], 2),
            (b":empty\n", 1),
            (b"bob:\n", 1),
            (b"a b:c\n", 1),
            (b"ok:1\n\nc:d e\n", 3),
        ] {
            let err = AuthFile::parse(text, Path::new("/etc/mc.auth")).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("/etc/mc.auth:{line}: malformed entry, should be 'user:password' (non-empty, without spaces)")
            );
        }
        assert!(matches!(
            AuthFile::parse(b"\n\n", Path::new("x")),
            Err(AuthFileError::Empty { .. })
        ));
        assert!(matches!(
            AuthFile::load(Path::new("/nonexistent/strata/auth")),
            Err(AuthFileError::Read { .. })
        ));
    }
}
