//! The targets `strata lab publish` writes into docs/benchmarks.md: each names
//! its row on the page (issue and target cell, exactly), the experiment whose
//! `results.json` measures it, the figures it reads (table cells, i.e. medians
//! over the rounds) and its threshold.
//!
//! A target is only listed here when the lab measures what its row says; rows
//! the lab does not measure stay as they are on the page. Targets whose text
//! names a size (10,000,000 keys, 5,000,000 documents) require that size in the
//! run's parameters, so a smaller run never stands in for them.

pub use super::target::{Expr, Rule, Source, Target};

const DC: &str = "Throughput per persistence mode";
const PINNED: &str = "Sync logging against Redis always, pinned";
const AGAINST_CONTROL: &str = "Checkpoint against interleaved control runs";
const KV_RESTART: &str = "Restart after a crash per placement";
const OLTP: &str = "TPC-C throughput per log device";
const DBX: &str = "DBx1000 beside Strata, no logging";
const SLOW: &str = "Slowdown against the same configuration at 100%";
const TIME: &str = "Run time against the DRAM budget";
const T4: &str = "Table 4: indexing, search and mixed latency per tier";

const fn cell(table: &'static str, row: &'static str, col: &'static str) -> Source {
    Source::Cell(table, row, col)
}

/// Row `row` over row `base` in column `col` of `table`.
const fn ratio(
    table: &'static str,
    row: &'static str,
    base: &'static str,
    col: &'static str,
) -> Expr {
    Expr::Ratio(cell(table, row, col), cell(table, base, col))
}

/// Every target the lab publishes, in the page's order.
pub const TARGETS: &[Target] = &[
    Target {
        issue: "3",
        text: "`sync` set-only ≥ 1.5x Redis `always`",
        experiment: "durable-cache",
        figures: &[(
            "insert phase, sync / Redis always",
            ratio(DC, "strata, sync logging", "redis, appendfsync always", "insert"),
        )],
        times: true,
        unit: "",
        rule: Rule::AtLeast(1.5),
        requires: None,
    },
    Target {
        issue: "3",
        text: "`async` set-only ≥ 0.9x `off`",
        experiment: "durable-cache",
        figures: &[(
            "insert phase, async / off",
            ratio(DC, "strata, async logging", "strata, persistence off", "insert"),
        )],
        times: true,
        unit: "",
        rule: Rule::AtLeast(0.9),
        requires: None,
    },
    Target {
        issue: "3",
        text: "`async` set-only ≥ 1.0x Redis `everysec`",
        experiment: "durable-cache",
        figures: &[(
            "insert phase, async / Redis everysec",
            ratio(DC, "strata, async logging", "redis, appendfsync everysec", "insert"),
        )],
        times: true,
        unit: "",
        rule: Rule::AtLeast(1.0),
        requires: None,
    },
    Target {
        issue: "3",
        text: "`async` 1:9 ≥ 0.9x `off`",
        experiment: "durable-cache",
        figures: &[(
            "async / off",
            ratio(DC, "strata, async logging", "strata, persistence off", "1:9"),
        )],
        times: true,
        unit: "",
        rule: Rule::AtLeast(0.9),
        requires: None,
    },
    Target {
        issue: "3",
        text: "`async` 1:9 ≥ 1.0x Redis `everysec`",
        experiment: "durable-cache",
        figures: &[(
            "async / Redis everysec",
            ratio(DC, "strata, async logging", "redis, appendfsync everysec", "1:9"),
        )],
        times: true,
        unit: "",
        rule: Rule::AtLeast(1.0),
        requires: None,
    },
    Target {
        issue: "3",
        text: "checkpoint of 2,000,000 items under 1:9: no second < 90% of the median outside it",
        experiment: "durable-cache",
        figures: &[(
            "lowest second / median outside",
            Expr::Value(cell(
                "Checkpoint under a 1:9 load",
                "strata, async logging",
                "lowest / median",
            )),
        )],
        times: true,
        unit: "",
        rule: Rule::AtLeast(0.9),
        requires: Some(("keys", 2_000_000.0)),
    },
    Target {
        issue: "35",
        text: "`sync` ≥ 1.5x Redis `always`, each server pinned to its own core",
        experiment: "durable-cache",
        figures: &[(
            "pinned set-only, sync / Redis always",
            ratio(PINNED, "strata, sync logging", "redis, appendfsync always", "ops/s"),
        )],
        times: true,
        unit: "",
        rule: Rule::AtLeast(1.5),
        requires: Some(("keys", 1_000_000.0)),
    },
    Target {
        issue: "35",
        text: "checkpoint against interleaved control runs: 5th-percentile second ≥ 0.95x, median within 3%",
        experiment: "durable-cache",
        figures: &[
            (
                "p5 second during the checkpoint / control",
                Expr::Value(cell(AGAINST_CONTROL, "strata, async logging", "p5 ratio")),
            ),
            (
                "median",
                Expr::Value(cell(AGAINST_CONTROL, "strata, async logging", "median ratio")),
            ),
        ],
        times: true,
        unit: "",
        rule: Rule::Bounds(&[(0.95, f64::INFINITY), (0.97, 1.03)]),
        requires: Some(("keys", 1_000_000.0)),
    },
    Target {
        issue: "4",
        text: "`index = pmem`, 10,000,000 keys: serving within 1 s",
        experiment: "kv-placement",
        figures: &[(
            "pmem/pmem restart",
            Expr::Value(cell(KV_RESTART, "index pmem, data pmem", "restart s")),
        )],
        times: false,
        unit: " s",
        rule: Rule::AtMost(1.0),
        requires: Some(("keys", 10_000_000.0)),
    },
    Target {
        issue: "4",
        text: "... ≥ 10x faster than the `index = dram` rebuild",
        experiment: "kv-placement",
        figures: &[(
            "`dram-pmem` / `pmem-pmem` restart",
            ratio(KV_RESTART, "index dram, data pmem", "index pmem, data pmem", "restart s"),
        )],
        times: true,
        unit: "",
        rule: Rule::AtLeast(10.0),
        requires: Some(("keys", 10_000_000.0)),
    },
    Target {
        issue: "35",
        text: "`data = ssd` restart rebuild, 10,000,000 keys ≤ 3 s",
        experiment: "kv-placement",
        figures: &[(
            "`dram-ssd`",
            Expr::Value(cell(KV_RESTART, "index dram, data ssd", "restart s")),
        )],
        times: false,
        unit: " s",
        rule: Rule::AtMost(3.0),
        requires: Some(("keys", 10_000_000.0)),
    },
    Target {
        issue: "4",
        text: "per-item DRAM with `data = ssd` ≤ 64 B beyond the cache budget",
        experiment: "kv-placement",
        figures: &[(
            "`dram-ssd`, DRAM per key outside the record cache",
            Expr::Value(Source::Measured(
                "index dram, data ssd",
                "memory",
                "dram_bytes_per_key_outside_cache",
            )),
        )],
        times: false,
        unit: " B",
        rule: Rule::AtMost(64.0),
        requires: None,
    },
    Target {
        issue: "5",
        text: "bulk indexing ≥ 15,000 docs/s over 5,000,000",
        experiment: "search-tiers",
        figures: &[(
            "dram tier",
            Expr::Value(cell(T4, "dram", "indexing docs/s")),
        )],
        times: false,
        unit: " docs/s",
        rule: Rule::AtLeast(15_000.0),
        requires: Some(("docs", 5_000_000.0)),
    },
    Target {
        issue: "29",
        text: "`--mix dbx1000`, 2 threads, 2 warehouses, no log: ≥ 1.5x DBx1000",
        experiment: "oltp",
        figures: &[
            (
                "NO_WAIT",
                ratio(DBX, "Strata NO_WAIT", "DBx1000 NO_WAIT", "txn/s"),
            ),
            (
                "Silo",
                ratio(DBX, "Strata Silo", "DBx1000 Silo", "txn/s"),
            ),
        ],
        times: true,
        unit: "",
        rule: Rule::AtLeast(1.5),
        requires: Some(("warehouses", 2.0)),
    },
    Target {
        issue: "29",
        text: "log on `ramdisk` or `pmem` ≥ 0.8x no log",
        experiment: "oltp",
        figures: &[
            (
                "NO_WAIT ramdisk",
                ratio(OLTP, "RAM disk", "none", "NO_WAIT"),
            ),
            (
                "NO_WAIT pmem",
                ratio(OLTP, "pmem", "none", "NO_WAIT"),
            ),
            (
                "Silo ramdisk",
                ratio(OLTP, "RAM disk", "none", "Silo"),
            ),
            (
                "Silo pmem",
                ratio(OLTP, "pmem", "none", "Silo"),
            ),
        ],
        times: true,
        unit: "",
        rule: Rule::AtLeast(0.8),
        requires: None,
    },
    Target {
        issue: "29",
        text: "log file on the SSD: report the ratio, explain by fsync latency",
        experiment: "oltp",
        figures: &[
            (
                "NO_WAIT SSD / no log",
                ratio(OLTP, "SSD", "none", "NO_WAIT"),
            ),
            (
                "Silo SSD / no log",
                ratio(OLTP, "SSD", "none", "Silo"),
            ),
        ],
        times: true,
        unit: "",
        rule: Rule::Reported,
        requires: None,
    },
    Target {
        issue: "30",
        text: "12.5% of the data in DRAM ≤ 2x Strata's all-DRAM time",
        experiment: "swap",
        figures: &[
            (
                "word count",
                Expr::Value(cell(SLOW, "word count, Strata", "12.5%")),
            ),
            (
                "logreg",
                Expr::Value(cell(SLOW, "logistic regression, Strata", "12.5%")),
            ),
        ],
        times: true,
        unit: "",
        rule: Rule::AtMost(2.0),
        requires: None,
    },
    Target {
        issue: "30",
        text: "≥ 3x faster than the kernel-confined run at 12.5%",
        experiment: "swap",
        figures: &[
            (
                "word count",
                ratio(TIME, "word count, kernel (cgroup + swap)", "word count, Strata", "12.5%"),
            ),
            (
                "logreg",
                ratio(
                    TIME,
                    "logistic regression, kernel (cgroup + swap)",
                    "logistic regression, Strata",
                    "12.5%",
                ),
            ),
        ],
        times: true,
        unit: "",
        rule: Rule::AtLeast(3.0),
        requires: None,
    },
    Target {
        issue: "33",
        text: "every `strata lab` experiment end to end; seed tables with a verdict; all quick modes < 5 minutes in CI",
        experiment: "",
        figures: &[],
        times: false,
        unit: "",
        rule: Rule::QuickSuite(300.0),
        requires: None,
    },
];

/// The experiments `strata lab` has (a results.json naming another is refused).
pub const EXPERIMENTS: [&str; 5] = [
    "kv-placement",
    "durable-cache",
    "oltp",
    "search-tiers",
    "swap",
];
