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
    Acl,
    SlowLog,
    Subscribe,
    Unsubscribe,
    PSubscribe,
    PUnsubscribe,
    SSubscribe,
    SUnsubscribe,
    Publish,
    SPublish,
    PubSub,
    Eval,
    EvalSha,
    EvalRo,
    EvalShaRo,
    Script,
    Hash(crate::commands::hash::Op),
    List(crate::commands::list::Op),
    Sets(crate::commands::sets::Op),
    SortedSet(crate::commands::zset::Op),
    Copy,
    Object,
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
    /// Where the key arguments are and how each is used (Redis 7 key
    /// specifications); ACL key checks and `COMMAND INFO` both read them.
    pub keys: &'static [KeySpec],
    /// ACL categories (`@read`, `@string`, ...).
    pub categories: &'static [&'static str],
    /// Documentation group (`string`, `generic`, `server`, ...).
    pub group: &'static str,
    /// Redis version that introduced it.
    pub since: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Subcommands of a container command (CLIENT, CONFIG, COMMAND, ...).
    pub subcommands: &'static [CommandSpec],
}

/// One Redis 7 key specification of the simple kind every Strata command
/// uses: keys found from argument `begin`, up to `last` (0: only that one;
/// negative: counted from the end, -1 being the last argument), every
/// `step` arguments.
#[derive(Debug)]
pub struct KeySpec {
    /// Redis key-spec flags (`RO`/`RW`/`OW`/`RM`, then `access`, `insert`,
    /// `update`, `delete`, `variable_flags`).
    pub flags: &'static [&'static str],
    /// Index of the first key argument.
    pub begin: i32,
    /// `lastkey`, relative to `begin` when not negative.
    pub last: i32,
    /// `keystep`.
    pub step: i32,
}

impl KeySpec {
    /// Whether the command reads the keys' values (ACL `%R~` patterns).
    pub fn reads(&self) -> bool {
        self.flags.contains(&"access")
    }

    /// Whether the command changes or removes the keys (ACL `%W~` patterns).
    pub fn writes(&self) -> bool {
        self.flags
            .iter()
            .any(|f| matches!(*f, "insert" | "update" | "delete"))
    }

    /// The argument indexes holding keys in a request of `argc` arguments
    /// (name included).
    pub fn positions(&self, argc: usize) -> impl Iterator<Item = usize> {
        let argc = argc as i64;
        let begin = i64::from(self.begin);
        let last = if self.last >= 0 {
            begin + i64::from(self.last)
        } else {
            argc + i64::from(self.last)
        };
        let last = last.min(argc - 1);
        let step = usize::try_from(self.step.max(1)).unwrap_or(1);
        (begin..=last)
            .step_by(step)
            .filter_map(|i| usize::try_from(i).ok())
    }
}

impl CommandSpec {
    /// Redis's legacy `(first key, last key, step)` triple, derived from the
    /// key specifications as Redis derives it: `(0, 0, 0)` without keys.
    pub fn legacy_keys(&self) -> (i32, i32, i32) {
        let (Some(first), Some(final_spec)) = (self.keys.first(), self.keys.last()) else {
            return (0, 0, 0);
        };
        let last = if final_spec.last < 0 {
            final_spec.last
        } else {
            final_spec.begin + final_spec.last
        };
        (first.begin, last, first.step)
    }

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
    use crate::pubsub::Kind;
    use crate::scripting::Access;
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
        C::Acl => acl::acl(ctx, args, out),
        C::SlowLog => slowlog::slowlog(ctx, args, out),
        C::Subscribe => subscribe::subscribe(ctx, args, out, Kind::Channel),
        C::PSubscribe => subscribe::subscribe(ctx, args, out, Kind::Pattern),
        C::SSubscribe => subscribe::subscribe(ctx, args, out, Kind::Shard),
        C::Unsubscribe => subscribe::unsubscribe(ctx, args, out, Kind::Channel),
        C::PUnsubscribe => subscribe::unsubscribe(ctx, args, out, Kind::Pattern),
        C::SUnsubscribe => subscribe::unsubscribe(ctx, args, out, Kind::Shard),
        C::Publish => publish::publish(ctx, args, out, Kind::Channel),
        C::SPublish => publish::publish(ctx, args, out, Kind::Shard),
        C::PubSub => pubsub::pubsub(ctx, args, out),
        C::Eval => eval::eval(ctx, args, out, eval::Source::Body, Access::ReadWrite),
        C::EvalSha => eval::eval(ctx, args, out, eval::Source::Sha, Access::ReadWrite),
        C::EvalRo => eval::eval(ctx, args, out, eval::Source::Body, Access::ReadOnly),
        C::EvalShaRo => eval::eval(ctx, args, out, eval::Source::Sha, Access::ReadOnly),
        C::Script => script::script(ctx, args, out),
        C::Hash(op) => hash::run(op, ctx, args, out),
        C::List(op) => list::run(op, ctx, args, out),
        C::Sets(op) => sets::run(op, ctx, args, out),
        C::SortedSet(op) => zset::run(op, ctx, args, out),
        C::Copy => copy::copy(ctx, args, out),
        C::Object => object::object(ctx, args, out),
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
    fn legacy_key_ranges_are_redis_ones() {
        for (name, legacy) in [
            ("get", (1, 1, 1)),
            ("del", (1, -1, 1)),
            ("mset", (1, -1, 2)),
            ("rename", (1, 2, 1)),
            ("ping", (0, 0, 0)),
        ] {
            assert_eq!(
                lookup(name.as_bytes()).map(|s| s.legacy_keys()),
                Some(legacy),
                "{name}"
            );
        }
    }

    #[test]
    fn key_positions() {
        let at = |name: &str, argc: usize| -> Vec<usize> {
            let spec = lookup(name.as_bytes()).unwrap();
            spec.keys.iter().flat_map(|k| k.positions(argc)).collect()
        };
        assert_eq!(at("get", 2), [1]);
        assert_eq!(at("del", 4), [1, 2, 3]);
        assert_eq!(at("mset", 5), [1, 3]);
        // A malformed MSET still has its keys checked, never more.
        assert_eq!(at("mset", 4), [1, 3]);
        assert_eq!(at("rename", 3), [1, 2]);
        assert_eq!(at("rename", 2), [1]);
        assert!(at("ping", 3).is_empty());
    }

    #[test]
    fn subcommands_resolve() {
        let client = lookup(b"client").map(|c| c.subcommand(b"SETNAME").map(|s| s.name));
        assert_eq!(client, Some(Some("client|setname")));
    }
}
