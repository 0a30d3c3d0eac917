//! strata-device's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-device --test integration <file>::`.

#[path = "block_files/mod.rs"]
mod block_files;
#[path = "common/mod.rs"]
mod common;

#[path = "conformance.rs"]
mod conformance;
#[path = "faults.rs"]
mod faults;
#[path = "mem_crash.rs"]
mod mem_crash;
#[path = "permissions.rs"]
mod permissions;
#[path = "read_batch.rs"]
mod read_batch;
#[path = "replace.rs"]
mod replace;
#[path = "tree_listing.rs"]
mod tree_listing;
#[path = "uring_reader.rs"]
mod uring_reader;
