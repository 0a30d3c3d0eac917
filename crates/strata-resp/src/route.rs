//! [`execute`]: runs one command by its table row, generic over the
//! engine's [`Store`] so the same handlers run on the shared store and
//! inside `MULTI`/`EXEC`'s exclusive section: every command a script may
//! call (`redis.call` comes here). `EVAL` and friends, which run scripts,
//! are routed one level up, in [`dispatch`](crate::dispatch).

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands;
use crate::reply::RespError;
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
    use crate::pubsub::Kind;
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
        C::Touch => touch::touch(ctx, args, out),
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
        C::Cluster => cluster::cluster(ctx, args, out),
        C::ClusterMode => cluster::cluster_mode(ctx, args, out),
        C::Role => role::role(ctx, args, out),
        C::Command => command_info::command(ctx, args, out),
        C::Config => config::config(ctx, args, out),
        C::Info => info::info(ctx, args, out),
        C::Time => time::time(ctx, args, out),
        C::BgSave => save::bgsave(ctx, args, out),
        C::BgRewriteAof => save::bgrewriteaof(ctx, args, out),
        C::Module => module::module(ctx, args, out),
        C::ReplicaOf => replicaof::replicaof(ctx, args, out),
        C::Failover => failover::failover(ctx, args, out),
        C::Save => save::save(ctx, args, out),
        C::LastSave => save::lastsave(ctx, args, out),
        C::Acl => acl::acl(ctx, args, out),
        C::SlowLog => slowlog::slowlog(ctx, args, out),
        C::Monitor => monitor::monitor(ctx, args, out),
        C::Subscribe => subscribe::subscribe(ctx, args, out, Kind::Channel),
        C::PSubscribe => subscribe::subscribe(ctx, args, out, Kind::Pattern),
        C::SSubscribe => subscribe::subscribe(ctx, args, out, Kind::Shard),
        C::Unsubscribe => subscribe::unsubscribe(ctx, args, out, Kind::Channel),
        C::PUnsubscribe => subscribe::unsubscribe(ctx, args, out, Kind::Pattern),
        C::SUnsubscribe => subscribe::unsubscribe(ctx, args, out, Kind::Shard),
        C::Publish => publish::publish(ctx, args, out, Kind::Channel),
        C::SPublish => publish::publish(ctx, args, out, Kind::Shard),
        C::PubSub => pubsub::pubsub(ctx, args, out),
        // Scripts run above this table (`dispatch.rs`); a script's
        // `redis.call` refuses them first (`noscript`), so this is never
        // reached, and answers as that check does rather than panicking.
        C::Eval | C::EvalSha | C::EvalRo | C::EvalShaRo | C::FCall | C::FCallRo => Err(
            RespError::Script("ERR This Redis command is not allowed from script".into()),
        ),
        C::Script => script::script(ctx, args, out),
        C::Function => function::function(ctx, args, out),
        C::Bitmap(op) => bitmap::run(op, ctx, args, out),
        C::Geo(op) => geo::run(op, ctx, args, out),
        C::Hash(op) => hash::run(op, ctx, args, out),
        C::HyperLogLog(op) => hyperloglog::run(op, ctx, args, out),
        C::List(op) => list::run(op, ctx, args, out),
        C::Sets(op) => sets::run(op, ctx, args, out),
        C::SortedSet(op) => zset::run(op, ctx, args, out),
        C::Stream(op) => stream::run(op, ctx, args, out),
        C::Copy => copy::copy(ctx, args, out),
        C::Dump => dump::dump(ctx, args, out),
        C::Restore => restore::restore(ctx, args, out),
        C::Migrate => migrate::migrate(ctx, args, out),
        C::Debug => debug::debug(ctx, args, out),
        C::Lolwut => lolwut::lolwut(ctx, args, out),
        C::Sync => sync::sync(ctx, args, out, false),
        C::PSync => sync::sync(ctx, args, out, true),
        C::ReplConf => replconf::replconf(ctx, args, out),
        C::WaitAof => waitaof::waitaof(ctx, args, out),
        C::Object => object::object(ctx, args, out),
        C::Memory => memory::memory(ctx, args, out),
        C::Latency => latency::latency(ctx, args, out),
        C::Move => move_key::move_key(ctx, args, out),
        C::SwapDb => swapdb::swapdb(ctx, args, out),
        C::Wait => wait::wait(ctx, args, out),
        C::Sort => sort::sort(ctx, args, out, sort::Form::Sort),
        C::SortRo => sort::sort(ctx, args, out, sort::Form::SortRo),
        C::Lcs => lcs::lcs(ctx, args, out),
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
        C::Shutdown => Err(RespError::NotInTransaction),
    }
}
