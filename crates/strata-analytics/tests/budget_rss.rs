//! A job's resident memory stays within its DRAM budget plus the stated
//! margin (`BudgetPlan::margin`: 10% of the budget or 16 MiB), sampled
//! every 10 ms while word count and logistic regression run over inputs
//! larger than the budget. One test in this binary, so that nothing else
//! runs in the process while it is measured.

mod support;

use strata_analytics::bench::generate::{write_points, write_text};
use strata_analytics::budget::margin_for;
use strata_analytics::run_job;
use support::command;

const BUDGET: u64 = 96 << 20;

#[test]
fn jobs_stay_within_their_dram_budget() {
    let dir = tempfile::tempdir().unwrap();
    let points = dir.path().join("points.csv");
    let text = dir.path().join("text.txt");
    write_points(&points, 160 << 20, 5).unwrap();
    write_text(&text, 160 << 20, 5).unwrap();
    let spill = dir.path().join("spill");
    for (job, input, extra) in [
        ("logreg", &points, vec!["--iterations", "3"]),
        ("wordcount", &text, vec![]),
        ("sql", &points, vec!["--cache", "SELECT label, count(*), avg(x1) FROM input GROUP BY label ORDER BY label"]),
    ] {
        let report = dir.path().join(format!("{job}.json"));
        let budget = BUDGET.to_string();
        let mut args = vec![
            job,
            "--input",
            input.to_str().unwrap(),
            "--dram-budget",
            &budget,
            "--spill-dir",
            spill.to_str().unwrap(),
            "--partitions",
            "2",
            "--quiet",
            "--report",
            report.to_str().unwrap(),
        ];
        args.extend(extra);
        run_job(command(&args)).unwrap();
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let budget = &report["budget"];
        let sampled = budget["peak_rss_sampled"].as_u64().unwrap();
        let limit = BUDGET + margin_for(BUDGET);
        eprintln!("{job}: peak RSS sampled {} MiB, budget {} MiB + margin", sampled >> 20, BUDGET >> 20);
        assert!(sampled > 0, "{budget}");
        assert!(sampled <= limit, "{job}: peak RSS {sampled} over {limit}: {budget}");
        assert_eq!(budget["within_budget"], true, "{job}: {budget}");
        if job == "logreg" {
            // The input did not fit: part of the cached table is on the SSD.
            assert!(report["spill"]["cache_read_bytes"].as_u64().unwrap() > 0, "{report}");
        }
    }
}
