//! `DEBUG <subcommand>`, refused unless `enable-debug-command` allows the
//! connection (Redis 7's default refuses it to everyone). An allowed one
//! runs with the whole keyspace held, as a script does (the session
//! routes it so), which makes a digest one snapshot and `SLEEP` stop
//! every command, as in Redis.
//!
//! The subcommands Strata has: `DIGEST` and `DIGEST-VALUE` (Redis's own
//! SHA-1 digests, `digest.rs`, so a dataset copied between Redis and
//! Strata digests the same), `OBJECT` (`object.rs`), `PROTOCOL`
//! (`protocol.rs`), `POPULATE` (`populate.rs`), `SLEEP`, `ERROR`, `LOG`,
//! `SET-ACTIVE-EXPIRE` and `HELP`. The ones that crash or restart the
//! server (`SEGFAULT`, `PANIC`, `ASSERT`, `OOM`, `RESTART`,
//! `CRASH-AND-RECOVER`) are refused as unknown: no request may take the
//! server down. Those about Redis's own internals (`SDSLEN`, `LISTPACK`,
//! `QUICKLIST`, `HTSTATS`, `MALLCTL`, `RELOAD`, `LOADAOF`, ...) have no
//! counterpart here and are refused the same way.

mod digest;
mod object;
mod populate;
mod protocol;

use std::time::Duration;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::client::write_help;
use crate::connection::Connection;
use crate::number::parse_f64;
use crate::reply::{lossy_prefix, ClientError, RespError};
use crate::shared::Shared;
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DIGEST",
    "    Output a hex signature representing the current DB content.",
    "DIGEST-VALUE <key> [<key> ...]",
    "    Output a hex signature of the values of all the specified keys.",
    "ERROR <string>",
    "    Return a Redis protocol error with <string> as message. Useful for clients",
    "    unit tests to simulate Redis errors.",
    "LOG <message>",
    "    Write <message> to the server log.",
    "OBJECT <key>",
    "    Show low level info about `key` and associated value.",
    "POPULATE <count> [<prefix>] [<size>]",
    "    Create <count> string keys named key:<num>. If <prefix> is specified then",
    "    it is used instead of the 'key' prefix.",
    "PROTOCOL <type>",
    "    Reply with a test value of the specified type. <type> can be: string,",
    "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
    "    true, false.",
    "SET-ACTIVE-EXPIRE <0|1>",
    "    Setting it to 0 disables expiring keys in background when they are not",
    "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
    "    default.",
    "SLEEP <seconds>",
    "    Stop the server for <seconds>. Decimals allowed.",
    "HELP",
    "    Prints this help.",
];

/// Longest `DEBUG SLEEP`: an hour (Redis takes any; a mistyped huge value
/// would otherwise hold the server for good).
const MAX_SLEEP: Duration = Duration::from_secs(3600);

/// Whether `enable-debug-command` lets `conn` run `DEBUG`.
pub fn allowed(shared: &Shared, conn: &Connection) -> bool {
    let access = shared.debug_command.get().copied().unwrap_or_default();
    access.allows(conn.client.addr)
}

/// `DEBUG <subcommand> ...`. The session runs an allowed one with the
/// whole keyspace held, as a script runs (`ctx.store` is exclusive).
pub fn debug<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if !allowed(ctx.shared, ctx.conn) {
        return Err(ClientError::DebugNotAllowed.into());
    }
    let sub = args.get(1).to_ascii_lowercase();
    let n = args.len();
    match (sub.as_slice(), n) {
        (b"help", 2) => write_help(out, HELP),
        (b"digest", 2) => out.simple(&digest::dataset(ctx.store)?),
        (b"digest-value", _) => {
            out.array(n - 2);
            for key in args.iter_from(2) {
                out.simple(&digest::key(ctx.store, key)?);
            }
        }
        (b"object", 3) => out.simple(&object::describe(ctx, args.get(2))?),
        (b"protocol", 3) => protocol::reply(args.get(2), out)?,
        (b"populate", 3..=5) => {
            populate::populate(ctx, &args)?;
            out.ok();
        }
        (b"sleep", 3) => {
            // The keyspace is held: every other command waits.
            std::thread::sleep(sleep_time(args.get(2)));
            out.ok();
        }
        (b"error", 3) => {
            // One line: newlines would end the reply early.
            let text = String::from_utf8_lossy(args.get(2)).replace(['\r', '\n'], " ");
            return Err(RespError::Script(text));
        }
        (b"log", 3) => {
            tracing::warn!("DEBUG LOG: {}", String::from_utf8_lossy(args.get(2)));
            out.ok();
        }
        (b"set-active-expire", 3) => {
            // C's atoi: a leading integer, anything else 0.
            let on = leading_int(args.get(2)) != 0;
            ctx.shared.keyspace.set_active_expire(on);
            out.ok();
        }
        _ => {
            return Err(ClientError::DebugSubcommand(lossy_prefix(args.get(1), 128)).into());
        }
    }
    Ok(())
}

/// `DEBUG SLEEP`'s pause: the seconds as `strtod` reads them (a text
/// that is no number sleeps 0), at most [`MAX_SLEEP`].
fn sleep_time(secs: &[u8]) -> Duration {
    match parse_f64(secs).filter(|s| s.is_finite() && *s > 0.0) {
        Some(secs) => Duration::from_secs_f64(secs.min(MAX_SLEEP.as_secs_f64())),
        None => Duration::ZERO,
    }
}

/// The integer C's `atoi` reads at the front of `text` (0 if none).
fn leading_int(text: &[u8]) -> i64 {
    let text = text.trim_ascii_start();
    let (sign, digits) = match text.split_first() {
        Some((b'-', rest)) => (-1, rest),
        Some((b'+', rest)) => (1, rest),
        _ => (1, text),
    };
    let mut n: i64 = 0;
    for &c in digits.iter().take_while(|c| c.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(i64::from(c - b'0'));
    }
    sign * n
}

#[cfg(test)]
mod tests {
    use super::leading_int;

    #[test]
    fn atoi_reads_the_leading_integer() {
        for (text, n) in [
            ("1", 1),
            ("0", 0),
            ("2", 2),
            (" 7x", 7),
            ("-3", -3),
            ("abc", 0),
            ("", 0),
        ] {
            assert_eq!(leading_int(text.as_bytes()), n, "{text}");
        }
    }
}
