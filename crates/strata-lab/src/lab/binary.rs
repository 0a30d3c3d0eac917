//! The Strata executable a lab run measures, as it describes itself.
//!
//! A run is measured by one `strata` binary: the one given by
//! `--server-binary` for the experiments that serve with a child process,
//! else the lab's own executable (which also runs the in-process
//! experiments). The lab asks it `<binary> --version` and records the
//! commit it names (`strata 0.1.0 (commit <hash>[-dirty])`, embedded by the
//! `strata` crate's `build.rs`), so a run measured with an older release
//! binary is labelled with that binary's commit rather than the checkout's
//! HEAD. A binary that names no commit (built before commits were embedded,
//! or without git) is recorded as such, never given the checkout's commit.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How long a binary may take to answer `--version` before it is killed.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The measuring binary as recorded in `results.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binary {
    /// Its path.
    pub path: String,
    /// The first line of its `--version` output; `None` when it could not be
    /// asked (`error` says why).
    pub version_line: Option<String>,
    /// The commit it was built from (full hash, `-dirty` when built from a
    /// modified tree); `None` when its version line names none.
    pub commit: Option<String>,
    /// Why `--version` could not be asked, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Binary {
    /// Asks `path` (default: this executable) for its version.
    pub fn ask(path: Option<&Path>) -> Self {
        let path = match path {
            Some(p) => p.to_owned(),
            None => match std::env::current_exe() {
                Ok(p) => p,
                Err(e) => return Self::unanswered("this executable", format!("not found: {e}")),
            },
        };
        let shown = path.display().to_string();
        match version_line(&path) {
            Ok(line) => Self {
                path: shown,
                commit: commit_of(&line),
                version_line: Some(line),
                error: None,
            },
            Err(why) => Self::unanswered(&shown, why),
        }
    }

    fn unanswered(path: &str, why: String) -> Self {
        Self {
            path: path.to_owned(),
            version_line: None,
            commit: None,
            error: Some(why),
        }
    }

    /// The commit as a table cell shows it: 7 hex digits (and `-dirty`), or
    /// `unknown` when the binary named none.
    pub fn label(&self) -> String {
        self.commit.as_deref().map_or("unknown".into(), short)
    }
}

/// `hash[-dirty]` shortened to 7 hex digits, the suffix kept.
pub fn short(commit: &str) -> String {
    let (hash, dirty) = match commit.strip_suffix("-dirty") {
        Some(hash) => (hash, "-dirty"),
        None => (commit, ""),
    };
    format!("{}{dirty}", hash.chars().take(7).collect::<String>())
}

/// The commit a `--version` line names: the word after `(commit ` up to
/// `)`, when it is a hex hash (`unknown` and anything else name none).
pub fn commit_of(line: &str) -> Option<String> {
    let rest = &line[line.find("(commit ")? + "(commit ".len()..];
    let commit = rest[..rest.find(')')?].trim();
    let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
    (hash.len() >= 7 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then(|| commit.to_owned())
}

/// The first line `<path> --version` prints on stdout, within
/// [`ANSWER_TIMEOUT`] (a binary that does not answer is killed).
fn version_line(path: &Path) -> Result<String, String> {
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("running it with --version: {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < ANSWER_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "no answer to --version in {} s",
                    ANSWER_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Err(format!("waiting for it: {e}")),
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    if !status.success() {
        return Err(format!("--version failed: {status}"));
    }
    out.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| "--version printed nothing".into())
}

#[cfg(test)]
mod tests {
    use super::{commit_of, short};

    #[test]
    fn reads_the_commit_of_a_version_line() {
        let hash = "0123456789abcdef0123456789abcdef01234567";
        let line = format!("strata 0.1.0 (commit {hash})");
        assert_eq!(commit_of(&line).as_deref(), Some(hash));
        let dirty = format!("strata-serve 0.1.0 (commit {hash}-dirty)");
        assert_eq!(commit_of(&dirty), Some(format!("{hash}-dirty")));
        assert_eq!(commit_of("strata 0.1.0 (commit unknown)"), None);
        assert_eq!(commit_of("strata 0.1.0"), None);
        assert_eq!(commit_of("strata 0.1.0 (commit 0123"), None);
        assert_eq!(short(hash), "0123456");
        assert_eq!(short(&format!("{hash}-dirty")), "0123456-dirty");
    }
}
