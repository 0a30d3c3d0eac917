//! strata-kv's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-kv --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "access.rs"]
mod access;
#[path = "concurrency.rs"]
mod concurrency;
#[path = "departures.rs"]
mod departures;
#[path = "format_fixture.rs"]
mod format_fixture;
#[path = "in_place.rs"]
mod in_place;
#[path = "large.rs"]
mod large;
#[path = "large_sets.rs"]
mod large_sets;
#[path = "large_tiers.rs"]
mod large_tiers;
#[path = "large_zsets.rs"]
mod large_zsets;
#[path = "limits.rs"]
mod limits;
#[path = "model.rs"]
mod model;
#[path = "pmem_ssd.rs"]
mod pmem_ssd;
#[path = "signal_modified.rs"]
mod signal_modified;
#[path = "size_classes.rs"]
mod size_classes;
#[path = "ssd.rs"]
mod ssd;
#[path = "ssd_concurrency.rs"]
mod ssd_concurrency;
#[path = "tiers.rs"]
mod tiers;
