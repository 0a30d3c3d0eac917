//! `FUNCTION LOAD|LIST|DELETE|FLUSH|DUMP|RESTORE|STATS|KILL|HELP`: Redis 7
//! function libraries on the Lua machinery of `EVAL` (see
//! [`crate::scripting`]), with Redis's replies and errors. Libraries live
//! in memory only: unlike Redis (RDB, AOF) they do not survive a restart.

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::glob;
use crate::reply::RespError;
use crate::scripting::{self, KillKind, KillRefused, RestorePolicy, FLAGS};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "LOAD [REPLACE] <FUNCTION CODE>",
    "    Create a new library with the given library name and code.",
    "DELETE <LIBRARY NAME>",
    "    Delete the given library.",
    "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
    "    Return general information on all the libraries:",
    "    * Library name",
    "    * The engine used to run the Library",
    "    * Library description",
    "    * Functions list",
    "    * Library code (if WITHCODE is given)",
    "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
    "STATS",
    "    Return information about the current function running:",
    "    * Function name",
    "    * Command used to run the function",
    "    * Duration in MS that the function is running",
    "    If no function is running, return nil",
    "    In addition, returns a list of available engines.",
    "KILL",
    "    Kill the current running function.",
    "FLUSH [ASYNC|SYNC]",
    "    Delete all the libraries.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the libraries.",
    "    * SYNC: Synchronously flush the libraries.",
    "DUMP",
    "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
    "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
    "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
    "    control how to handle existing libraries (default APPEND):",
    "    * FLUSH: delete all existing libraries.",
    "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
    "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
    "      libraries with the new libraries (notice that even on this option there is a chance of failure",
    "      in case of functions name collision with another library).",
    "HELP",
    "    Print this help.",
];

fn err(text: &str) -> RespError {
    RespError::Script(format!("ERR {text}"))
}

/// Redis's `addReplySubcommandSyntaxError`.
fn syntax(args: &Args<'_>) -> RespError {
    let sub = String::from_utf8_lossy(args.get(1));
    err(&format!(
        "unknown subcommand or wrong number of arguments for '{sub}'. Try FUNCTION HELP."
    ))
}

/// `FUNCTION <subcommand>`.
pub fn function<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("function", &args)?;
    let functions = &ctx.shared.functions;
    match sub.name {
        "function|load" => {
            let last = args.len() - 1;
            let mut replace = false;
            for option in args.iter_from(2).take(last - 2) {
                if option.eq_ignore_ascii_case(b"replace") {
                    replace = true;
                } else {
                    let option = String::from_utf8_lossy(option);
                    return Err(err(&format!("Unknown option given: {option}")));
                }
            }
            let library =
                scripting::load_library(functions, args.get(last)).map_err(|e| err(&e))?;
            let name = library.name.clone();
            functions.load(library, replace).map_err(|e| err(&e))?;
            out.bulk(name.as_bytes());
        }
        "function|delete" => match functions.delete(args.get(2)) {
            true => out.ok(),
            false => return Err(err("Library not found")),
        },
        "function|flush" => {
            match args.len() {
                2 => {}
                3 if args.get(2).eq_ignore_ascii_case(b"sync")
                    || args.get(2).eq_ignore_ascii_case(b"async") => {}
                3 => return Err(err("FUNCTION FLUSH only supports SYNC|ASYNC option")),
                _ => return Err(syntax(&args)),
            }
            functions.flush();
            out.ok();
        }
        "function|list" => list(ctx, &args, out)?,
        "function|dump" => out.bulk(&functions.dump()),
        "function|restore" => {
            restore(ctx, &args)?;
            out.ok();
        }
        "function|stats" => stats(ctx, out)?,
        "function|kill" => match ctx.shared.scripts.kill(KillKind::Function) {
            Ok(()) => out.ok(),
            Err(KillRefused::NotBusy) => return Err(RespError::NotBusy),
            Err(KillRefused::Unkillable) => return Err(RespError::Unkillable),
            Err(KillRefused::OtherKind) => return Err(RespError::BusyScript),
        },
        _ => write_help(out, HELP),
    }
    Ok(())
}

/// `FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]`.
fn list<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (mut with_code, mut pattern) = (false, None);
    let mut i = 2;
    while i < args.len() {
        let arg = args.get(i);
        if !with_code && arg.eq_ignore_ascii_case(b"withcode") {
            with_code = true;
        } else if pattern.is_none() && arg.eq_ignore_ascii_case(b"libraryname") {
            if i + 1 >= args.len() {
                return Err(err("library name argument was not given"));
            }
            i += 1;
            pattern = Some(args.get(i));
        } else {
            let arg = String::from_utf8_lossy(arg);
            return Err(err(&format!("Unknown argument {arg}")));
        }
        i += 1;
    }
    let libraries: Vec<_> = ctx
        .shared
        .functions
        .libraries()
        .into_iter()
        .filter(|lib| pattern.is_none_or(|p| glob::matches_nocase(p, lib.name.as_bytes())))
        .collect();
    out.array(libraries.len());
    for lib in libraries {
        out.map(if with_code { 4 } else { 3 });
        out.bulk(b"library_name");
        out.bulk(lib.name.as_bytes());
        out.bulk(b"engine");
        out.bulk(b"LUA");
        out.bulk(b"functions");
        out.array(lib.functions.len());
        for f in &lib.functions {
            out.map(3);
            out.bulk(b"name");
            out.bulk(f.name.as_bytes());
            out.bulk(b"description");
            match &f.description {
                Some(text) => out.bulk(text),
                None => out.null(),
            }
            out.bulk(b"flags");
            out.set(f.flags.len());
            for &flag in &f.flags {
                out.simple(FLAGS[flag]);
            }
        }
        if with_code {
            out.bulk(b"library_code");
            out.bulk(&lib.code);
        }
    }
    Ok(())
}

/// `FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]`.
fn restore<S: Store>(ctx: &mut Ctx<'_, S>, args: &Args<'_>) -> Result<(), RespError> {
    if args.len() > 4 {
        return Err(syntax(args));
    }
    let policy =
        match args.len() {
            4 => match args.get(3).to_ascii_lowercase().as_slice() {
                b"append" => RestorePolicy::Append,
                b"replace" => RestorePolicy::Replace,
                b"flush" => RestorePolicy::Flush,
                _ => return Err(err(
                    "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.",
                )),
            },
            _ => RestorePolicy::Append,
        };
    let functions = &ctx.shared.functions;
    let codes = scripting::parse_dump(args.get(2)).map_err(|e| err(&e))?;
    let mut libraries = Vec::with_capacity(codes.len());
    for code in codes {
        libraries.push(scripting::load_library(functions, &code).map_err(|e| err(&e))?);
    }
    functions.restore(libraries, policy).map_err(|e| err(&e))
}

/// `FUNCTION STATS`.
fn stats<S: Store>(ctx: &mut Ctx<'_, S>, out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    let running = ctx.shared.scripts.running();
    if let Some(None) = running {
        return Err(RespError::BusyScript);
    }
    out.map(2);
    out.bulk(b"running_script");
    match running.flatten() {
        None => out.null(),
        Some(run) => {
            out.map(3);
            out.bulk(b"name");
            out.bulk(run.name.as_bytes());
            out.bulk(b"command");
            out.array(run.command.len());
            for arg in &run.command {
                out.bulk(arg);
            }
            out.bulk(b"duration_ms");
            out.integer(run.duration_ms as i64);
        }
    }
    let counts = ctx.shared.functions.counts();
    out.bulk(b"engines");
    out.map(1);
    out.bulk(b"LUA");
    out.map(2);
    out.bulk(b"libraries_count");
    out.integer(counts.libraries as i64);
    out.bulk(b"functions_count");
    out.integer(counts.functions as i64);
    Ok(())
}
