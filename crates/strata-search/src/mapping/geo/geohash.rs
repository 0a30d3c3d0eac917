//! Geohashes: a point's cell as an integer ([`GeohashCell`]: longitude and
//! latitude bits interleaved, longitude first), its base32 text, and the
//! edges of a hash's cell.
//!
//! The classic encoder bisects: halve the longitude (then latitude) range
//! and take the upper half when `v >= mid`. Every `mid` it compares against
//! is a boundary `lo + k * span / 2^n` — a dyadic fraction of 360 or 180,
//! exact in f64 — so the bisection finds the largest `k` whose boundary is
//! `<= v` (0 when there is none, e.g. for NaN). [`GeohashCell::of`] finds
//! the same `k` without the loop: a float estimate, corrected by comparing
//! against exactly computed boundaries. A cell at fewer characters is the
//! prefix of the cell at 12, as with bisection.

use std::fmt;

use super::point::GeoPoint;

const BASE32: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";

/// Bits per coordinate at the longest precision: 12 characters are 60
/// bits, 30 of longitude and 30 of latitude.
const COORD_BITS: u32 = 30;

/// The longest geohash, in characters.
pub const MAX_PRECISION: usize = 12;

/// A geohash cell: the hash's `5 * precision` bits, right-aligned.
///
/// For one precision, cells order as their base32 texts do (the alphabet
/// is in ASCII order and every text has `precision` characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GeohashCell {
    /// The bits, most significant first: longitude, latitude, longitude, ...
    pub bits: u64,
    /// Characters, 0..=12.
    pub precision: u8,
}

impl GeohashCell {
    /// The cell holding `point` at `precision` characters (above 12 counts
    /// as 12). Identical to bisection for every input, boundaries and
    /// ±90/±180 included; out-of-range values clamp to the edge cells.
    #[inline]
    pub fn of(point: GeoPoint, precision: usize) -> GeohashCell {
        let precision = precision.min(MAX_PRECISION);
        let x = cell_index(point.lon, -180.0, 360.0);
        let y = cell_index(point.lat, -90.0, 180.0);
        // 60 bits: longitude bit i at 2i + 1, latitude bit i at 2i.
        let code = spread(x) << 1 | spread(y);
        GeohashCell {
            bits: code >> (5 * (MAX_PRECISION - precision)),
            precision: precision as u8,
        }
    }

    /// The cell with these bits, when they fit `precision`.
    pub fn new(bits: u64, precision: usize) -> Option<GeohashCell> {
        (precision <= MAX_PRECISION && bits >> (5 * precision) == 0).then_some(GeohashCell {
            bits,
            precision: precision as u8,
        })
    }
}

impl fmt::Display for GeohashCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [0u8; MAX_PRECISION];
        let n = usize::from(self.precision);
        for (i, c) in text[..n].iter_mut().enumerate() {
            *c = BASE32[(self.bits >> (5 * (n - 1 - i)) & 31) as usize];
        }
        // Base32 characters are ASCII.
        f.write_str(std::str::from_utf8(&text[..n]).map_err(|_| fmt::Error)?)
    }
}

/// The largest `k < 2^30` with `lo + k * span / 2^30 <= v` (0 when none).
#[inline]
fn cell_index(v: f64, lo: f64, span: f64) -> u64 {
    const LAST: u64 = (1 << COORD_BITS) - 1;
    // span * 2^-30 exactly, since span is 360 or 180 (45 * 2^3, 45 * 2^2).
    let step = span / (1u64 << COORD_BITS) as f64;
    // Exact: k * 45 < 2^36, and the sum is a multiple of 2^-28 or 2^-27
    // below 2^8 in magnitude, so it needs < 40 significant bits.
    let boundary = |k: u64| lo + k as f64 * step;
    // Cells per degree; a multiplication rather than a division by `step`
    // (a division is the longest instruction here, and this runs per point
    // of every document a grid aggregates).
    let per_degree = (1u64 << COORD_BITS) as f64 / span;
    // `as` truncates (the floor, for the non-negative) and saturates: NaN
    // and negatives give 0, too large a value u64::MAX. Rounding in `v - lo`
    // and in `per_degree` is under 1e-6 of a cell, so the estimate is off
    // by at most one either way, and one comparison either way makes it
    // exact.
    let k = (((v - lo) * per_degree) as u64).min(LAST);
    if k < LAST && v >= boundary(k + 1) {
        k + 1
    } else if k > 0 && v < boundary(k) {
        k - 1
    } else {
        k
    }
}

/// The low 32 bits of `v` moved to the even bit positions.
#[inline]
pub(super) fn spread(v: u64) -> u64 {
    let mut x = v & 0xFFFF_FFFF;
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

/// The centre of a geohash's cell; `None` for an empty or invalid hash.
pub fn geohash_decode(hash: &str) -> Option<GeoPoint> {
    let (south, north, west, east) = geohash_cell(hash)?;
    Some(GeoPoint {
        lat: (south + north) / 2.0,
        lon: (west + east) / 2.0,
    })
}

/// A geohash's cell as `(south, north, west, east)` edges; `None` for an
/// empty, over-long or invalid hash.
pub fn geohash_cell(hash: &str) -> Option<(f64, f64, f64, f64)> {
    if hash.is_empty() || hash.len() > MAX_PRECISION {
        return None;
    }
    let (mut lat_lo, mut lat_hi) = (-90.0f64, 90.0f64);
    let (mut lon_lo, mut lon_hi) = (-180.0f64, 180.0f64);
    let mut even = true;
    for c in hash.bytes() {
        let index = BASE32.iter().position(|b| *b == c.to_ascii_lowercase())?;
        for bit in (0..5).rev() {
            let (lo, hi) = if even {
                (&mut lon_lo, &mut lon_hi)
            } else {
                (&mut lat_lo, &mut lat_hi)
            };
            let mid = (*lo + *hi) / 2.0;
            if index >> bit & 1 == 1 {
                *lo = mid;
            } else {
                *hi = mid;
            }
            even = !even;
        }
    }
    Some((lat_lo, lat_hi, lon_lo, lon_hi))
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::mapping::geo::CellFinder;

    /// The bisection encoder `GeohashCell::of` replaced, as it was.
    fn bisect(point: GeoPoint, precision: usize) -> String {
        let (mut lat_lo, mut lat_hi) = (-90.0f64, 90.0f64);
        let (mut lon_lo, mut lon_hi) = (-180.0f64, 180.0f64);
        let mut out = String::with_capacity(precision);
        let mut even = true; // bits alternate, longitude first
        for _ in 0..precision {
            let mut index = 0usize;
            for _ in 0..5 {
                let (lo, hi, v) = if even {
                    (&mut lon_lo, &mut lon_hi, point.lon)
                } else {
                    (&mut lat_lo, &mut lat_hi, point.lat)
                };
                let mid = (*lo + *hi) / 2.0;
                index <<= 1;
                if v >= mid {
                    index |= 1;
                    *lo = mid;
                } else {
                    *hi = mid;
                }
                even = !even;
            }
            out.push(char::from(BASE32[index]));
        }
        out
    }

    fn check(lat: f64, lon: f64) {
        let p = GeoPoint { lat, lon };
        for precision in 1..=MAX_PRECISION {
            let cell = GeohashCell::of(p, precision);
            assert_eq!(
                cell.to_string(),
                bisect(p, precision),
                "lat {lat:?} lon {lon:?} precision {precision}"
            );
            assert_eq!(
                CellFinder::new(precision).bits(p),
                cell.bits,
                "finder: lat {lat:?} lon {lon:?} precision {precision}"
            );
            assert_eq!(GeohashCell::new(cell.bits, precision), Some(cell));
        }
    }

    /// `v` and its two neighbouring doubles.
    fn around(v: f64) -> [f64; 3] {
        [v.next_down(), v, v.next_up()]
    }

    #[test]
    fn integer_cells_match_bisection_for_random_points() {
        let mut rng = SmallRng::seed_from_u64(0x6e0_4a54);
        for _ in 0..20_000 {
            check(rng.gen_range(-90.0..=90.0), rng.gen_range(-180.0..=180.0));
        }
        // Short decimals, as documents usually hold.
        for _ in 0..5_000 {
            let lat = f64::from(rng.gen_range(-900_000..=900_000i32)) / 10_000.0;
            let lon = f64::from(rng.gen_range(-1_800_000..=1_800_000i32)) / 10_000.0;
            check(lat, lon);
        }
    }

    #[test]
    fn integer_cells_match_bisection_on_boundaries() {
        for lat in [-90.0, -45.0, 0.0, -0.0, 45.0, 90.0] {
            for lon in [-180.0, -90.0, 0.0, -0.0, 90.0, 180.0] {
                for (a, b) in around(lat).into_iter().zip(around(lon)) {
                    check(a, lon);
                    check(lat, b);
                    check(a, b);
                }
            }
        }
        // Cell edges at every depth, and the doubles either side of them.
        let mut rng = SmallRng::seed_from_u64(7);
        for bits in 1..=COORD_BITS {
            for _ in 0..200 {
                let k = rng.gen_range(0..=1u64 << bits) as f64;
                let lon = -180.0 + k * 360.0 / (1u64 << bits) as f64;
                let lat = -90.0 + k * 180.0 / (1u64 << bits) as f64;
                let other = rng.gen_range(-90.0..=90.0);
                for (a, b) in around(lat).into_iter().zip(around(lon)) {
                    check(a.clamp(-90.0, 90.0), b.clamp(-180.0, 180.0));
                    check(other, b.clamp(-180.0, 180.0));
                    check(a.clamp(-90.0, 90.0), other * 2.0);
                }
            }
        }
    }

    #[test]
    fn out_of_range_values_clamp_like_bisection() {
        for (lat, lon) in [
            (f64::NAN, 0.0),
            (0.0, f64::NAN),
            (100.0, 200.0),
            (-100.0, -200.0),
            (f64::INFINITY, f64::NEG_INFINITY),
        ] {
            check(lat, lon);
        }
    }

    #[test]
    fn cells_order_as_their_texts() {
        assert!(BASE32.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(GeohashCell::new(32, 1), None);
        assert_eq!(GeohashCell::new(31, 1).unwrap().to_string(), "z");
        assert_eq!(GeohashCell::new(0, 0).unwrap().to_string(), "");
    }

    /// The geohash of a point at `precision` characters.
    fn geohash(point: GeoPoint, precision: usize) -> String {
        GeohashCell::of(point, precision).to_string()
    }

    #[test]
    fn geohash_known_values() {
        let p = GeoPoint::new(57.64911, 10.40744).unwrap();
        assert_eq!(geohash(p, 11), "u4pruydqqvj");
        assert_eq!(geohash(p, 1), "u");
        // Elasticsearch's documentation examples.
        let amsterdam = GeoPoint::new(52.374081, 4.912350).unwrap();
        assert_eq!(geohash(amsterdam, 3), "u17");
        assert_eq!(geohash(GeoPoint::new(0.0, 0.0).unwrap(), 3), "s00");
        assert_eq!(geohash(GeoPoint::new(-90.0, -180.0).unwrap(), 2), "00");
        assert_eq!(geohash(GeoPoint::new(90.0, 180.0).unwrap(), 2), "zz");
        let back = geohash_decode("u4pruydqqvj").unwrap();
        assert!((back.lat - 57.64911).abs() < 1e-5 && (back.lon - 10.40744).abs() < 1e-5);
        assert!(geohash_decode("u4a").is_none());
    }
}
