//! `strata lab publish`: which rows of docs/benchmarks.md's "At a glance"
//! table change for given runs, and that every other line stays byte for byte.
//!
//! The fixtures are real `--quick` runs of durable-cache and kv-placement, and
//! two full durable-cache runs of one part each (`--only pinned`, `--only
//! checkpoint`), their per-request raw results dropped; tests that need a full
//! run clear the `quick` flag, which is what a full run differs by in
//! results.json.

use std::path::{Path, PathBuf};

use strata_lab::lab::publish::{self, PublishArgs};
use strata_lab::lab::run::Results;
use strata_lab::LabError;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/publish")
        .join(name)
}

fn results(name: &str, quick: bool) -> Results {
    let mut r = Results::load(&fixture(name)).unwrap();
    r.quick = quick;
    r
}

/// Writes `r` as `dir/<sub>/results.json`; returns the run directory.
fn write_run(dir: &Path, sub: &str, r: &Results) -> PathBuf {
    let run = dir.join(sub);
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("results.json"), serde_json::to_vec(r).unwrap()).unwrap();
    run
}

/// Publishes `runs` onto a copy of the page fixture; returns (before, after).
fn publish(
    dir: &Path,
    runs: Vec<PathBuf>,
    allow_quick: bool,
) -> Result<(String, String), LabError> {
    let page = dir.join("benchmarks.md");
    let before = std::fs::read_to_string(fixture("page.md")).unwrap();
    std::fs::write(&page, &before).unwrap();
    publish::run(&PublishArgs {
        runs,
        page: page.clone(),
        allow_quick,
    })?;
    Ok((before, std::fs::read_to_string(&page).unwrap()))
}

/// The (issue, target) of every line that changed; asserts the line count kept.
fn changed(before: &str, after: &str) -> Vec<String> {
    assert_eq!(before.lines().count(), after.lines().count());
    before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, _)| {
            let cells: Vec<&str> = a.split('|').map(str::trim).collect();
            format!("{} | {}", cells[1], cells[2])
        })
        .collect()
}

fn row<'a>(page: &'a str, prefix: &str) -> Vec<&'a str> {
    let line = page
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no row {prefix}"));
    line.split('|').map(str::trim).collect()
}

#[test]
fn full_runs_rewrite_only_the_rows_they_measure() {
    let dir = tempfile::tempdir().unwrap();
    let dc = results("durable-cache.json", false);
    let kv = results("kv-placement.json", false);
    let runs = vec![
        write_run(dir.path(), "dc", &dc),
        write_run(dir.path(), "kv", &kv),
    ];
    let (before, after) = publish(dir.path(), runs, false).unwrap();
    assert_eq!(
        changed(&before, &after),
        [
            "3 | `sync` set-only ≥ 1.5x Redis `always`",
            "3 | `async` set-only ≥ 0.9x `off`",
            "3 | `async` set-only ≥ 1.0x Redis `everysec`",
            "3 | `async` 1:9 ≥ 0.9x `off`",
            "3 | `async` 1:9 ≥ 1.0x Redis `everysec`",
            "4 | per-item DRAM with `data = ssd` ≤ 64 B beyond the cache budget",
        ],
        "the checkpoint row (2,000,000 items) and the 10,000,000-key row need \
         larger runs; issue 2, 35, the recovery row and issue 33 are not measured"
    );
    // The figure, its status against the threshold, date, commit, machine, command.
    let t = dc.table("Throughput per persistence mode").unwrap();
    let r = t.get("strata, async logging", "1:9").unwrap()
        / t.get("strata, persistence off", "1:9").unwrap();
    let cells = row(&after, "| 3 | `async` 1:9 ≥ 0.9x `off`");
    assert!(
        cells[3].starts_with(&format!("async / off {r:.2}x; 1 round(s), ")),
        "{}",
        cells[3]
    );
    assert!(
        cells[3].contains("`strata lab durable-cache --quick"),
        "{}",
        cells[3]
    );
    assert!(cells[3].contains(&dc.machine.cpu_model), "{}", cells[3]);
    assert_eq!(cells[4], if r >= 0.9 { "met" } else { "missed" });
    assert_eq!(cells[5], dc.started_utc[..16].replace('T', " "));
    assert_eq!(cells[6], &dc.commit.as_deref().unwrap()[..7]);
    assert_eq!(cells[7], "[Durability](#durability-issues-3-and-35)");
    // A line outside "At a glance" that looks like a row is not touched.
    assert!(after.ends_with("| 3 | `async` 1:9 ≥ 0.9x `off` | not the table | x | x | x | x |\n"));
}

#[test]
fn runs_of_one_experiment_by_parts_each_feed_their_rows() {
    let dir = tempfile::tempdir().unwrap();
    let phases = results("durable-cache.json", false);
    let pinned = results("durable-cache-pinned.json", false);
    let checkpoint = results("durable-cache-checkpoint.json", false);
    assert!(phases.started_utc < pinned.started_utc && pinned.started_utc < checkpoint.started_utc);
    let runs = vec![
        write_run(dir.path(), "checkpoint", &checkpoint),
        write_run(dir.path(), "phases", &phases),
        write_run(dir.path(), "pinned", &pinned),
    ];
    let (before, after) = publish(dir.path(), runs, false).unwrap();
    let changed = changed(&before, &after);
    for row in [
        "3 | `async` 1:9 ≥ 0.9x `off`",
        "35 | `sync` ≥ 1.5x Redis `always`, each server pinned to its own core",
        "35 | checkpoint against interleaved control runs: 5th-percentile second ≥ 0.95x, median within 3%",
    ] {
        assert!(changed.iter().any(|c| c == row), "{row} not in {changed:?}");
    }
    // The pinned row from the pinned run, the phases' rows from the phases run.
    let t = pinned
        .table("Sync logging against Redis always, pinned")
        .unwrap();
    let r = t.get("strata, sync logging", "ops/s").unwrap()
        / t.get("redis, appendfsync always", "ops/s").unwrap();
    let cells = row(&after, "| 35 | `sync` ≥ 1.5x");
    assert!(
        cells[3].starts_with(&format!("pinned set-only, sync / Redis always {r:.2}x;")),
        "{}",
        cells[3]
    );
    assert_eq!(cells[4], if r >= 1.5 { "met" } else { "missed" });
    assert_eq!(cells[5], pinned.started_utc[..16].replace('T', " "));
    assert_eq!(
        row(&after, "| 3 | `async` 1:9")[5],
        phases.started_utc[..16].replace('T', " ")
    );
    // Both checkpoint figures, each against its own bounds.
    let t = checkpoint
        .table("Checkpoint against interleaved control runs")
        .unwrap();
    let (p5, median) = (
        t.get("strata, async logging", "p5 ratio").unwrap(),
        t.get("strata, async logging", "median ratio").unwrap(),
    );
    let cells = row(&after, "| 35 | checkpoint against interleaved control runs");
    assert!(
        cells[3].starts_with(&format!(
            "p5 second during the checkpoint / control {p5:.2}x, median {median:.2}x;"
        )),
        "{}",
        cells[3]
    );
    let met = p5 >= 0.95 && (0.97..=1.03).contains(&median);
    assert_eq!(cells[4], if met { "met" } else { "missed" });
}

#[test]
fn a_figure_absent_from_the_results_leaves_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut dc = results("durable-cache.json", false);
    // As when Redis is not installed: its row is a skip, not a figure.
    for t in &mut dc.tables {
        for row in &mut t.rows {
            if row.label == "redis, appendfsync always" {
                for c in &mut row.cells {
                    *c = strata_lab::lab::table::Cell::Skipped("not installed".into());
                }
            }
        }
    }
    let (before, after) =
        publish(dir.path(), vec![write_run(dir.path(), "dc", &dc)], false).unwrap();
    let changed = changed(&before, &after);
    assert_eq!(changed.len(), 4, "{changed:?}");
    assert!(!changed.iter().any(|c| c.contains("Redis `always`")));
    let outcome = publish::decide(&[dc], false).unwrap();
    assert!(outcome
        .left
        .iter()
        .any(|l| l.contains("Redis `always`") && l.contains("redis, appendfsync always")));
}

#[test]
fn quick_runs_are_refused_and_never_overwrite_figures() {
    let dir = tempfile::tempdir().unwrap();
    let quick = write_run(dir.path(), "dc", &results("durable-cache.json", true));
    let err = publish(dir.path(), vec![quick.clone()], false).unwrap_err();
    assert!(err.to_string().contains("--quick run"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("benchmarks.md")).unwrap(),
        std::fs::read_to_string(fixture("page.md")).unwrap()
    );
    // Allowed, they feed issue 33's quick-mode target only: with two of the
    // five experiments, nothing changes.
    let (before, after) = publish(dir.path(), vec![quick], true).unwrap();
    assert_eq!(before, after);
    let outcome = publish::decide(&[results("durable-cache.json", true)], true).unwrap();
    assert!(outcome.updates.is_empty());
    assert!(outcome
        .left
        .iter()
        .any(|l| l.contains("quick, not a figure")));
}

#[test]
fn quick_runs_of_all_five_experiments_give_issue_33_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for experiment in [
        "kv-placement",
        "durable-cache",
        "oltp",
        "search-tiers",
        "swap",
    ] {
        // The two recorded runs stand in for the other three (only the
        // experiment's name, time and tables are read for this target).
        let mut r = results(
            if experiment == "kv-placement" {
                "kv-placement.json"
            } else {
                "durable-cache.json"
            },
            true,
        );
        r.experiment = experiment.into();
        r.elapsed_secs = 20.0;
        runs.push(write_run(dir.path(), experiment, &r));
    }
    let (before, after) = publish(dir.path(), runs, true).unwrap();
    assert_eq!(
        changed(&before, &after),
        ["33 | every `strata lab` experiment end to end; seed tables with a verdict; all quick modes < 5 minutes in CI"]
    );
    let cells = row(&after, "| 33 |");
    assert!(
        cells[3].starts_with("all five quick modes end to end in 100 s"),
        "{}",
        cells[3]
    );
    assert_eq!(cells[4], "met");
}

#[test]
fn bad_inputs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let message = |runs: Vec<PathBuf>| publish(dir.path(), runs, false).unwrap_err().to_string();

    let missing = message(vec![dir.path().join("no-such-run")]);
    assert!(missing.contains("no-such-run: no such file"), "{missing}");
    let empty = dir.path().join("empty-run");
    std::fs::create_dir_all(&empty).unwrap();
    let missing = message(vec![empty]);
    assert!(
        missing.contains("empty-run/results.json: no such file"),
        "{missing}"
    );

    let bad = dir.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("results.json"), "{\"experiment\": ").unwrap();
    let malformed = message(vec![bad]);
    assert!(
        malformed.contains("bad/results.json") && malformed.contains("EOF"),
        "{malformed}"
    );

    let mut other = results("durable-cache.json", false);
    other.experiment = "tpc-h".into();
    let unknown = message(vec![write_run(dir.path(), "other", &other)]);
    assert!(
        unknown.contains("unknown experiment \"tpc-h\""),
        "{unknown}"
    );

    let page = dir.path().join("page.md");
    std::fs::write(&page, "# Benchmarks\n\nNo table.\n").unwrap();
    let err = publish::run(&PublishArgs {
        runs: vec![write_run(
            dir.path(),
            "dc",
            &results("durable-cache.json", false),
        )],
        page: page.clone(),
        allow_quick: false,
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("no \"## At a glance\" section"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&page).unwrap(),
        "# Benchmarks\n\nNo table.\n"
    );
}
