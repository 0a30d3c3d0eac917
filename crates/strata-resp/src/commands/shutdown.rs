//! `SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]`: stops the server as
//! SIGTERM does (connections close, what was acknowledged is made durable:
//! the command log synced, the SSD tier flushed), and closes this
//! connection without a reply, as Redis does.
//!
//! Strata's checkpoints are not taken on a stop unless asked: `SAVE` takes
//! one first (so the restart replays less log), and refuses to stop if it
//! fails unless `FORCE`; plain `SHUTDOWN` and `NOSAVE` take none, like a
//! Redis without save points. `NOW` is accepted: Strata has no replicas to
//! wait for, so it always stops at once, and `ABORT` finds nothing to
//! cancel. While another client's script is past the busy threshold only
//! `NOSAVE` is served, and the process exits at once without flushing (a
//! graceful stop would wait for the script, which may never end): Redis's
//! "kill the server in a hard way".

use strata_service::ShutdownKind;

use crate::args::Args;
use crate::connection::Connection;
use crate::reply::RespError;
use crate::scripting::Gate;
use crate::shared::Shared;
use crate::stats::Tally;
use crate::writer::ReplyWriter;

/// `SAVE` or `NOSAVE`, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Save {
    Default,
    Yes,
    No,
}

/// The parsed options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Options {
    save: Save,
    force: bool,
    abort: bool,
}

impl Options {
    /// Redis's rules: any order; `SAVE` with `NOSAVE`, an unknown word, or
    /// `ABORT` with anything else is a syntax error.
    fn parse(args: &Args<'_>) -> Result<Options, RespError> {
        let mut options = Options {
            save: Save::Default,
            force: false,
            abort: false,
        };
        let mut others = 0;
        for i in 1..args.len() {
            let word = args.get(i);
            let save = match word {
                w if w.eq_ignore_ascii_case(b"save") => Save::Yes,
                w if w.eq_ignore_ascii_case(b"nosave") => Save::No,
                w if w.eq_ignore_ascii_case(b"now") => {
                    others += 1;
                    continue;
                }
                w if w.eq_ignore_ascii_case(b"force") => {
                    options.force = true;
                    others += 1;
                    continue;
                }
                w if w.eq_ignore_ascii_case(b"abort") => {
                    options.abort = true;
                    continue;
                }
                _ => return Err(RespError::Syntax),
            };
            if options.save != Save::Default && options.save != save {
                return Err(RespError::Syntax);
            }
            options.save = save;
            others += 1;
        }
        if options.abort && others > 0 {
            return Err(RespError::Syntax);
        }
        Ok(options)
    }
}

/// Runs `SHUTDOWN` for `conn`: on success nothing is written and the
/// connection closes.
pub fn shutdown(
    shared: &Shared,
    conn: &mut Connection,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    tally: &mut Tally,
) {
    tally.commands += 1;
    match stop(shared, conn, &args) {
        Ok(()) => conn.close = true,
        Err(err) => {
            out.error(&err.to_string());
            tally.errors += 1;
        }
    }
}

fn stop(shared: &Shared, conn: &Connection, args: &Args<'_>) -> Result<(), RespError> {
    let options = Options::parse(args)?;
    if options.abort {
        return Err(RespError::NoShutdownInProgress);
    }
    if matches!(shared.scripts.gate(conn.client.id), Gate::Busy) {
        if options.save != Save::No {
            return Err(RespError::Busy);
        }
        tracing::warn!("SHUTDOWN NOSAVE while a script is busy: exiting at once");
        shared.info.shutdown.request(ShutdownKind::Abandon);
        return Ok(());
    }
    if options.save == Save::Yes {
        let saved = match shared.info.durability.as_deref() {
            Some(durability) => durability.save(),
            None => Err("persistence is not configured".to_owned()),
        };
        if let Err(cause) = saved {
            tracing::warn!(%cause, force = options.force, "SHUTDOWN SAVE: the checkpoint failed");
            if !options.force {
                return Err(RespError::ShutdownFailed);
            }
        }
    }
    tracing::info!(client = conn.client.id, "SHUTDOWN requested");
    shared.info.shutdown.request(ShutdownKind::Graceful);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(words: &[&str]) -> Result<Options, RespError> {
        let (mut buf, mut ranges) = (b"shutdown".to_vec(), vec![(0, 8)]);
        for w in words {
            let start = buf.len();
            buf.extend_from_slice(w.as_bytes());
            ranges.push((start, buf.len()));
        }
        Options::parse(&Args::new(&buf, &ranges))
    }

    #[test]
    fn options_follow_redis_rules() {
        assert_eq!(parse(&[]).unwrap().save, Save::Default);
        let o = parse(&["now", "SAVE", "force"]).unwrap();
        assert_eq!((o.save, o.force, o.abort), (Save::Yes, true, false));
        assert_eq!(parse(&["nosave", "nosave"]).unwrap().save, Save::No);
        assert!(parse(&["abort"]).unwrap().abort);
        for bad in [
            &["save", "nosave"][..],
            &["abort", "now"],
            &["nosave", "abort"],
            &["later"],
        ] {
            assert!(matches!(parse(bad), Err(RespError::Syntax)), "{bad:?}");
        }
    }
}
