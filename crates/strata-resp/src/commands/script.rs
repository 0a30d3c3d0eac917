//! `SCRIPT LOAD|EXISTS|FLUSH|KILL|HELP`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::reply::RespError;
use crate::scripting::{self, KillKind, KillRefused, MAX_CACHED_SCRIPTS};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
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
        _ => write_help(out, HELP),
    }
    Ok(())
}
