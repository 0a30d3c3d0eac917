//! `strata lab <experiment> --quick` end to end with the built binary: every
//! experiment writes report.md with complete tables (each cell a figure or an
//! explicit skip), results.json that parses with every figure present, and its
//! plots. Run one after the other
//! (each spawns servers and loads the machine's cores).

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use strata_lab::lab::run::Results;
use strata_lab::lab::table::Cell;

/// The most one experiment may take in quick mode.
const QUICK_BUDGET_SECS: f64 = 60.0;

fn strata() -> Command {
    Command::new(env!("CARGO_BIN_EXE_strata"))
}

/// Runs `strata lab <experiment> --quick` into `out` and checks what it wrote.
fn quick(experiment: &str, out: &Path, extra: &[&str]) -> Results {
    let data = tempfile::Builder::new()
        .prefix("strata-lab-test-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let status = strata()
        .args(["lab", experiment, "--quick", "--no-progress", "--out"])
        .arg(out)
        .arg("--data-dir")
        .arg(data.path())
        .args(extra)
        .status()
        .expect("strata runs");
    assert!(
        status.success(),
        "strata lab {experiment} --quick failed: {status}"
    );
    let results = Results::load(&out.join("results.json")).expect("results.json parses");
    // Straight to stderr (not captured by the test harness): CI's log shows each time.
    let _ = writeln!(
        std::io::stderr(),
        "strata lab {experiment} --quick: {:.1} s",
        results.elapsed_secs
    );
    assert_eq!(results.experiment, experiment);
    assert!(results.quick);
    // Issue 33: `--quick` runs each experiment in well under a minute (13-30 s
    // on a loaded 2-core CI machine); a minute means something grew.
    assert!(
        results.elapsed_secs < QUICK_BUDGET_SECS,
        "strata lab {experiment} --quick took {:.1} s, over its {QUICK_BUDGET_SECS} s budget",
        results.elapsed_secs
    );
    assert!(results.machine.cores >= 1 && results.machine.storage.fsync_samples > 0);
    assert!(results.machine.storage.random_read_iops > 0.0);
    assert!(
        !results.measurements.is_empty(),
        "{experiment}: no measurement"
    );
    for m in &results.measurements {
        assert!(
            !m.command.is_empty(),
            "{experiment}: a measurement without its command"
        );
        assert!(
            !m.figures.is_empty(),
            "{experiment}: {} {} has no figure",
            m.config,
            m.step
        );
        for (name, v) in &m.figures {
            assert!(
                v.is_finite(),
                "{experiment}: {} {} {name} = {v}",
                m.config,
                m.step
            );
        }
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!results.tables.is_empty());
    for table in &results.tables {
        assert!(
            !table.rows.is_empty(),
            "{experiment}: table {} has no row",
            table.title
        );
        assert!(
            !table.verdict.is_empty(),
            "{experiment}: table {} has no verdict",
            table.title
        );
        assert!(
            report.contains(&format!("### {}", table.title)),
            "{experiment}: {} not in report.md",
            table.title
        );
        assert!(
            report.contains(&table.verdict),
            "{experiment}: verdict of {} not in report.md",
            table.title
        );
        for row in &table.rows {
            assert_eq!(
                row.cells.len(),
                table.columns.len(),
                "{experiment}: {} / {}",
                table.title,
                row.label
            );
            for cell in &row.cells {
                match cell {
                    Cell::Value(v) => assert!(
                        v.is_finite(),
                        "{experiment}: {} / {}: {v}",
                        table.title,
                        row.label
                    ),
                    Cell::Skipped(why) => {
                        assert!(!why.is_empty());
                        assert!(
                            why != "no measurement",
                            "{experiment}: {} / {} was not measured",
                            table.title,
                            row.label
                        );
                    }
                }
            }
        }
    }
    // Every markdown table row has a value in every cell.
    for line in report.lines().filter(|l| l.starts_with('|')) {
        assert!(
            !line.contains("|  |") && !line.contains("| |"),
            "{experiment}: empty cell in {line:?}"
        );
    }
    if strata_lab::lab::plot::font_ready().is_ok() {
        assert!(!results.plots.is_empty(), "{experiment}: no plot");
        for plot in &results.plots {
            let len = std::fs::metadata(out.join(plot))
                .map(|m| m.len())
                .unwrap_or(0);
            assert!(len > 1000, "{experiment}: plot {plot} missing or empty");
        }
    }
    results
}

/// A commit no checkout is at.
const FAKE_COMMIT: &str = "fa1ce0000000000000000000000000000000beef";

/// A `--server-binary` that serves with the built `strata` but names
/// [`FAKE_COMMIT`] on `--version`, as an older release binary would name its own.
fn older_release(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join("strata-older-release");
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then\n  echo 'strata 0.0.1 (commit {FAKE_COMMIT})'\n  exit 0\nfi\nexec '{}' \"$@\"\n",
        env!("CARGO_BIN_EXE_strata")
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn every_experiment_runs_in_quick_mode() {
    let out = tempfile::tempdir().unwrap();

    // Served by another binary: the run is labelled with that binary's commit.
    let server = older_release(out.path());
    let kv = quick(
        "kv-placement",
        &out.path().join("kv"),
        &["--server-binary", server.to_str().unwrap()],
    );
    let binary = kv.binary.as_ref().expect("the serving binary is recorded");
    assert_eq!(binary.commit.as_deref(), Some(FAKE_COMMIT), "{binary:?}");
    assert!(kv.table("Throughput per placement").is_some());
    // A placement not restarted is a skip with its reason, never a missing row.
    assert!(kv.skipped.iter().any(|s| s.config.contains("data dram")));
    // What `strata advise` sizes placements with: DRAM per key for every placement.
    for (placement, _, _) in strata_lab::lab::kv_placement::PLACEMENTS {
        let memory = kv
            .measurements
            .iter()
            .find(|m| m.config == placement && m.step == "memory")
            .unwrap_or_else(|| panic!("{placement}: no memory measurement"));
        assert!(memory.figures["keys"] > 0.0, "{placement}: {memory:?}");
        assert!(memory.figures.contains_key("dram_bytes_per_key"));
    }

    let dc = quick("durable-cache", &out.path().join("dc"), &[]);
    for peer in [
        "redis, appendfsync always",
        "memcached",
        "arcus, persistence off",
        "arcus, async logging",
        "arcus, sync logging",
    ] {
        let ran = dc.measurements.iter().any(|m| m.config == peer);
        let skipped = dc.skipped.iter().any(|s| s.config == peer);
        assert!(
            ran != skipped,
            "{peer}: must be either measured or skipped with a reason"
        );
    }
    let cp = dc.table("Checkpoint under a 1:9 load").unwrap();
    assert!(cp.get("strata, async logging", "checkpoint s").is_some());
    // Issue 35: the checkpoint against a control run of the same load, both plotted.
    let control = dc
        .table("Checkpoint against interleaved control runs")
        .unwrap();
    for column in ["p5 ratio", "median ratio"] {
        let r = control.get("strata, async logging", column);
        assert!(r.is_some_and(|r| r > 0.0), "{column}: {r:?}");
    }
    assert!(dc
        .measurements
        .iter()
        .any(|m| m.config == "strata, async logging" && m.step == "control"));
    assert!(dc.plots.iter().any(|p| p == "checkpoint-vs-control.png"));
    // Sync logging against Redis always, pinned: measured, or skipped with a reason.
    let pinned = dc
        .table("Sync logging against Redis always, pinned")
        .unwrap();
    assert!(
        pinned.get("strata, sync logging", "ops/s").is_some()
            || dc.skipped.iter().any(|s| s.config.contains("pinned"))
    );

    let oltp = quick("oltp", &out.path().join("oltp"), &[]);
    // In process: labelled with the lab's own executable's commit.
    let own = strata().arg("--version").output().unwrap().stdout;
    let own = strata_lab::lab::binary::commit_of(&String::from_utf8_lossy(&own));
    assert_eq!(oltp.binary.as_ref().and_then(|b| b.commit.clone()), own);
    assert!(
        oltp.skipped.iter().any(|s| s.config == "DBx1000"),
        "DBx1000 is skipped without its source"
    );
    let aborts = oltp
        .table("Abort ratio (aborts / commits) per log device")
        .unwrap();
    assert!(aborts.get("pmem", "Silo").is_some());

    let search = quick("search-tiers", &out.path().join("search"), &[]);
    assert!(search.skipped.iter().any(|s| s.config.starts_with("peer")));

    // Strata's budget only: the kernel baseline needs a memory cgroup and a swap
    // file (root, and swapon is machine-wide), which scripts/bench-analytics sets
    // up; here it must be listed as not run.
    let swap = quick("swap", &out.path().join("swap"), &[]);
    let time = swap.table("Run time against the DRAM budget").unwrap();
    assert_eq!(time.columns, ["100%", "75%"]);
    for job in ["word count", "logistic regression"] {
        let name = format!("{job}, Strata");
        // Both quick budgets are above the smallest a job runs in: measured, not skipped.
        for budget in ["100%", "75%"] {
            let secs = time.get(&name, budget);
            assert!(
                secs.is_some_and(|s| s > 0.0),
                "{name} at {budget}: {secs:?}"
            );
            let run = swap
                .measurements
                .iter()
                .find(|m| m.config == name && m.step == budget)
                .unwrap_or_else(|| panic!("{name} at {budget}: no measurement"));
            assert!(run.figures["budget_bytes"] > 0.0 && run.figures["peak_rss"] > 0.0);
        }
        assert!(
            !swap.skipped.iter().any(|s| s.config.starts_with(&name)),
            "{name}: a budget was skipped: {:?}",
            swap.skipped
        );
        // 75% of the input is below it: the job spills to the SSD tier.
        let spilled = swap
            .measurements
            .iter()
            .find(|m| m.config == name && m.step == "75%")
            .map(|m| m.figures["ssd_written"]);
        assert!(
            spilled.is_some_and(|b| b > 0.0),
            "{name} at 75%: {spilled:?}"
        );
    }
    assert!(swap
        .skipped
        .iter()
        .any(|s| s.config == "kernel (cgroup + swap)"));
    assert!(swap.skipped.iter().any(|s| s.config == "Apache Spark"));

    // `strata advise` answers from these runs' results.json.
    let advice = strata()
        .args(["advise", "--results"])
        .arg(out.path())
        .args(["--reads", "90", "--value-size", "100", "--keys", "1000000"])
        .args(["--dram-budget", "4gb", "--pmem-budget", "4gb"])
        .args(["--durability", "bounded", "--search-index-size", "1gb"])
        .output()
        .expect("strata advise runs");
    let text = String::from_utf8_lossy(&advice.stdout);
    assert!(advice.status.success(), "{text}");
    assert!(text.contains("Recommended: index"), "{text}");
    assert!(text.contains("## Search indices: tier\n"), "{text}");
    assert_eq!(text.matches("Recommended:").count(), 2, "{text}");
}
