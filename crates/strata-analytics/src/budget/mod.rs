//! The DRAM budget of a job: how it is divided ([`BudgetPlan`]), the
//! memory pool that enforces the operators' part of it ([`BudgetPool`]),
//! and the resident-memory readings that check it ([`rss`]).
//!
//! The budget bounds the process's resident data (anonymous and shared
//! pages of RSS; not the executable's own pages, see [`rss`]), not just
//! what DataFusion accounts for. So the plan takes off what the process holds
//! before any data (its code, threads, the engine's registries: measured
//! when the job starts) and a slack for memory no operator reports
//! (decoders' buffers, allocator fragmentation); the rest is the pool that
//! every operator, the cached dataset and the SSD tier's I/O buffers
//! reserve from. A job's peak resident data stays within the budget plus
//! [`BudgetPlan::margin`] (checked from outside the process by
//! `crates/strata/tests/job_budget.rs`).

pub mod pool;
pub mod rss;

use serde::Serialize;

pub use pool::BudgetPool;

use crate::error::AnalyticsError;
use strata_units::human;

/// The smallest operator pool a job runs with.
pub const MIN_POOL: u64 = 16 << 20;

/// How a job's DRAM budget is divided. All sizes in bytes.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct BudgetPlan {
    /// The budget (`--dram-budget`); `None`: no budget (the engine's pool
    /// is unbounded, as for a run the kernel confines instead).
    pub budget: Option<u64>,
    /// Resident memory when the job started, before any data.
    pub baseline: u64,
    /// Kept for memory no operator accounts for.
    pub slack: u64,
    /// The operators' pool; `None` when unbounded.
    pub pool: Option<u64>,
}

impl BudgetPlan {
    /// Divides `budget` for a process now holding `baseline` bytes; an
    /// error naming the smallest budget that works when it is too small.
    pub fn new(budget: Option<u64>, baseline: u64) -> Result<BudgetPlan, AnalyticsError> {
        let Some(budget) = budget else {
            return Ok(BudgetPlan {
                budget: None,
                baseline,
                slack: 0,
                pool: None,
            });
        };
        let slack = slack_for(budget);
        let pool = budget.saturating_sub(baseline + slack);
        if pool < MIN_POOL {
            let least = (baseline + MIN_POOL).max(1);
            let least = (least..)
                .step_by(1 << 20)
                .find(|b| b.saturating_sub(baseline + slack_for(*b)) >= MIN_POOL);
            return Err(AnalyticsError::Usage(format!(
                "--dram-budget {} is too small: the process holds {} before any data and keeps {} \
                 for unaccounted memory, leaving less than the {} an engine needs; use at least {}",
                human(budget),
                human(baseline),
                human(slack),
                human(MIN_POOL),
                human(least.unwrap_or(u64::MAX)),
            )));
        }
        Ok(BudgetPlan {
            budget: Some(budget),
            baseline,
            slack,
            pool: Some(pool),
        })
    }

    /// How far above the budget the job's peak resident data may go: 10% of the
    /// budget or 16 MiB, whichever is larger (what the budget test allows).
    pub fn margin(&self) -> Option<u64> {
        self.budget.map(margin_for)
    }
}

/// The slack of a budget: an eighth of it, at least 32 MiB. Measured:
/// word count holds about 25-30 MiB that no reservation reports (the
/// aggregation's hash tables beyond their accounted size, the text
/// readers' buffers and channels) whatever the budget; an 8 MiB floor
/// let it reach 88 MiB at a 64 MiB budget.
fn slack_for(budget: u64) -> u64 {
    (budget / 8).max(32 << 20)
}

/// The stated margin over a budget (see [`BudgetPlan::margin`]).
pub fn margin_for(budget: u64) -> u64 {
    (budget / 10).max(16 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_leave_baseline_and_slack_out_of_the_pool() {
        let plan = BudgetPlan::new(Some(512 << 20), 30 << 20).unwrap();
        assert_eq!(plan.slack, 64 << 20);
        assert_eq!(plan.pool, Some((512 - 30 - 64) << 20));
        assert_eq!(plan.margin(), Some((512 << 20) / 10));
        let unbounded = BudgetPlan::new(None, 30 << 20).unwrap();
        assert_eq!((unbounded.pool, unbounded.margin()), (None, None));
        let error = BudgetPlan::new(Some(64 << 20), 30 << 20).unwrap_err();
        assert!(error.to_string().contains("too small"), "{error}");
        assert!(
            error.to_string().contains("use at least 78.0 MiB"),
            "{error}"
        );
    }
}
