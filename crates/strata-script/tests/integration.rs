//! strata-script's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-script --test integration <file>::`.

#[path = "fuzz.rs"]
mod fuzz;
#[path = "language.rs"]
mod language;
#[path = "throughput.rs"]
mod throughput;
