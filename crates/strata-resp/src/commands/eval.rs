//! `EVAL`, `EVALSHA`, `EVAL_RO` and `EVALSHA_RO`: run a Lua script with
//! `numkeys` keys and the remaining arguments (see [`crate::scripting`]).
//! The caller holds the keyspace (the session runs these with its entry
//! gate closed, taking each shard as the script reaches it; `EXEC` holds
//! its shards already), so the script is atomic.
//! A script whose first line is a shebang (`#!lua flags=no-writes`) runs
//! as its flags say (`scripting::admit`). After `SCRIPT DEBUG YES|SYNC`,
//! `EVAL` runs as a debugging session (`scripting::run_with`) and
//! `EVALSHA` is refused, as in Redis.

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
    if ctx.conn.debug.mode().is_some() {
        if let Source::Sha = source {
            if args.get(1).len() != 40 {
                return Err(RespError::NoScript);
            }
            return Err(RespError::Script(
                "ERR Please use EVAL instead of EVALSHA for debugging".into(),
            ));
        }
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
    if ctx.conn.debug.mode().is_some() {
        // The session's lines go to the socket before this reply: no
        // other reply may wait in the output (the session ends a batch
        // before a debugging `EVAL`; inside `EXEC` one always does).
        if out.position() > 0 {
            return Err(RespError::Script(
                "ERR a debugging EVAL must come alone, not after other replies (MULTI/EXEC)".into(),
            ));
        }
        let Some((mode, console)) = ctx.conn.debug.take() else {
            return Err(RespError::Script("ERR no debugging session armed".into()));
        };
        let Some(console) = console else {
            return Err(RespError::Script(
                "ERR SCRIPT DEBUG needs a plain TCP connection: this one (TLS) has no console"
                    .into(),
            ));
        };
        // As in Redis, the session ends the connection.
        ctx.conn.close = true;
        let debug = Some((mode, console));
        return scripting::run_with(ctx, target, &keys, &argv, access, out, debug);
    }
    scripting::run(ctx, target, &keys, &argv, access, out)
}
