//! Bad input gets a clear error, never a panic: missing and malformed
//! inputs, a table logistic regression cannot use, bad SQL, a budget too
//! small to run in, a spill area larger than its directory's free space.

use crate::support;

use strata_analytics::error::AnalyticsError;
use strata_analytics::run_job;
use support::command;

fn run(args: &[&str]) -> AnalyticsError {
    let mut all = args.to_vec();
    all.push("--quiet");
    run_job(command(&all)).unwrap_err()
}

#[test]
fn bad_inputs_and_options_are_clear_errors() {
    let _alone = support::jobs_alone_blocking();
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().join("spill");
    let spill = spill.to_str().unwrap();
    let path = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    // Room above what the process already holds: the jobs of other tests in
    // this binary leave its resident memory above 200 MiB.
    let common = ["--dram-budget", "1gb", "--spill-dir", spill];

    let error = run(&[
        &["wordcount", "--input", "/nonexistent/words.txt"],
        &common[..],
    ]
    .concat());
    assert!(matches!(error, AnalyticsError::Input { .. }), "{error:?}");
    assert!(
        error.to_string().contains("/nonexistent/words.txt"),
        "{error}"
    );

    let ragged = path("ragged.csv", "label,x1\n1,0.5\n0,0.25,7\n1,2\n");
    let error = run(&[&["logreg", "--input", &ragged], &common[..]].concat());
    assert!(matches!(error, AnalyticsError::Input { .. }), "{error:?}");
    assert!(error.to_string().contains("malformed"), "{error}");

    let words = path("words.csv", "label,x1\n1,abc\n0,def\n");
    let error = run(&[&["logreg", "--input", &words], &common[..]].concat());
    assert!(error.to_string().contains("not numeric"), "{error}");

    let no_label = path("nolabel.csv", "y,x1\n1,0.5\n");
    let error = run(&[&["logreg", "--input", &no_label], &common[..]].concat());
    assert!(
        error.to_string().contains("label column `label`"),
        "{error}"
    );

    let text = path("t.txt", "some words\n");
    let error = run(&[&["logreg", "--input", &text], &common[..]].concat());
    assert!(error.to_string().contains("CSV, TSV or Parquet"), "{error}");

    let csv = path("ok.csv", "label,x1\n1,0.5\n0,0.25\n");
    let error = run(&[&["sql", "--input", &csv], &common[..], &["SELEC nonsense"]].concat());
    assert!(matches!(error, AnalyticsError::Query(_)), "{error:?}");
    let error = run(&[
        &["sql", "--input", &csv],
        &common[..],
        &["SELECT nope FROM input"],
    ]
    .concat());
    assert!(matches!(error, AnalyticsError::Query(_)), "{error:?}");

    let error = run(&[
        "wordcount",
        "--input",
        &text,
        "--dram-budget",
        "4mb",
        "--spill-dir",
        spill,
    ]);
    assert!(matches!(error, AnalyticsError::Usage(_)), "{error:?}");
    assert!(error.to_string().contains("too small"), "{error}");
    assert_eq!(error.exit_code(), 2);

    let error = run(&[
        &["wordcount", "--input", &text, "--spill-limit", "500tb"],
        &common[..],
    ]
    .concat());
    assert!(matches!(error, AnalyticsError::SpillSpace(_)), "{error:?}");
    assert!(error.to_string().contains("is full"), "{error}");
    // Nothing is left behind in the spill directory.
    let left: Vec<_> = std::fs::read_dir(spill).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_good_sql_job_writes_its_result_and_report() {
    let _alone = support::jobs_alone_blocking();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "k,v\na,1\nb,2\na,3\n").unwrap();
    let out = dir.path().join("out.csv");
    let report = dir.path().join("r.json");
    for cache in [false, true] {
        let mut args = vec![
            "sql",
            "--input",
            csv.to_str().unwrap(),
            "--dram-budget",
            "1gb",
            "--spill-dir",
            dir.path().to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            "--quiet",
            "SELECT k, sum(v) AS total FROM input GROUP BY k ORDER BY k",
        ];
        if cache {
            args.push("--cache");
        }
        run_job(command(&args)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "k,total\na,4\nb,2\n"
        );
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(json["job"], "sql");
        assert_eq!(json["result"][0]["rows"], 2);
        assert_eq!(json["cache"].is_null(), !cache);
        assert!(!json["stages"].as_array().unwrap().is_empty());
    }
}
