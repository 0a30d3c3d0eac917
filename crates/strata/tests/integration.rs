//! strata's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata --test integration <file>::`.

#[path = "support/access_docs.rs"]
mod access_docs;
#[path = "support/crash/mod.rs"]
mod crash;
#[path = "support/queue_check.rs"]
mod queue_check;
#[path = "support/small_fs.rs"]
mod small_fs;
#[path = "support/mod.rs"]
mod support;
// Helpers that files take at the root, declared once inside `support`.
use support::{scale, spawn};

#[path = "allocator.rs"]
mod allocator;
#[path = "bench_kv_types.rs"]
mod bench_kv_types;
#[path = "clients.rs"]
mod clients;
#[path = "crash_loop.rs"]
mod crash_loop;
#[path = "digest_crash.rs"]
mod digest_crash;
#[path = "es_rust_client.rs"]
mod es_rust_client;
#[path = "es_rust_client_queries.rs"]
mod es_rust_client_queries;
#[path = "full_disk.rs"]
mod full_disk;
#[path = "hostile_load.rs"]
mod hostile_load;
#[path = "hostile_memory.rs"]
mod hostile_memory;
#[path = "job_budget.rs"]
mod job_budget;
#[path = "lifecycle.rs"]
mod lifecycle;
#[path = "pmem_crash_loop.rs"]
mod pmem_crash_loop;
#[path = "queue_crash.rs"]
mod queue_crash;
#[path = "script_hold.rs"]
mod script_hold;
#[path = "search_crash_loop.rs"]
mod search_crash_loop;
#[path = "shutdown_command.rs"]
mod shutdown_command;
#[path = "slowlog.rs"]
mod slowlog;
#[path = "ssd_crash_loop.rs"]
mod ssd_crash_loop;
#[path = "stream_crash.rs"]
mod stream_crash;
#[path = "tpcc_crash_loop.rs"]
mod tpcc_crash_loop;
#[path = "version.rs"]
mod version;
#[path = "waitaof.rs"]
mod waitaof;
