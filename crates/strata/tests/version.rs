//! `strata --version` names the commit the binary was built from (the
//! crate's `build.rs`): the checkout's HEAD when built in one, which is what
//! `strata lab` reads to label a run with the binary that measured it; a
//! running server reports the same commit on every front end.

use crate::support;

use std::process::Command;

use support::{http, Raw, Server};

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

/// What `strata --version` prints, and the commit in it.
fn version_line() -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("--version")
        .output()
        .expect("strata runs");
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let prefix = format!("strata {} (commit ", env!("CARGO_PKG_VERSION"));
    let commit = line
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line:?} is not {prefix}<commit>)"))
        .to_owned();
    (line, commit)
}

#[test]
fn version_names_the_build_commit() {
    let (line, commit) = version_line();
    let (line, commit) = (line.as_str(), commit.as_str());
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

/// `INFO server`, memcached `stats` and the search front end's `build_hash`
/// (`GET /`, `_nodes`, `_nodes/stats`) name the commit `--version` names.
#[test]
fn every_front_end_reports_the_build_commit() {
    let (_, commit) = version_line();
    assert!(!commit.is_empty());
    let server = Server::start_with_http(&[]);

    let info =
        Raw::connect(server.resp()).request(b"*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n", b"\r\n\r\n");
    let info = String::from_utf8_lossy(&info);
    assert!(
        info.contains(&format!("\r\nstrata_commit:{commit}\r\n")),
        "{info}"
    );
    let hash = commit.strip_suffix("-dirty").unwrap_or(&commit);
    if commit != "unknown" {
        assert!(info.contains(&format!("\r\nredis_git_sha1:{}\r\n", &hash[..8])));
        assert!(info.contains(&format!("\r\nredis_build_id:{hash}\r\n")));
    }

    let stats = Raw::connect(server.memcache()).request(b"stats\r\n", b"END\r\n");
    let stats = String::from_utf8_lossy(&stats);
    assert!(
        stats.contains(&format!("STAT strata_commit {commit}\r\n")),
        "{stats}"
    );

    let root = http::json(server.http(), "GET", "/", None).unwrap().json();
    assert_eq!(root["version"]["build_hash"], commit.as_str(), "{root}");
    for path in ["/_nodes", "/_nodes/stats"] {
        let reply = http::json(server.http(), "GET", path, None).unwrap().json();
        let node = reply["nodes"].as_object().and_then(|n| n.values().next());
        assert_eq!(
            node.map(|n| n["build_hash"].clone()),
            Some(serde_json::json!(commit)),
            "{path}: {reply}"
        );
    }
}
