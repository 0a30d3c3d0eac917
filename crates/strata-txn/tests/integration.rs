//! strata-txn's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-txn --test integration <file>::`.

#[path = "api_errors.rs"]
mod api_errors;
#[path = "durability.rs"]
mod durability;
#[path = "recovery_parallel.rs"]
mod recovery_parallel;
#[path = "serializable.rs"]
mod serializable;
#[path = "update_after_read.rs"]
mod update_after_read;
