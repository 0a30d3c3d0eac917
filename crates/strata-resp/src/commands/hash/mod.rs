//! Hash commands. A hash is a packed collection of fields and values
//! alternating, in insertion order (see [`collection`](super::collection)).

pub mod hdel;
pub mod hexists;
pub mod hget;
pub mod hgetall;
pub mod hincrby;
pub mod hincrbyfloat;
pub mod hlen;
pub mod hmget;
pub mod hrandfield;
pub mod hscan;
pub mod hset;
pub mod hsetnx;
pub mod hstrlen;

use std::collections::HashMap;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Which hash command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    HSet,
    HMSet,
    HSetNx,
    HGet,
    HMGet,
    HGetAll,
    HKeys,
    HVals,
    HDel,
    HExists,
    HLen,
    HIncrBy,
    HIncrByFloat,
    HStrLen,
    HRandField,
    HScan,
}

/// Runs hash command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match op {
        Op::HSet => hset::hset(ctx, args, out, hset::Reply::Added),
        Op::HMSet => hset::hset(ctx, args, out, hset::Reply::Ok),
        Op::HSetNx => hsetnx::hsetnx(ctx, args, out),
        Op::HGet => hget::hget(ctx, args, out),
        Op::HMGet => hmget::hmget(ctx, args, out),
        Op::HGetAll => hgetall::hgetall(ctx, args, out, hgetall::Part::Both),
        Op::HKeys => hgetall::hgetall(ctx, args, out, hgetall::Part::Fields),
        Op::HVals => hgetall::hgetall(ctx, args, out, hgetall::Part::Values),
        Op::HDel => hdel::hdel(ctx, args, out),
        Op::HExists => hexists::hexists(ctx, args, out),
        Op::HLen => hlen::hlen(ctx, args, out),
        Op::HIncrBy => hincrby::hincrby(ctx, args, out),
        Op::HIncrByFloat => hincrbyfloat::hincrbyfloat(ctx, args, out),
        Op::HStrLen => hstrlen::hstrlen(ctx, args, out),
        Op::HRandField => hrandfield::hrandfield(ctx, args, out),
        Op::HScan => hscan::hscan(ctx, args, out),
    }
}

/// Above this many fields, lookups of several fields go through a map
/// built once per command instead of a scan per field.
const SCAN_LIMIT: usize = 16;

/// The pair index of `field` in `pairs` (fields and values alternating).
pub fn find(pairs: &[&[u8]], field: &[u8]) -> Option<usize> {
    pairs.chunks_exact(2).position(|p| p[0] == field)
}

/// Finds many fields in one hash: a scan for small hashes, a map for large.
pub struct Fields<'p> {
    map: Option<HashMap<&'p [u8], usize>>,
}

impl<'p> Fields<'p> {
    /// An index over `pairs` as they are now.
    pub fn new(pairs: &[&'p [u8]]) -> Self {
        let map = (pairs.len() / 2 > SCAN_LIMIT).then(|| {
            pairs
                .chunks_exact(2)
                .enumerate()
                .map(|(i, p)| (p[0], i))
                .collect()
        });
        Self { map }
    }

    /// The pair index of `field`.
    pub fn find(&self, pairs: &[&[u8]], field: &[u8]) -> Option<usize> {
        match &self.map {
            Some(map) => map.get(field).copied(),
            None => find(pairs, field),
        }
    }

    /// Notes that `field` was appended as pair `index`.
    pub fn added(&mut self, field: &'p [u8], index: usize) {
        if let Some(map) = &mut self.map {
            map.insert(field, index);
        }
    }
}
