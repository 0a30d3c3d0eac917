//! Embeds the commit the `strata` binary is built from as `STRATA_COMMIT`,
//! which `strata --version` prints and `strata lab` records per run.
//!
//! The commit is `git rev-parse HEAD`, with `-dirty` when a tracked file
//! differs from it (`git status --porcelain --untracked-files=no`), or
//! `unknown` when git is missing or this crate is not tracked by the
//! repository around it (a source tarball unpacked inside some other
//! repository must not take that repository's commit).
//!
//! The script reruns when HEAD, the branch it points to (loose or packed),
//! the index, or a file under the workspace's `crates/` and `vendor/`
//! (or its `Cargo.toml`/`Cargo.lock`) changes: a new commit, a checkout, a
//! staged or an edited source file. It does not rerun on every build, so an
//! edit outside those paths (docs) is not reflected in `-dirty` until one of
//! them changes. Paths come from `git rev-parse --git-path`, which resolves
//! a worktree's HEAD to its own git directory and its branches to the
//! shared one.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let commit = commit(&manifest).unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=STRATA_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    if commit != "unknown" {
        for path in watched(&manifest) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

/// Runs git in `dir` (without taking optional locks, so `status` does not
/// rewrite the index this script watches); its trimmed stdout on success.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("--no-optional-locks")
        .args(args)
        .current_dir(dir)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// HEAD's commit with `-dirty` when tracked files differ; `None` without git
/// or outside a repository that tracks this crate.
fn commit(manifest: &Path) -> Option<String> {
    git(manifest, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let head = git(manifest, &["rev-parse", "--verify", "HEAD"])?;
    if head.len() != 40 || !head.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let status = git(manifest, &["status", "--porcelain", "--untracked-files=no"])?;
    Some(if status.is_empty() {
        head
    } else {
        format!("{head}-dirty")
    })
}

/// The files whose change means the commit (or its dirtiness) may have
/// changed; only those that exist (a missing one would rerun every build).
fn watched(manifest: &Path) -> Vec<PathBuf> {
    let mut git_paths = vec![
        "HEAD".to_owned(),
        "packed-refs".to_owned(),
        "index".to_owned(),
    ];
    if let Some(branch) = git(manifest, &["symbolic-ref", "-q", "HEAD"]) {
        git_paths.push(branch);
    }
    let mut paths: Vec<PathBuf> = git_paths
        .iter()
        .filter_map(|p| git(manifest, &["rev-parse", "--git-path", p]))
        .map(|p| manifest.join(p))
        .collect();
    if let Some(top) = git(manifest, &["rev-parse", "--show-toplevel"]) {
        let top = PathBuf::from(top);
        for name in ["crates", "vendor", "Cargo.toml", "Cargo.lock"] {
            paths.push(top.join(name));
        }
    }
    paths.retain(|p| p.exists());
    paths
}
