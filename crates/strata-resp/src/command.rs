//! The dispatcher: the [`Command`] enum, the static command table it is
//! looked up in (see [`table`](crate::table)), arity checks, and
//! [`execute`], generic over the engine's [`Store`] so the same handlers run
//! on the shared store and inside `MULTI`/`EXEC`'s exclusive section.

use strata_kv::Store;

use crate::args::Args;
use crate::commands;
use crate::connection::Connection;
use crate::protocol::Shared;
use crate::reply::RespError;
use crate::table::COMMANDS;
use crate::writer::ReplyWriter;

/// Every command the front end knows. MULTI, EXEC, DISCARD, WATCH, QUIT and
/// RESET are run by the session itself (they act on the transaction state);
/// everything else goes through [`execute`].
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    BgSave,
    LastSave,
    Save,
    Get,
    Set,
    SetNx,
    SetEx,
    PSetEx,
    MGet,
    MSet,
    MSetNx,
    GetSet,
    GetDel,
    GetEx,
    Append,
    StrLen,
    GetRange,
    SetRange,
    Incr,
    Decr,
    IncrBy,
    DecrBy,
    IncrByFloat,
    Del,
    Exists,
    Expire,
    PExpire,
    ExpireAt,
    PExpireAt,
    Ttl,
    PTtl,
    ExpireTime,
    PExpireTime,
    Persist,
    Type,
    Keys,
    Scan,
    Rename,
    RenameNx,
    RandomKey,
    DbSize,
    Flush,
    Multi,
    Exec,
    Discard,
    Watch,
    Unwatch,
    Ping,
    Echo,
    Quit,
    Select,
    Auth,
    Hello,
    Client,
    Command,
    Config,
    Info,
    Time,
    Reset,
}

/// One row of the command table, reported as-is by `COMMAND`.
#[derive(Debug)]
pub struct CommandSpec {
    /// Lower-case name (`get`, `client|setname` for subcommands).
    pub name: &'static str,
    /// Which handler runs it.
    pub command: Command,
    /// Redis arity: `n` exactly n arguments (name included), `-n` at least n.
    pub arity: i32,
    /// Redis command flags (`write`, `readonly`, `fast`, `no_auth`, ...).
    pub flags: &'static [&'static str],
    /// First key argument, last key (-1: the last argument), step.
    pub keys: (i32, i32, i32),
    /// ACL categories (`@read`, `@string`, ...).
    pub categories: &'static [&'static str],
    /// Documentation group (`string`, `generic`, `server`, ...).
    pub group: &'static str,
    /// Redis version that introduced it.
    pub since: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Subcommands of a container command (CLIENT, CONFIG, COMMAND).
    pub subcommands: &'static [CommandSpec],
}

impl CommandSpec {
    /// True when `argc` arguments (name included) satisfy the arity.
    pub fn arity_ok(&self, argc: usize) -> bool {
        let argc = argc as i64;
        let arity = i64::from(self.arity);
        if arity >= 0 {
            argc == arity
        } else {
            argc >= -arity
        }
    }

    /// True for commands allowed before authentication.
    pub fn no_auth(&self) -> bool {
        self.flags.contains(&"no_auth")
    }

    /// True for commands that modify the keyspace.
    pub fn is_write(&self) -> bool {
        self.flags.contains(&"write")
    }

    /// The subcommand spec for `name` (case-insensitive), if any.
    pub fn subcommand(&self, name: &[u8]) -> Option<&'static CommandSpec> {
        self.subcommands.iter().find(|s| {
            s.name
                .split_once('|')
                .is_some_and(|(_, sub)| sub.as_bytes().eq_ignore_ascii_case(name))
        })
    }
}

/// Looks a command up by name, case-insensitively.
pub fn lookup(name: &[u8]) -> Option<&'static CommandSpec> {
    let mut lower = [0u8; 24];
    let lower = lower.get_mut(..name.len())?;
    for (dst, src) in lower.iter_mut().zip(name) {
        *dst = src.to_ascii_lowercase();
    }
    COMMANDS
        .binary_search_by(|spec| spec.name.as_bytes().cmp(lower))
        .ok()
        .and_then(|i| COMMANDS.get(i))
}

/// The subcommand of container `container` named by `args[1]`, with its
/// arity checked against `args`.
pub fn resolve_subcommand(
    container: &'static str,
    args: &Args<'_>,
) -> Result<&'static CommandSpec, RespError> {
    let sub = lookup(container.as_bytes())
        .and_then(|spec| spec.subcommand(args.get(1)))
        .ok_or_else(|| RespError::unknown_subcommand(container, args.get(1)))?;
    if !sub.arity_ok(args.len()) {
        return Err(RespError::WrongArity(sub.name.to_string()));
    }
    Ok(sub)
}

/// What a handler works with: the store (shared or exclusive), the
/// protocol-wide state and this connection's state.
pub struct Ctx<'a, S> {
    /// The keyspace access for this command.
    pub store: &'a mut S,
    /// State shared by every connection of the front end.
    pub shared: &'a Shared,
    /// This connection.
    pub conn: &'a mut Connection,
}

/// Runs one command whose arity was already checked, appending its reply.
/// On `Err` nothing was written; the caller writes the error.
pub fn execute<S: Store>(
    spec: &'static CommandSpec,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    use commands::*;
    use Command as C;
    match spec.command {
        C::Get => get::get(ctx, args, out),
        C::Set => set::set(ctx, args, out),
        C::SetNx => setex::setnx(ctx, args, out),
        C::SetEx => setex::setex(ctx, args, out, expire::Unit::Seconds, "setex"),
        C::PSetEx => setex::setex(ctx, args, out, expire::Unit::Millis, "psetex"),
        C::MGet => mget::mget(ctx, args, out),
        C::MSet => mset::mset(ctx, args, out, false),
        C::MSetNx => mset::mset(ctx, args, out, true),
        C::GetSet => getset::getset(ctx, args, out),
        C::GetDel => getset::getdel(ctx, args, out),
        C::GetEx => getex::getex(ctx, args, out),
        C::Append => append::append(ctx, args, out),
        C::StrLen => strlen::strlen(ctx, args, out),
        C::GetRange => getrange::getrange(ctx, args, out),
        C::SetRange => setrange::setrange(ctx, args, out),
        C::Incr => incr::incr(ctx, args, out, incr::Step::By(1)),
        C::Decr => incr::incr(ctx, args, out, incr::Step::By(-1)),
        C::IncrBy => incr::incr(ctx, args, out, incr::Step::Arg),
        C::DecrBy => incr::incr(ctx, args, out, incr::Step::NegatedArg),
        C::IncrByFloat => incrbyfloat::incrbyfloat(ctx, args, out),
        C::Del => del::del(ctx, args, out),
        C::Exists => exists::exists(ctx, args, out),
        C::Expire => expire::expire(ctx, args, out, expire::Unit::Seconds, false, "expire"),
        C::PExpire => expire::expire(ctx, args, out, expire::Unit::Millis, false, "pexpire"),
        C::ExpireAt => expire::expire(ctx, args, out, expire::Unit::Seconds, true, "expireat"),
        C::PExpireAt => expire::expire(ctx, args, out, expire::Unit::Millis, true, "pexpireat"),
        C::Ttl => ttl::ttl(ctx, args, out, ttl::Report::RemainingSecs),
        C::PTtl => ttl::ttl(ctx, args, out, ttl::Report::RemainingMillis),
        C::ExpireTime => ttl::ttl(ctx, args, out, ttl::Report::AtSecs),
        C::PExpireTime => ttl::ttl(ctx, args, out, ttl::Report::AtMillis),
        C::Persist => persist::persist(ctx, args, out),
        C::Type => key_type::key_type(ctx, args, out),
        C::Keys => keys::keys(ctx, args, out),
        C::Scan => scan::scan(ctx, args, out),
        C::Rename => rename::rename(ctx, args, out, false),
        C::RenameNx => rename::rename(ctx, args, out, true),
        C::RandomKey => randomkey::randomkey(ctx, args, out),
        C::DbSize => dbsize::dbsize(ctx, args, out),
        C::Flush => flush::flush(ctx, args, out),
        C::Unwatch => watch::unwatch(ctx, args, out),
        C::Ping => ping::ping(ctx, args, out),
        C::Echo => ping::echo(ctx, args, out),
        C::Select => select::select(ctx, args, out),
        C::Auth => auth::auth(ctx, args, out),
        C::Hello => hello::hello(ctx, args, out),
        C::Client => client::client(ctx, args, out),
        C::Command => command_info::command(ctx, args, out),
        C::Config => config::config(ctx, args, out),
        C::Info => info::info(ctx, args, out),
        C::Time => time::time(ctx, args, out),
        C::BgSave => save::bgsave(ctx, args, out),
        C::Save => save::save(ctx, args, out),
        C::LastSave => save::lastsave(ctx, args, out),
        // Run by the session, never queued or dispatched here; answered
        // defensively rather than panicking.
        C::Multi => Err(RespError::NestedMulti),
        C::Exec => Err(RespError::ExecWithoutMulti),
        C::Discard => Err(RespError::DiscardWithoutMulti),
        C::Watch => Err(RespError::WatchInsideMulti),
        C::Quit | C::Reset => {
            out.ok();
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for pair in COMMANDS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} !< {}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn lookup_is_case_insensitive() {
        assert_eq!(lookup(b"GET").map(|s| s.name), Some("get"));
        assert_eq!(lookup(b"gEt").map(|s| s.name), Some("get"));
        assert!(lookup(b"nosuchcommand").is_none());
        assert!(lookup(b"").is_none());
        assert!(lookup(&[b'a'; 100]).is_none());
    }

    #[test]
    fn arity() {
        let get = lookup(b"get")
            .map(|s| (s.arity_ok(2), s.arity_ok(3)))
            .unwrap_or_default();
        assert_eq!(get, (true, false));
        let set = lookup(b"set").map(|s| (s.arity_ok(2), s.arity_ok(3), s.arity_ok(9)));
        assert_eq!(set, Some((false, true, true)));
    }

    #[test]
    fn subcommands_resolve() {
        let client = lookup(b"client").map(|c| c.subcommand(b"SETNAME").map(|s| s.name));
        assert_eq!(client, Some(Some("client|setname")));
    }
}
