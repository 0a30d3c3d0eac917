//! `strata lab swap` (seed 002: Spark with SSD swap): word count and logistic
//! regression against the DRAM budget, engine-managed tiering against OS swap.
//!
//! The experiment runs on the analytics engine (`strata bench analytics`), which
//! this build does not contain: without [`Hooks::swap`] the command says so and
//! fails without writing a run directory. The `strata` binary sets the hook
//! when it is built with the analytics engine.

use std::path::PathBuf;

use super::common::{CommonArgs, Hooks};
use crate::LabError;

/// Runs the experiment through the hook, or reports that it is not built in.
pub fn run(common: &CommonArgs, hooks: &Hooks) -> Result<PathBuf, LabError> {
    match hooks.swap {
        Some(swap) => swap(common),
        None => Err(LabError::NotAvailable(
            "strata lab swap: not available in this build (the analytics engine, \
             `strata bench analytics`, is not compiled in)"
                .into(),
        )),
    }
}
