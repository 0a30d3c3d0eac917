//! strata-persist's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-persist --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "cpu_budget.rs"]
mod cpu_budget;
#[path = "faults.rs"]
mod faults;
#[path = "full_disk.rs"]
mod full_disk;
#[path = "in_place.rs"]
mod in_place;
#[path = "large_collections.rs"]
mod large_collections;
#[path = "large_lists.rs"]
mod large_lists;
#[path = "large_sets.rs"]
mod large_sets;
#[path = "large_zsets.rs"]
mod large_zsets;
#[path = "restart_model.rs"]
mod restart_model;
