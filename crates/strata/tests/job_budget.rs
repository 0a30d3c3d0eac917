//! `strata job` as a user runs it: the process's resident data, sampled
//! from outside every 10 ms (`RssAnon + RssShmem` of `/proc/<pid>/status`:
//! its resident memory but the executable's own file-backed pages), stays
//! within `--dram-budget` plus the stated margin (10% of the budget or
//! 16 MiB) while word count, logistic regression and SQL over a cached
//! table run on inputs larger than the budget; the job's own report says
//! the same; bad input ends with a message and exit code 1 or 2.
//!
//! The inputs are 160 MB each (`STRATA_TEST_FULL=1`: 1 GB with a
//! 256 MiB budget).

use crate::scale;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use strata_analytics::bench::generate::{write_points, write_text, VOCABULARY};

const MIB: u64 = 1 << 20;

fn rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
    };
    Some((field("RssAnon:")? + field("RssShmem:")?) * 1024)
}

/// Runs `strata job <args>`; its exit status, standard error and the
/// peak resident data sampled from outside.
fn job(args: &[&str]) -> (std::process::ExitStatus, String, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("job")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap());
    let mut peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        peak = peak.max(rss(pid).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(10));
    };
    (status, reader.join().unwrap(), peak)
}

#[test]
fn jobs_stay_within_their_dram_budget() {
    let (size, budget) = if scale::full() {
        (1 << 30, 256 * MIB)
    } else {
        (160 * MIB, 96 * MIB)
    };
    let dir = tempfile::tempdir().unwrap();
    let points = dir.path().join("points.csv");
    let text = dir.path().join("text.txt");
    write_points(&points, size, 5).unwrap();
    write_text(&text, size, 5, VOCABULARY).unwrap();
    let spill = dir.path().join("spill");
    let margin = (budget / 10).max(16 * MIB);
    let sql = "SELECT label, count(*), avg(x1) FROM input GROUP BY label ORDER BY label";
    for (name, input, extra) in [
        ("logreg", &points, vec!["--iterations", "3"]),
        ("wordcount", &text, vec![]),
        ("sql", &points, vec!["--cache", sql]),
    ] {
        let report = dir.path().join(format!("{name}.json"));
        let budget_arg = budget.to_string();
        let mut args = vec![
            name,
            "--input",
            input.to_str().unwrap(),
            "--dram-budget",
            &budget_arg,
            "--spill-dir",
            spill.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ];
        args.extend(extra);
        let (status, stderr, peak) = job(&args);
        assert!(status.success(), "{name}: {status}: {stderr}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        eprintln!(
            "{name}: peak data RSS {} MiB (sampled outside), budget {} MiB + {} MiB; {}",
            peak / MIB,
            budget / MIB,
            margin / MIB,
            stderr.lines().last().unwrap_or("")
        );
        assert!(
            peak <= budget + margin,
            "{name}: peak data RSS {peak} over {budget} + {margin}: {}\n{}",
            report["budget"],
            report["stages"]
        );
        assert_eq!(
            report["budget"]["within_budget"], true,
            "{name}: {}",
            report["budget"]
        );
        if name != "wordcount" {
            // The table did not fit its share: part of it is read from the SSD.
            assert!(
                report["spill"]["cache_read_bytes"].as_u64().unwrap() > 0,
                "{report}"
            );
        }
        assert_eq!(
            std::fs::read_dir(&spill).unwrap().count(),
            0,
            "spill area removed"
        );
    }
}

#[test]
fn bad_input_ends_the_job_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().to_str().unwrap();
    let missing = Path::new("/nonexistent/input.txt").to_str().unwrap();
    let (status, stderr, _) = job(&[
        "wordcount",
        "--input",
        missing,
        "--dram-budget",
        "256mb",
        "--spill-dir",
        spill,
    ]);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: input /nonexistent/input.txt"),
        "{stderr}"
    );
    let (status, stderr, _) = job(&["wordcount", "--input", missing, "--dram-budget", "lots"]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("invalid size"), "{stderr}");
}
