//! strata-ssd's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-ssd --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "basics.rs"]
mod basics;
#[path = "corruption.rs"]
mod corruption;
#[path = "devices.rs"]
mod devices;
#[path = "files.rs"]
mod files;
#[path = "format_fixture.rs"]
mod format_fixture;
#[path = "full.rs"]
mod full;
#[path = "large_reads.rs"]
mod large_reads;
#[path = "model.rs"]
mod model;
#[path = "persistent_index.rs"]
mod persistent_index;
#[path = "read_engines.rs"]
mod read_engines;
#[path = "reader_pool.rs"]
mod reader_pool;
#[path = "run_writes.rs"]
mod run_writes;
#[path = "shared_cache.rs"]
mod shared_cache;
#[path = "thread_rings.rs"]
mod thread_rings;
#[path = "users.rs"]
mod users;
