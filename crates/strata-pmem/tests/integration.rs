//! strata-pmem's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-pmem --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "alloc_crash.rs"]
mod alloc_crash;
#[path = "alloc_model.rs"]
mod alloc_model;
#[path = "arena.rs"]
mod arena;
#[path = "claim.rs"]
mod claim;
#[path = "concurrency.rs"]
mod concurrency;
#[path = "format_fixture.rs"]
mod format_fixture;
#[path = "header.rs"]
mod header;
#[path = "map.rs"]
mod map;
