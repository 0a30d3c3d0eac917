//! Finding the points of a search: the boxes `geo::search_boxes` names,
//! scanned in Redis's order (a box equal to the one scanned just before it
//! skipped, as Redis skips it), each in score order, keeping the points
//! inside the shape; with `ANY`, stopping at the count.

use strata_kv::Store;

use super::options::{From, Query};
use crate::commands::zset::stored::read;
use crate::commands::zset::view::Ordered;
use crate::geo::{decode_score, search_boxes, within, Shape};
use crate::reply::{RespError, ValueError};

/// A point found.
#[derive(Debug, Clone)]
pub struct Point {
    /// The member.
    pub member: Vec<u8>,
    /// Its score (geohash).
    pub score: f64,
    /// Metres from the centre.
    pub dist: f64,
    /// Its longitude.
    pub longitude: f64,
    /// Its latitude.
    pub latitude: f64,
}

/// The points of `q` in the sorted set at `key`, as found; `None` when
/// the key is missing.
pub fn find<S: Store>(
    store: &mut S,
    key: &[u8],
    q: &Query<'_>,
) -> Result<Option<Vec<Point>>, RespError> {
    read(store, key, |z| points(z, q))
}

fn points(z: &mut dyn Ordered, q: &Query<'_>) -> Result<Vec<Point>, RespError> {
    let centre = match q.from {
        Some(From::Point(x, y)) => (x, y),
        Some(From::Member(m)) => {
            decode_score(z.score(m)?.ok_or(RespError::from(ValueError::GeoMember))?)
        }
        None => return Ok(Vec::new()),
    };
    let Some(kind) = q.kind else {
        return Ok(Vec::new());
    };
    let shape = Shape {
        centre,
        kind,
        to_metres: q.to_metres,
    };
    let Some(boxes) = search_boxes(&shape) else {
        return Ok(Vec::new());
    };
    let limit = if q.any { q.count as usize } else { 0 };
    let mut found = Vec::new();
    let mut last = 0;
    for (i, b) in boxes.iter().enumerate() {
        if b.is_zero() {
            continue;
        }
        // Redis compares with the box scanned last, except the centre.
        if last != 0 && *b == boxes[last] {
            continue;
        }
        if limit != 0 && found.len() >= limit {
            break;
        }
        let (min, max) = crate::geo::score_range(*b);
        let start = z.count_before(&|s, _| s < min)?;
        let end = z.count_before(&|s, _| s < max)?;
        for (score, member) in z.range(start, end)? {
            let (longitude, latitude) = decode_score(score);
            if let Some(dist) = within(&shape, longitude, latitude) {
                found.push(Point {
                    member,
                    score,
                    dist,
                    longitude,
                    latitude,
                });
                if limit != 0 && found.len() >= limit {
                    break;
                }
            }
        }
        last = i;
    }
    Ok(found)
}
