//! strata-service's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-service --test integration <file>::`.

#[path = "driver.rs"]
mod driver;
#[path = "panic_containment.rs"]
mod panic_containment;
#[path = "workers.rs"]
mod workers;
