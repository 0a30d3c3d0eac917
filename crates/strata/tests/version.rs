//! `strata --version` names the commit the binary was built from (the
//! crate's `build.rs`): the checkout's HEAD when built in one, which is what
//! `strata lab` reads to label a run with the binary that measured it.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[test]
fn version_names_the_build_commit() {
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("--version")
        .output()
        .expect("strata runs");
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    let line = line.trim();
    let prefix = format!("strata {} (commit ", env!("CARGO_PKG_VERSION"));
    let commit = line
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line:?} is not {prefix}<commit>)"));
    assert_eq!(
        strata_lab::lab::binary::commit_of(line).as_deref(),
        (commit != "unknown").then_some(commit),
        "the lab must read what the binary prints"
    );
    // Built in a checkout (tests run from one): its HEAD, perhaps -dirty.
    if let Some(head) = git(&["rev-parse", "HEAD"]) {
        let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
        assert_eq!(hash, head, "{line}");
    }
}
