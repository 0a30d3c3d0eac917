//! The lab's progress display: which experiment, which configuration and step,
//! and the time left, estimated from the plan's step durations.
//!
//! The bar counts planned seconds: each step adds its estimate when it ends, so
//! indicatif's ETA is the time left at the pace measured so far. Off a terminal
//! (or with `--no-progress`) nothing is drawn and each step is one line on stderr.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The run's progress.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    lines: bool,
    experiment: String,
}

impl Progress {
    /// A display for `experiment` whose steps take about `planned` in all.
    pub fn new(experiment: &str, planned: Duration, visible: bool) -> Self {
        let visible = visible && std::io::IsTerminal::is_terminal(&std::io::stderr());
        let bar = ProgressBar::with_draw_target(
            Some(planned.as_secs().max(1)),
            if visible {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:.bold} [{elapsed_precise}] {wide_bar} {msg} (~{eta} left)",
            )
            .expect("static template")
            .progress_chars("=> "),
        );
        bar.set_prefix(format!("strata lab {experiment}"));
        Self {
            bar,
            lines: !visible,
            experiment: experiment.into(),
        }
    }

    /// A step begins: `config` (e.g. `index pmem, data ssd`) doing `what`.
    pub fn step(&self, config: &str, what: &str) {
        let msg = format!("{config}: {what}");
        if self.lines {
            eprintln!("strata lab {}: {msg}", self.experiment);
        }
        self.bar.set_message(msg);
    }

    /// A step that was planned to take `planned` has ended.
    pub fn done(&self, planned: Duration) {
        self.bar.inc(planned.as_secs_f64().round() as u64);
    }

    /// A line above the bar (or on stderr).
    pub fn note(&self, line: &str) {
        if self.lines {
            eprintln!("strata lab {}: {line}", self.experiment);
        } else {
            self.bar.println(line);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
