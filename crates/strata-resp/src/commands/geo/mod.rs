//! Geospatial commands over sorted sets, as Redis has them ([`crate::geo`]
//! does the geometry): a point is a member scored with its geohash, so
//! `ZRANGE`, `ZREM` and the rest work on them too. One file per command;
//! `search/` holds `GEOSEARCH`, `GEOSEARCHSTORE` and the four `GEORADIUS`
//! forms, which share one search.

pub mod args;
pub mod geoadd;
pub mod geodist;
pub mod geohash;
pub mod geopos;
mod op;
pub mod search;

pub use op::Op;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Runs geospatial command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    use search::Form;
    match op {
        Op::GeoAdd => geoadd::geoadd(ctx, args, out),
        Op::GeoPos => geopos::geopos(ctx, args, out),
        Op::GeoDist => geodist::geodist(ctx, args, out),
        Op::GeoHash => geohash::geohash(ctx, args, out),
        Op::GeoSearch => search::search(ctx, args, out, Form::Search),
        Op::GeoSearchStore => search::search(ctx, args, out, Form::SearchStore),
        Op::GeoRadius => search::search(ctx, args, out, Form::Radius { store: true }),
        Op::GeoRadiusRo => search::search(ctx, args, out, Form::Radius { store: false }),
        Op::GeoRadiusByMember => search::search(ctx, args, out, Form::ByMember { store: true }),
        Op::GeoRadiusByMemberRo => search::search(ctx, args, out, Form::ByMember { store: false }),
    }
}
