//! What `strata lab swap` runs: the jobs, the modes (Strata's budget, the
//! kernel's cgroup, Spark), the budgets of a full and a quick run, the
//! seed's slowdown, and the names of its rows, columns and tables.

/// (label, `--jobs`).
pub(super) const JOBS: [(&str, &str); 2] = [
    ("word count", "wordcount"),
    ("logistic regression", "logreg"),
];

/// (label, `--modes`, the bench's `mode` in its JSON).
pub(super) const MODES: [(&str, &str); 3] = [
    ("Strata", "strata"),
    ("kernel (cgroup + swap)", "kernel"),
    (SPARK, "spark"),
];
/// Spark's label (`strata bench analytics` names its mode the same).
pub(super) const SPARK: &str = "Apache Spark";

/// Budgets in percent of the input, largest first (the slowdown's base).
pub(super) const BUDGETS: [f64; 4] = [100.0, 50.0, 25.0, 12.5];

/// Input of a quick run: its 75% budget (60 MiB) is above the ~55 MiB a job
/// needs (see the module's doc) and below the input, so that the job spills.
pub(super) const QUICK_SIZE: &str = "80mb";

/// Budgets of a quick run, in percent of [`QUICK_SIZE`].
pub(super) const QUICK_BUDGETS: [f64; 2] = [100.0, 75.0];

/// The budgets of a run, largest first.
pub(super) fn budgets_for(quick: bool) -> &'static [f64] {
    if quick {
        &QUICK_BUDGETS
    } else {
        &BUDGETS
    }
}

/// The seed's slowdown at `percent` of its largest memory (2x, 4x and 8x at
/// 8, 4 and 2 GB of 16 GB for 10 GB of data): run time in proportion to the
/// RAM removed.
pub(super) fn seed_slowdown(percent: f64) -> f64 {
    100.0 / percent
}

/// Title of the run-time table.
pub(super) const RUN_TIME: &str = "Run time against the DRAM budget";
/// Title of the slowdown table.
pub(super) const SLOWDOWN: &str = "Slowdown against the same configuration at 100%";
/// Title of the memory table.
pub(super) const MEMORY: &str = "Peak resident data of Strata's runs against the budget";

pub(super) fn column(percent: f64) -> String {
    format!("{percent}%")
}

pub(super) fn config(job: &str, mode: &str) -> String {
    format!("{job}, {mode}")
}
