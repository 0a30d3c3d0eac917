//! `EVAL`, `EVALSHA`, `EVAL_RO` and `EVALSHA_RO`: run a Lua script with
//! `numkeys` keys and the remaining arguments (see [`crate::scripting`]).
//! The caller holds every shard (the session runs these inside
//! `Keyspace::exclusive`, `EXEC` already does), so the script is atomic.
//! A script whose first line is a shebang (`#!lua flags=no-writes`) runs
//! as its flags say (`scripting::admit`).

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::scripting::{self, Access};
use crate::writer::ReplyWriter;

/// Where the script comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// The body is the first argument (cached as it runs).
    Body,
    /// The first argument is the sha of a cached body.
    Sha,
}

/// `EVAL*`.
pub fn eval<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    source: Source,
    access: Access,
) -> Result<(), RespError> {
    let numkeys = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let numkeys = usize::try_from(numkeys).map_err(|_| RespError::NegativeKeys)?;
    if numkeys > args.len() - 3 {
        return Err(RespError::TooManyKeys);
    }
    let (body, sha) = match source {
        Source::Body => {
            let body = args.get(1);
            // A bad shebang is refused before the script is cached.
            scripting::shebang(body)?;
            let (sha, _cached) = ctx.shared.scripts.insert(body);
            (body.into(), sha)
        }
        Source::Sha => {
            let body = ctx
                .shared
                .scripts
                .get(args.get(1))
                .ok_or(RespError::NoScript)?;
            (
                body,
                String::from_utf8_lossy(args.get(1)).to_ascii_lowercase(),
            )
        }
    };
    // A shebang's flags (Redis 7) decide the access; a legacy script
    // runs as the command says.
    let access = match scripting::shebang(&body)? {
        Some(flags) => scripting::admit(ctx.shared, flags, access)?,
        None => access,
    };
    let keys: Vec<&[u8]> = args.iter_from(3).take(numkeys).collect();
    let argv: Vec<&[u8]> = args.iter_from(3 + numkeys).collect();
    let target = scripting::Target::Script {
        body: &body,
        sha: &sha,
    };
    scripting::run(ctx, target, &keys, &argv, access, out)
}
