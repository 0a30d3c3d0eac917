//! [`execute`]: runs one command by its table row, as a client (or
//! `EXEC`) asks for it: `EVAL`, `EVALSHA`, `FCALL` and their read-only forms run a
//! script here, whose `redis.call` goes back down to
//! [`route`]; everything else is routed there directly.
//! Keeping the script commands above the table is what lets scripting
//! import the table without a cycle.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::eval::{self, Source};
use crate::commands::fcall;
use crate::reply::RespError;
use crate::route;
use crate::scripting::Access;
use crate::spec::{Command, CommandSpec};
use crate::writer::ReplyWriter;

/// Runs one command whose arity was already checked, appending its reply.
/// On `Err` nothing was written; the caller writes the error.
pub fn execute<S: Store>(
    spec: &'static CommandSpec,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match spec.command {
        Command::Eval => eval::eval(ctx, args, out, Source::Body, Access::ReadWrite),
        Command::EvalSha => eval::eval(ctx, args, out, Source::Sha, Access::ReadWrite),
        Command::EvalRo => eval::eval(ctx, args, out, Source::Body, Access::ReadOnly),
        Command::EvalShaRo => eval::eval(ctx, args, out, Source::Sha, Access::ReadOnly),
        Command::FCall => fcall::fcall(ctx, args, out, Access::ReadWrite),
        Command::FCallRo => fcall::fcall(ctx, args, out, Access::ReadOnly),
        _ => route::execute(spec, ctx, args, out),
    }
}
