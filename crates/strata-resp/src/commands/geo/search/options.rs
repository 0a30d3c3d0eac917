//! The options of a geospatial search, parsed in Redis's order and with
//! Redis's errors (`georadiusGeneric`).

use crate::args::Args;
use crate::geo::ShapeKind;
use crate::number::{parse_f64, parse_i64};
use crate::reply::{RespError, ValueError};

use super::super::args::{lon_lat, unit};
use super::form::Form;

/// Where the search is centred.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum From<'a> {
    /// A point.
    Point(f64, f64),
    /// A member's position (looked up when the key exists).
    Member(&'a [u8]),
}

/// The order of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// As found (box by box, each in score order).
    None,
    /// Nearest first.
    Asc,
    /// Farthest first.
    Desc,
}

/// A parsed search.
#[derive(Debug, Clone)]
pub struct Query<'a> {
    /// The centre.
    pub from: Option<From<'a>>,
    /// The shape around it.
    pub kind: Option<ShapeKind>,
    /// Metres per unit.
    pub to_metres: f64,
    /// `WITHDIST`.
    pub with_dist: bool,
    /// `WITHHASH`.
    pub with_hash: bool,
    /// `WITHCOORD`.
    pub with_coord: bool,
    /// `ANY`: stop at `count` found.
    pub any: bool,
    /// `COUNT` (0: all).
    pub count: u64,
    /// `ASC`, `DESC` or neither.
    pub sort: Sort,
    /// The destination, and whether it stores distances (`STOREDIST`).
    pub store: Option<(&'a [u8], bool)>,
}

/// A radius and its unit.
fn radius(value: &[u8], unit_arg: &[u8]) -> Result<(f64, f64), RespError> {
    let r = parse_f64(value).ok_or(RespError::from(ValueError::GeoNumeric("radius")))?;
    if r < 0.0 {
        return Err(RespError::from(ValueError::GeoNegative(
            "radius cannot be negative",
        )));
    }
    Ok((r, unit(unit_arg)?))
}

/// A box's width, height and unit.
fn rectangle(w: &[u8], h: &[u8], unit_arg: &[u8]) -> Result<(f64, f64, f64), RespError> {
    let w = parse_f64(w).ok_or(RespError::from(ValueError::GeoNumeric("width")))?;
    let h = parse_f64(h).ok_or(RespError::from(ValueError::GeoNumeric("height")))?;
    if w < 0.0 || h < 0.0 {
        return Err(RespError::from(ValueError::GeoNegative(
            "height or width cannot be negative",
        )));
    }
    Ok((w, h, unit(unit_arg)?))
}

/// Parses `args` for `form`; the leading arguments of the `GEORADIUS`
/// forms first, then the options (`base` on).
pub fn parse<'a>(form: Form, args: &Args<'a>) -> Result<Query<'a>, RespError> {
    let mut q = Query {
        from: None,
        kind: None,
        to_metres: 1.0,
        with_dist: false,
        with_hash: false,
        with_coord: false,
        any: false,
        count: 0,
        sort: Sort::None,
        store: match form {
            Form::SearchStore => Some((args.get(1), false)),
            _ => None,
        },
    };
    let base = match form {
        Form::Radius { .. } => {
            let (x, y) = lon_lat(args.get(2), args.get(3))?;
            let (r, to_metres) = radius(args.get(4), args.get(5))?;
            (q.from, q.kind, q.to_metres) = (
                Some(From::Point(x, y)),
                Some(ShapeKind::Radius(r)),
                to_metres,
            );
            6
        }
        Form::ByMember { .. } => {
            let (r, to_metres) = radius(args.get(3), args.get(4))?;
            (q.from, q.kind, q.to_metres) = (
                Some(From::Member(args.get(2))),
                Some(ShapeKind::Radius(r)),
                to_metres,
            );
            5
        }
        Form::Search => 2,
        Form::SearchStore => 3,
    };
    let search = matches!(form, Form::Search | Form::SearchStore);
    let may_store = matches!(
        form,
        Form::Radius { store: true } | Form::ByMember { store: true }
    );
    let (mut from_member, mut from_point, mut by_radius, mut by_box) = (false, false, false, false);
    let mut i = base;
    while i < args.len() {
        let left = args.len() - i - 1;
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"withdist" => q.with_dist = true,
            b"withhash" => q.with_hash = true,
            b"withcoord" => q.with_coord = true,
            b"any" => q.any = true,
            b"asc" => q.sort = Sort::Asc,
            b"desc" => q.sort = Sort::Desc,
            b"count" if left >= 1 => {
                let n = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                if n <= 0 {
                    return Err(RespError::from(ValueError::GeoCount));
                }
                q.count = n as u64;
                i += 1;
            }
            b"store" if left >= 1 && may_store => {
                q.store = Some((args.get(i + 1), false));
                i += 1;
            }
            b"storedist" if left >= 1 && may_store => {
                q.store = Some((args.get(i + 1), true));
                i += 1;
            }
            b"storedist" if form == Form::SearchStore => {
                q.store = q.store.map(|(key, _)| (key, true));
            }
            b"frommember" if left >= 1 && search && !from_point => {
                q.from = Some(From::Member(args.get(i + 1)));
                from_member = true;
                i += 1;
            }
            b"fromlonlat" if left >= 2 && search && !from_member => {
                let (x, y) = lon_lat(args.get(i + 1), args.get(i + 2))?;
                q.from = Some(From::Point(x, y));
                from_point = true;
                i += 2;
            }
            b"byradius" if left >= 2 && search && !by_box => {
                let (r, to_metres) = radius(args.get(i + 1), args.get(i + 2))?;
                (q.kind, q.to_metres) = (Some(ShapeKind::Radius(r)), to_metres);
                by_radius = true;
                i += 2;
            }
            b"bybox" if left >= 3 && search && !by_radius => {
                let (w, h, to_metres) =
                    rectangle(args.get(i + 1), args.get(i + 2), args.get(i + 3))?;
                (q.kind, q.to_metres) = (Some(ShapeKind::Box(w, h)), to_metres);
                by_box = true;
                i += 3;
            }
            _ => return Err(RespError::Syntax),
        }
        i += 1;
    }
    let name = || String::from_utf8_lossy(args.get(0)).into_owned();
    if q.store.is_some() && (q.with_dist || q.with_hash || q.with_coord) {
        return Err(RespError::from(ValueError::GeoStoreWith(match form {
            Form::SearchStore => "GEOSEARCHSTORE",
            _ => "STORE option in GEORADIUS",
        })));
    }
    if search && !(from_member || from_point) {
        return Err(RespError::from(ValueError::GeoFrom(name())));
    }
    if search && !(by_radius || by_box) {
        return Err(RespError::from(ValueError::GeoBy(name())));
    }
    if q.any && q.count == 0 {
        return Err(RespError::from(ValueError::GeoAnyCount));
    }
    Ok(q)
}
