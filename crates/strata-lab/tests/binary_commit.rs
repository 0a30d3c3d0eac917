//! A lab run is labelled with the commit of the `strata` binary that
//! measured it (what its `--version` names), not the checkout's HEAD: a run
//! measured with an older release binary from a newer checkout must not
//! carry the newer commit. Runs recorded before the binary was asked still
//! publish with the checkout's commit, as then (`tests/publish.rs`).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use strata_lab::lab::common::CommonArgs;
use strata_lab::lab::publish::{self, PublishArgs};
use strata_lab::lab::run::{Binary, Results, Run};

/// A commit no checkout is at.
const FAKE: &str = "fa1ce0000000000000000000000000000000beef";

/// A stand-in `strata` that answers `--version` with [`FAKE`] and refuses
/// anything else (it must not be asked to serve here).
fn fake_binary(dir: &Path) -> PathBuf {
    let path = dir.join("strata-old-release");
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then\n  echo 'strata 0.0.1 (commit {FAKE})'\n  exit 0\nfi\nexit 3\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The checkout's HEAD, when the tests run in one.
fn checkout_head() -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[test]
fn a_run_records_the_commit_of_the_binary_that_measured() {
    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::Builder::new()
        .prefix("strata-lab-test-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let common = CommonArgs {
        out: Some(dir.path().join("run")),
        quick: true,
        rounds: None,
        data_dir: data.path().to_owned(),
        pmem_dir: dir.path().to_owned(),
        server_binary: Some(fake_binary(dir.path())),
        no_progress: true,
    };
    let run = Run::start(
        "kv-placement",
        "001",
        &common,
        Duration::from_secs(1),
        common.server_binary.as_deref(),
    )
    .unwrap();
    let out = run.finish("A run with nothing measured.").unwrap();
    let r = Results::load(&out.join("results.json")).unwrap();
    let binary = r.binary.clone().expect("the binary is recorded");
    assert_eq!(binary.commit.as_deref(), Some(FAKE), "{binary:?}");
    assert_eq!(
        binary.version_line.as_deref(),
        Some(format!("strata 0.0.1 (commit {FAKE})").as_str())
    );
    assert_eq!(r.commit_label(), "fa1ce00");
    if let Some(head) = checkout_head() {
        // The checkout is still recorded as such, but never as the label.
        let checkout = r.commit.as_deref().expect("a checkout's commit");
        assert!(head.starts_with(checkout), "{checkout} is not HEAD {head}");
        assert!(!head.starts_with(&r.commit_label()), "labelled with HEAD");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains(&format!("(strata 0.0.1 (commit {FAKE}))")),
        "{report}"
    );
}

#[test]
fn a_binary_that_names_no_commit_is_labelled_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("strata-before-commits");
    std::fs::write(&old, "#!/bin/sh\necho 'strata 0.1.0'\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    let b = Binary::ask(Some(&old));
    assert_eq!(b.version_line.as_deref(), Some("strata 0.1.0"));
    assert_eq!((b.commit.as_deref(), b.label().as_str()), (None, "unknown"));
    let missing = Binary::ask(Some(&dir.path().join("absent")));
    assert!(missing.error.is_some() && missing.commit.is_none());
}

#[test]
fn publish_labels_rows_with_the_binary_commit() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/publish");
    let page_text = std::fs::read_to_string(fixtures.join("page.md")).unwrap();
    let mut dc = Results::load(&fixtures.join("durable-cache.json")).unwrap();
    dc.quick = false;
    for (commit, label) in [
        (Some(format!("{FAKE}-dirty")), "fa1ce00-dirty"),
        (None, "unknown"),
    ] {
        dc.binary = Some(Binary {
            path: "/tmp/strata-old-release".into(),
            version_line: Some("strata 0.0.1".into()),
            commit,
            error: None,
        });
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("dc");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("results.json"), serde_json::to_vec(&dc).unwrap()).unwrap();
        let page = dir.path().join("benchmarks.md");
        std::fs::write(&page, &page_text).unwrap();
        publish::run(&PublishArgs {
            runs: vec![run],
            page: page.clone(),
            allow_quick: false,
        })
        .unwrap();
        let after = std::fs::read_to_string(&page).unwrap();
        let line = after
            .lines()
            .find(|l| l.starts_with("| 3 | `async` 1:9 ≥ 0.9x `off`"))
            .unwrap();
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(cells[6], label, "{line}");
    }
}
