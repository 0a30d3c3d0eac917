//! Set commands. A set is a packed collection of its members, unordered
//! (see [`collection`](super::collection)).

pub mod algebra;
pub mod sadd;
pub mod scard;
pub mod sismember;
pub mod smembers;
pub mod smove;
pub mod spop;
pub mod srem;
pub mod sscan;

use std::collections::HashSet;

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Which set command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    SAdd,
    SRem,
    SMembers,
    SIsMember,
    SMIsMember,
    SCard,
    SPop,
    SRandMember,
    SMove,
    SInter,
    SUnion,
    SDiff,
    SInterStore,
    SUnionStore,
    SDiffStore,
    SInterCard,
    SScan,
}

/// Runs set command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    use algebra::Algebra::{Diff, Inter, Union};
    match op {
        Op::SAdd => sadd::sadd(ctx, args, out),
        Op::SRem => srem::srem(ctx, args, out),
        Op::SMembers => smembers::smembers(ctx, args, out),
        Op::SIsMember => sismember::sismember(ctx, args, out, sismember::Form::One),
        Op::SMIsMember => sismember::sismember(ctx, args, out, sismember::Form::Many),
        Op::SCard => scard::scard(ctx, args, out),
        Op::SPop => spop::spop(ctx, args, out, spop::Form::Pop),
        Op::SRandMember => spop::spop(ctx, args, out, spop::Form::Random),
        Op::SMove => smove::smove(ctx, args, out),
        Op::SInter => algebra::reply(ctx, args, out, Inter),
        Op::SUnion => algebra::reply(ctx, args, out, Union),
        Op::SDiff => algebra::reply(ctx, args, out, Diff),
        Op::SInterStore => algebra::store(ctx, args, out, Inter),
        Op::SUnionStore => algebra::store(ctx, args, out, Union),
        Op::SDiffStore => algebra::store(ctx, args, out, Diff),
        Op::SInterCard => algebra::intercard(ctx, args, out),
        Op::SScan => sscan::sscan(ctx, args, out),
    }
}

/// The members of `key`'s set, copied (empty for a missing key).
pub fn members<S: Store>(store: &mut S, key: &[u8]) -> Result<Vec<Vec<u8>>, RespError> {
    Ok(read(store, key, ValueKind::Set, |m| {
        m.iter().map(|e| e.to_vec()).collect()
    })?
    .unwrap_or_default())
}

/// Membership tests over one set: a scan for small sets, a hash set for
/// large ones.
pub struct Members<'m> {
    set: Option<HashSet<&'m [u8]>>,
    members: &'m [&'m [u8]],
}

impl<'m> Members<'m> {
    /// An index over `members`.
    pub fn new(members: &'m [&'m [u8]]) -> Self {
        let set = (members.len() > 16).then(|| members.iter().copied().collect());
        Self { set, members }
    }

    /// Whether `m` is a member.
    pub fn contains(&self, m: &[u8]) -> bool {
        match &self.set {
            Some(set) => set.contains(m),
            None => self.members.contains(&m),
        }
    }
}
