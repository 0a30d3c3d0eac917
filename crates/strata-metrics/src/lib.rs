//! # strata-metrics: what the hot paths record, cheaply
//!
//! Counters and latency histograms that request paths update with a few
//! relaxed atomic additions (no lock, no hashing, no allocation after a
//! command's first use), read at scrape or `INFO` time. This crate knows
//! no exposition format (the server renders Prometheus text from these
//! snapshots) and depends on no other Strata crate, so every layer may
//! record into it.
//!
//! ## Layout
//! - [`histogram`]: [`LatencyHistogram`], log-linear buckets of
//!   nanoseconds (8 per power of two, so within 12.5%), with percentiles
//!   and cumulative buckets at power-of-two edges for export.
//! - [`commands`]: [`CommandTable`], per-command calls, failures,
//!   rejections and latency, indexed by a dense command id the front end
//!   computes once per command, striped by thread.
//! - [`stopwatch`]: [`Stopwatch`], the clock request paths time commands
//!   with (the CPU's time-stamp counter where it is invariant).
//! - `stripe`: which stripe the current thread writes.
//! - [`caches`]: [`CacheLedger`], the DRAM caches by user, one report for
//!   `INFO` and `_nodes/stats`.
//! - [`allocator`]: the process allocator's counters (allocated, active,
//!   resident), read through a probe the executable registers.

#![forbid(unsafe_code)]

pub mod allocator;
pub mod caches;
pub mod commands;
pub mod histogram;
pub mod stopwatch;
mod stripe;

pub use allocator::{
    allocator_name, allocator_stats, register_allocator, AllocatorProbe, AllocatorStats,
};
pub use caches::{CacheLedger, CacheReport, CacheUsage};
pub use commands::{CommandSnapshot, CommandTable};
pub use histogram::{HistogramSnapshot, LatencyHistogram};
pub use stopwatch::Stopwatch;
