//! `FCALL` and `FCALL_RO`: call a function of a loaded library with
//! `numkeys` keys and the remaining arguments (see [`crate::scripting`]).
//! As `EVAL`, the session runs them holding every shard, so a function is
//! atomic. Its flags are checked as an `EVAL` script's shebang flags
//! (`scripting::admit`): one declared `no-writes` runs read-only under
//! either command, `FCALL_RO` refuses any other.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::scripting::{self, Access};
use crate::writer::ReplyWriter;

fn err(text: &str) -> RespError {
    RespError::Script(format!("ERR {text}"))
}

/// `FCALL` (`access` read-write) or `FCALL_RO` (read-only).
pub fn fcall<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    access: Access,
) -> Result<(), RespError> {
    let (library, info) = ctx
        .shared
        .functions
        .function(args.get(1))
        .ok_or_else(|| err("Function not found"))?;
    let numkeys = parse_i64(args.get(2)).ok_or_else(|| err("Bad number of keys provided"))?;
    if numkeys > (args.len() - 3) as i64 {
        return Err(err("Number of keys can't be greater than number of args"));
    }
    let numkeys = usize::try_from(numkeys).map_err(|_| err("Number of keys can't be negative"))?;
    let flags = scripting::ScriptFlags::from_indexes(&info.flags);
    let access = scripting::admit(ctx.shared, flags, access)?;
    let keys: Vec<&[u8]> = args.iter_from(3).take(numkeys).collect();
    let argv: Vec<&[u8]> = args.iter_from(3 + numkeys).collect();
    let command: Vec<&[u8]> = args.iter_from(0).collect();
    let target = scripting::Target::Function {
        library: &library,
        name: &info.name,
        argv: &command,
    };
    scripting::run(ctx, target, &keys, &argv, access, out)
}
