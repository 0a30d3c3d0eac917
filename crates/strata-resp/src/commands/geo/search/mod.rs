//! `GEOSEARCH`, `GEOSEARCHSTORE`, `GEORADIUS[_RO]` and
//! `GEORADIUSBYMEMBER[_RO]`: one search (Redis's `georadiusGeneric`).
//! `options.rs` parses, `scan.rs` finds the points; here they are sorted,
//! cut to `COUNT` and replied or stored (with every key's shard held).

mod form;
mod options;
mod scan;

pub use form::Form;

use strata_kv::Store;

use self::options::{Query, Sort};
use self::scan::{find, Point};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::commands::zset::stored::{read, replace};
use crate::encodings::PackedLimits;
use crate::notify;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Sorts `found` as asked (`COUNT` without an order sorts nearest first,
/// unless `ANY`) and keeps at most `COUNT`.
fn order(mut found: Vec<Point>, q: &Query<'_>) -> Vec<Point> {
    let sort = match q.sort {
        Sort::None if q.count != 0 && !q.any => Sort::Asc,
        s => s,
    };
    match sort {
        Sort::Asc => found.sort_by(|a, b| a.dist.total_cmp(&b.dist)),
        Sort::Desc => found.sort_by(|a, b| b.dist.total_cmp(&a.dist)),
        Sort::None => {}
    }
    if q.count != 0 {
        found.truncate(q.count as usize);
    }
    found
}

/// The search with a destination: the points replace it as a sorted set
/// (scored by geohash, or with `STOREDIST` by distance in the unit).
struct Stored<'a> {
    source: &'a [u8],
    destination: &'a [u8],
    distances: bool,
    query: Query<'a>,
    limits: PackedLimits,
}

impl Atomic for Stored<'_> {
    /// How many were stored, and whether the destination existed before.
    type Output = Result<(usize, bool), RespError>;

    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let found = find(store, self.source, &self.query)?.unwrap_or_default();
        let found = order(found, &self.query);
        let mut entries: Vec<(f64, Vec<u8>)> = found
            .into_iter()
            .map(|p| match self.distances {
                true => (p.dist / self.query.to_metres, p.member),
                false => (p.score, p.member),
            })
            .collect();
        entries.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let existed = replace(store, self.destination, self.limits, &entries)?;
        Ok((entries.len(), existed))
    }
}

/// Runs a geospatial search of `form`.
pub fn search<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let source = match form {
        Form::SearchStore => args.get(2),
        _ => args.get(1),
    };
    // As Redis: the key's type is checked before the arguments.
    read(ctx.store, source, |_| Ok(()))?;
    let query = options::parse(form, &args)?;
    if let Some((destination, distances)) = query.store {
        let task = Stored {
            source,
            destination,
            distances,
            query,
            limits: ctx.shared.encodings.zset(),
        };
        let (stored, existed) = atomically(ctx, &[source, destination], task)?;
        let event = match form {
            Form::SearchStore => "geosearchstore",
            _ => "georadiusstore",
        };
        notify::fire_stored(ctx, existed, stored > 0, (notify::ZSET, event), destination);
        out.integer(stored as i64);
        return Ok(());
    }
    let found = order(find(ctx.store, source, &query)?.unwrap_or_default(), &query);
    let extras =
        usize::from(query.with_dist) + usize::from(query.with_hash) + usize::from(query.with_coord);
    out.array(found.len());
    for p in found {
        if extras > 0 {
            out.array(extras + 1);
        }
        out.bulk(&p.member);
        if query.with_dist {
            out.bulk(format!("{:.4}", p.dist / query.to_metres).as_bytes());
        }
        if query.with_hash {
            out.integer(p.score as i64);
        }
        if query.with_coord {
            out.array(2);
            out.human_double(p.longitude);
            out.human_double(p.latitude);
        }
    }
    Ok(())
}
