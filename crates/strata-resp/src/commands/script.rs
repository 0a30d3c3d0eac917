//! `SCRIPT LOAD|EXISTS|FLUSH|KILL|DEBUG|HELP`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::reply::RespError;
use crate::scripting::{self, DebugMode, KillKind, KillRefused, MAX_CACHED_SCRIPTS};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it.",
    "HELP",
    "    Prints this help.",
];

/// `SCRIPT <subcommand>`.
pub fn script<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("script", &args)?;
    let scripts = &ctx.shared.scripts;
    match sub.name {
        "script|load" => {
            let body = args.get(2);
            scripting::shebang(body)?;
            scripting::compile_check(body)?;
            let (sha, cached) = scripts.insert(body);
            if !cached {
                return Err(RespError::Script(format!(
                    "ERR the script cache is full ({MAX_CACHED_SCRIPTS} scripts): SCRIPT FLUSH first"
                )));
            }
            out.bulk(sha.as_bytes());
        }
        "script|exists" => {
            out.array(args.len() - 2);
            for sha in args.iter_from(2) {
                out.integer(i64::from(scripts.exists(sha)));
            }
        }
        "script|flush" => {
            match args.len() {
                2 => {}
                3 if args.get(2).eq_ignore_ascii_case(b"async")
                    || args.get(2).eq_ignore_ascii_case(b"sync") => {}
                _ => {
                    return Err(RespError::Script(
                        "ERR SCRIPT FLUSH only support SYNC|ASYNC option".into(),
                    ))
                }
            }
            scripts.flush();
            out.ok();
        }
        "script|kill" => match scripts.kill(KillKind::Script) {
            Ok(()) => out.ok(),
            Err(KillRefused::NotBusy) => return Err(RespError::NotBusy),
            Err(KillRefused::Unkillable) => return Err(RespError::Unkillable),
            Err(KillRefused::OtherKind) => return Err(RespError::BusyFunction),
        },
        "script|debug" => {
            // Redis's check: the mode must not change under replies still
            // unsent (the session writes to the socket itself).
            if out.position() > 0 {
                return Err(RespError::Script(
                    "ERR SCRIPT DEBUG must be called outside a pipeline".into(),
                ));
            }
            let mode = args.get(2);
            if mode.eq_ignore_ascii_case(b"no") {
                ctx.conn.debug.disarm();
            } else if mode.eq_ignore_ascii_case(b"yes") {
                ctx.conn.debug.arm(DebugMode::Yes);
            } else if mode.eq_ignore_ascii_case(b"sync") {
                ctx.conn.debug.arm(DebugMode::Sync);
            } else {
                return Err(RespError::Script("ERR Use SCRIPT DEBUG YES/SYNC/NO".into()));
            }
            out.ok();
        }
        _ => write_help(out, HELP),
    }
    Ok(())
}
