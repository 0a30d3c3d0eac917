//! `SLOWLOG GET [count] | LEN | RESET | HELP`: the slow log
//! ([`crate::slowlog`]) as Redis 7 reports it. An entry is an array of
//! its id, Unix time, duration in microseconds, arguments, the client's
//! `ip:port` and the client's name.

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GET [<count>]",
    "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
    "    Entries are made of:",
    "    id, timestamp, time in microseconds, arguments array, client IP and port,",
    "    client name",
    "LEN",
    "    Return the length of the slowlog.",
    "RESET",
    "    Reset the slowlog.",
    "HELP",
    "    Print this help.",
];

/// Entries `SLOWLOG GET` returns without a count.
const DEFAULT_COUNT: usize = 10;

/// `SLOWLOG <subcommand>`.
pub fn slowlog<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("slowlog", &args)?;
    let log = &ctx.shared.slowlog;
    match sub.name {
        "slowlog|get" => {
            let count = match args.len() {
                2 => Some(DEFAULT_COUNT),
                3 => match parse_i64(args.get(2)) {
                    Some(-1) => None,
                    Some(n) if n >= 0 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
                    _ => return Err(RespError::SlowlogCount),
                },
                _ => return Err(RespError::Syntax),
            };
            let entries = log.latest(count);
            out.array(entries.len());
            for entry in entries {
                out.array(6);
                out.integer(entry.id as i64);
                out.integer(entry.unix_secs as i64);
                out.integer(entry.micros as i64);
                out.array(entry.args.len());
                for arg in &entry.args {
                    out.bulk(arg);
                }
                out.bulk(entry.client_addr.as_bytes());
                out.bulk(entry.client_name.as_bytes());
            }
        }
        "slowlog|len" => out.integer(log.len() as i64),
        "slowlog|reset" => {
            log.reset();
            out.ok();
        }
        _ => write_help(out, HELP),
    }
    Ok(())
}
