//! strata-analytics's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-analytics --test integration <file>::`.

#[path = "support/mod.rs"]
mod support;

#[path = "cache_model.rs"]
mod cache_model;
#[path = "job_errors.rs"]
mod job_errors;
#[path = "jobs_correct.rs"]
mod jobs_correct;
#[path = "spill_pool_deadlock.rs"]
mod spill_pool_deadlock;
