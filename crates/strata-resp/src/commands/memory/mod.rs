//! `MEMORY USAGE | STATS | DOCTOR | MALLOC-STATS | PURGE | HELP`, as
//! Redis 7.2's `memoryCommand`, over Strata's own figures (`overhead.rs`:
//! `STATS` and `DOCTOR`, and how Strata's figures map onto Redis's).
//!
//! `MALLOC-STATS` answers Redis's text for an allocator without
//! statistics: this crate does not know the process's allocator, and the
//! jemalloc the `strata` binary runs on is built without statistics (so
//! there are none to print). `PURGE` answers `OK`, as Redis does where it
//! cannot purge: the binary's jemalloc already returns freed pages to the
//! system within a second, from its background thread.

mod overhead;

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;
use overhead::Overhead;

const HELP: &[&str] = &[
    "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DOCTOR",
    "    Return memory problems reports.",
    "MALLOC-STATS",
    "    Return internal statistics report from the memory allocator.",
    "PURGE",
    "    Attempt to purge dirty pages for reclamation by the allocator.",
    "STATS",
    "    Return information about the memory usage of the server.",
    "USAGE <key> [SAMPLES <count>]",
    "    Return memory in bytes used by <key> and its value. Nested values are",
    "    sampled up to <count> times (default: 5, 0 means sample all).",
    "HELP",
    "    Print this help.",
];

/// Redis's reply where the allocator keeps no statistics.
const NO_MALLOC_STATS: &[u8] = b"Stats not supported for the current allocator";

/// `MEMORY <subcommand>`.
pub fn memory<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("memory", &args)?;
    match sub.name {
        "memory|usage" => usage(ctx, &args, out)?,
        "memory|stats" => Overhead::measure(ctx.shared).write_stats(out),
        "memory|doctor" => out.verbatim("txt", Overhead::measure(ctx.shared).doctor().as_bytes()),
        "memory|malloc-stats" => out.bulk(NO_MALLOC_STATS),
        "memory|purge" => out.ok(),
        _ => write_help(out, HELP),
    }
    Ok(())
}

/// `MEMORY USAGE key [SAMPLES count]`: the bytes `key` costs in the
/// keyspace, as `used_memory` counts them: each of its records as written
/// (header, key and value; a large collection's head and every one of its
/// chunks) and the index slot each holds. Null for a missing key.
///
/// `SAMPLES` is parsed as Redis parses it (an integer, not negative; 0:
/// all), and changes nothing: Redis samples because it walks a
/// collection's elements to estimate their allocations, while Strata's
/// figure comes from the index and the record headers (one lookup per
/// chunk, no element read or decoded), so it is exact at any size.
fn usage<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut i = 3;
    while i < args.len() {
        if !args.get(i).eq_ignore_ascii_case(b"samples") || i + 1 >= args.len() {
            return Err(RespError::Syntax);
        }
        let samples = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
        if samples < 0 {
            return Err(RespError::Syntax);
        }
        i += 2;
    }
    match ctx.store.read_large(args.get(2), |read| read.footprint()) {
        Some(footprint) => out.integer(i64::try_from(footprint.bytes()).unwrap_or(i64::MAX)),
        None => out.null(),
    }
    Ok(())
}
