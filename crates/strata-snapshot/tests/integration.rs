//! strata-snapshot's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-snapshot --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "catalog.rs"]
mod catalog;
#[path = "corruption.rs"]
mod corruption;
#[path = "faults.rs"]
mod faults;
#[path = "format_fixture.rs"]
mod format_fixture;
#[path = "power_cut.rs"]
mod power_cut;
#[path = "rate.rs"]
mod rate;
#[path = "round_trip.rs"]
mod round_trip;
