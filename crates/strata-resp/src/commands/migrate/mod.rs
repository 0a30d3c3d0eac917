//! `MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
//! [AUTH password] [AUTH2 username password] [KEYS key ...]`: sends keys
//! to another Redis (or Strata) as `RESTORE` commands (`RESTORE-ASKING`
//! in cluster mode), each with its remaining TTL and `DUMP` payload, and
//! deletes each one the target accepted unless `COPY`. As in Redis, the
//! command waits for the target on the serving thread (at most the
//! timeout per step: connect, send, each reply); missing keys are skipped
//! and none found answers `NOKEY`; the target's first error is the reply
//! (`ERR Target instance replied with error: ...`), keys it accepted are
//! still deleted. Unlike Redis, the connection is not kept for the next
//! `MIGRATE` to the same target.

mod target;

use std::time::Duration;

use strata_kv::{Deleted, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::dump;
use crate::notify::{self, fire};
use crate::number::parse_i64;
use crate::reply::{RespError, ValueError};
use crate::writer::ReplyWriter;
use target::{encode, Failure, Target};

/// What the arguments ask for.
struct Request<'a> {
    host: &'a [u8],
    port: u16,
    db: i64,
    timeout: Duration,
    copy: bool,
    replace: bool,
    /// `AUTH` (user `None`) or `AUTH2`'s credentials.
    auth: Option<(Option<&'a [u8]>, &'a [u8])>,
    /// Argument index of the first key, and how many.
    keys: (usize, usize),
}

impl<'a> Request<'a> {
    /// Reads the arguments in Redis's order: the options (a syntax error
    /// first), then the destination database and timeout.
    fn parse(args: &Args<'a>) -> Result<Request<'a>, RespError> {
        let (mut copy, mut replace, mut auth) = (false, false, None);
        let mut keys = (3, 1);
        let mut j = 6;
        while j < args.len() {
            let more = args.len() - 1 - j;
            let word = args.get(j).to_ascii_lowercase();
            match word.as_slice() {
                b"copy" => copy = true,
                b"replace" => replace = true,
                b"auth" if more >= 1 => {
                    auth = Some((None, args.get(j + 1)));
                    j += 1;
                }
                b"auth2" if more >= 2 => {
                    auth = Some((Some(args.get(j + 1)), args.get(j + 2)));
                    j += 2;
                }
                b"keys" => {
                    if !args.get(3).is_empty() {
                        return Err(ValueError::MigrateKeyNotEmpty.into());
                    }
                    keys = (j + 1, args.len() - j - 1);
                    break;
                }
                _ => return Err(RespError::Syntax),
            }
            j += 1;
        }
        let timeout = parse_i64(args.get(5)).ok_or(RespError::NotInteger)?;
        let db = parse_i64(args.get(4)).ok_or(RespError::NotInteger)?;
        let timeout = if timeout <= 0 { 1000 } else { timeout as u64 };
        Ok(Request {
            host: args.get(1),
            port: c_port(args.get(2)),
            db,
            timeout: Duration::from_millis(timeout),
            copy,
            replace,
            auth,
            keys,
        })
    }
}

/// A port as Redis's `atoi` reads it: leading digits (after spaces and a
/// sign), 0 when there are none, wrapped to 16 bits as the socket takes it.
fn c_port(text: &[u8]) -> u16 {
    let text = text.trim_ascii_start();
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let value = digits
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .fold(0u32, |n, &d| {
            n.wrapping_mul(10).wrapping_add(u32::from(d - b'0'))
        });
    (if negative {
        value.wrapping_neg()
    } else {
        value
    }) as u16
}

/// Runs `MIGRATE`.
pub fn migrate<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let request = Request::parse(&args)?;
    let now = ctx.shared.keyspace.now_ms();
    let mut found = Vec::new();
    let (first, count) = request.keys;
    for key in (first..first + count).map(|i| args.get(i)) {
        let Some(payload) = dump::payload(ctx.store, key)? else {
            continue;
        };
        // Redis sends the time left, at least 1 ms; 0 for no expiry.
        let at = ctx.store.get(key, |item| item.expires_at).flatten();
        let ttl = at.map_or(0, |at| at.saturating_sub(now).max(1));
        found.push((key, payload, ttl));
    }
    if found.is_empty() {
        out.simple("NOKEY");
        return Ok(());
    }
    let restore: &[u8] = match ctx.shared.cluster.get() {
        Some(_) => b"RESTORE-ASKING",
        None => b"RESTORE",
    };
    let mut sent = Vec::new();
    if let Some((user, password)) = request.auth {
        match user {
            Some(user) => encode(&mut sent, &[b"AUTH", user, password]),
            None => encode(&mut sent, &[b"AUTH", password]),
        }
    }
    encode(&mut sent, &[b"SELECT", request.db.to_string().as_bytes()]);
    for (key, payload, ttl) in &found {
        let ttl = ttl.to_string();
        let mut words: Vec<&[u8]> = vec![restore, key, ttl.as_bytes(), payload];
        if request.replace {
            words.push(b"REPLACE");
        }
        encode(&mut sent, &words);
    }
    let host = String::from_utf8_lossy(request.host);
    let exchanged = Target::connect(&host, request.port, request.timeout).and_then(|mut target| {
        target.send(&sent)?;
        let mut replies = Vec::with_capacity(found.len() + 2);
        for _ in 0..found.len() + 1 + usize::from(request.auth.is_some()) {
            replies.push(target.reply()?);
        }
        Ok(replies)
    });
    let replies = exchanged.map_err(|failure| ValueError::MigrateIo(failure_text(failure)))?;
    // AUTH's and SELECT's replies first: an error there moved nothing.
    let setup = 1 + usize::from(request.auth.is_some());
    if let Some(refused) = replies[..setup].iter().find(|r| r.starts_with(b"-")) {
        return Err(target_error(refused));
    }
    let mut first_error = None;
    for ((key, _, _), reply) in found.iter().zip(&replies[setup..]) {
        if reply.starts_with(b"-") {
            first_error.get_or_insert_with(|| target_error(reply));
            continue;
        }
        if !request.copy && ctx.store.delete(key)? == Deleted::Removed {
            fire(ctx, notify::GENERIC, "del", key);
        }
    }
    match first_error {
        Some(error) => Err(error),
        None => {
            out.simple("OK");
            Ok(())
        }
    }
}

/// Redis's reply for a failed exchange with the target.
fn failure_text(failure: Failure) -> &'static str {
    match failure {
        Failure::Connecting => "error or timeout connecting to the client",
        Failure::Writing => "error or timeout writing to target instance",
        Failure::Reading => "error or timeout reading to target instance",
    }
}

/// The target's error line (`-BUSYKEY ...`) as `MIGRATE`'s reply.
fn target_error(line: &[u8]) -> RespError {
    let text = String::from_utf8_lossy(&line[1..]).into_owned();
    ValueError::MigrateTarget(text).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_read_as_atoi_reads_them() {
        assert_eq!(c_port(b"6379"), 6379);
        assert_eq!(c_port(b" 42x"), 42);
        assert_eq!(c_port(b"x"), 0);
        assert_eq!(c_port(b"65537"), 1);
        assert_eq!(c_port(b"-1"), 65535);
    }
}
