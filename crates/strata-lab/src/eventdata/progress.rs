//! Progress bars of the phases, drawn on stderr only when it is a terminal and `--quiet`
//! is not given, so redirected output never mixes bar frames into results.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::task::JoinHandle;

/// A phase's bar: counted (documents, queries) or timed (the mixed phase).
pub struct PhaseBar {
    bar: ProgressBar,
    ticker: Option<JoinHandle<()>>,
}

fn styled(quiet: bool, len: u64, label: &str) -> ProgressBar {
    let target = ProgressDrawTarget::stderr_with_hz(4);
    if quiet || target.is_hidden() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), target);
    let template = format!("{label:<7} {{elapsed:>4}} [{{wide_bar}}] {{pos}}/{{len}} {{msg}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

impl PhaseBar {
    /// A bar counting up to `len` items.
    pub fn counted(quiet: bool, len: u64, label: &str) -> Self {
        Self {
            bar: styled(quiet, len, label),
            ticker: None,
        }
    }

    /// A bar showing the seconds elapsed out of `duration`, updated four times a second
    /// (the caller must be inside a tokio runtime).
    pub fn timed(quiet: bool, duration: Duration, label: &str) -> Self {
        let bar = styled(quiet, duration.as_secs().max(1), label);
        if bar.is_hidden() {
            return Self { bar, ticker: None };
        }
        let ticking = bar.clone();
        let start = Instant::now();
        let ticker = tokio::spawn(async move {
            let mut interval = tokio::time::interval(Duration::from_millis(250));
            loop {
                interval.tick().await;
                ticking.set_position(start.elapsed().as_secs());
            }
        });
        Self {
            bar,
            ticker: Some(ticker),
        }
    }

    /// A handle for tasks to advance a counted bar with.
    pub fn counter(&self) -> ProgressBar {
        self.bar.clone()
    }

    /// Stops updating and erases the bar.
    pub fn finish(self) {
        if let Some(ticker) = self.ticker {
            ticker.abort();
        }
        self.bar.finish_and_clear();
    }
}
