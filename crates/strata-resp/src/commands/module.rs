//! `MODULE LIST|LOAD|LOADEX|UNLOAD|HELP`. Strata runs no Redis modules
//! (they are C libraries built against Redis's own internals), so the list
//! is empty, as a Redis without modules answers (client libraries ask it
//! to find RedisJSON or RediSearch), and loading one is refused, saying so.

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "LIST",
    "    Return a list of loaded modules.",
    "LOAD <path> [<arg> ...]",
    "    Load a module library from <path>, passing to it any optional arguments.",
    "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
    "    Load a module library from <path>, while passing it module configurations and optional arguments.",
    "UNLOAD <name>",
    "    Unload a module.",
    "HELP",
    "    Prints this help.",
];

/// `MODULE <subcommand>`.
pub fn module<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match resolve_subcommand("module", &args)?.name {
        "module|list" => out.array(0),
        "module|help" => write_help(out, HELP),
        _ => return Err(ClientError::NoModules.into()),
    }
    Ok(())
}
