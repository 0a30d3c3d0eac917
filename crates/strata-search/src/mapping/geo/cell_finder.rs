//! [`CellFinder`]: the geohash cells of many points at one precision, for
//! aggregations that place every document of a segment in a grid.
//!
//! The float estimate at the precision's own bit count is taken as is
//! unless it lies within a millionth of a cell of an edge (or outside the
//! range), where rounding in the estimate could matter; those points, and
//! NaN, go through [`GeohashCell::of`]. So the cells are always those of
//! [`GeohashCell::of`].

use super::geohash::{spread, GeohashCell, MAX_PRECISION};
use super::point::GeoPoint;
use crate::kernels;

/// How far (in cells) a point's estimate must lie from a cell edge to be
/// taken as is: the rounding of `lon + 180` and of the product with the
/// scale is under 2e-7 of a cell even at 30 bits.
const MARGIN: f64 = 1e-6;

/// Points [`CellFinder::cells_of`] estimates in one pass (its stack
/// arrays' length).
const BLOCK: usize = 64;

/// 1.5 * 2^52: adding it to a double of magnitude below 2^51 rounds that
/// to an integer, which the sum then holds in its low mantissa bits.
const ROUND: f64 = 6_755_399_441_055_744.0;

/// See the module docs.
#[derive(Debug, Clone, Copy)]
pub struct CellFinder {
    precision: usize,
    /// Cells per degree at `lon_bits` and `lat_bits`.
    lon_scale: f64,
    lat_scale: f64,
    /// `2^lon_bits` and `2^lat_bits`: one past the last cell index.
    lon_cells: f64,
    lat_cells: f64,
    /// Where a spread index goes in the interleaved bits: the last bit is
    /// a longitude bit when the total is odd (longitude has the extra
    /// bit), else a latitude bit.
    lon_shift: u32,
    lat_shift: u32,
}

impl CellFinder {
    /// A finder of cells of `precision` characters (above 12 counts as 12).
    pub fn new(precision: usize) -> CellFinder {
        let precision = precision.min(MAX_PRECISION);
        let total = 5 * precision as u32;
        // Longitude takes the odd bit when the total is odd.
        let (lon_bits, lat_bits) = (total.div_ceil(2), total / 2);
        let lon_last = lon_bits > lat_bits;
        CellFinder {
            precision,
            lon_scale: (1u64 << lon_bits) as f64 / 360.0,
            lat_scale: (1u64 << lat_bits) as f64 / 180.0,
            lon_cells: (1u64 << lon_bits) as f64,
            lat_cells: (1u64 << lat_bits) as f64,
            lon_shift: u32::from(!lon_last),
            lat_shift: u32::from(lon_last),
        }
    }

    /// The bits of the cell holding `point` (those of [`GeohashCell::of`]).
    #[inline]
    pub fn bits(&self, point: GeoPoint) -> u64 {
        let (x, x_certain) = estimate(point.lon + 180.0, self.lon_scale, self.lon_cells);
        let (y, y_certain) = estimate(point.lat + 90.0, self.lat_scale, self.lat_cells);
        if x_certain && y_certain {
            self.interleave(x, y)
        } else {
            GeohashCell::of(point, self.precision).bits
        }
    }

    /// The cells of the points `(lat[i], lon[i])` into `out` (cleared
    /// first), as [`CellFinder::bits`] finds them one by one. The
    /// estimates of a block are computed in one branch-free pass the
    /// compiler can vectorize; a grid over a segment calls this per block
    /// of documents, where the point-at-a-time calls were most of its time.
    /// Compiled for the best instruction set the CPU has (`kernels`).
    pub fn cells_of(&self, lat: &[f64], lon: &[f64], out: &mut Vec<u64>) {
        kernels::dispatch(
            #[inline(always)]
            || self.cells_of_body(lat, lon, out),
        );
    }

    #[inline(always)]
    fn cells_of_body(&self, lat: &[f64], lon: &[f64], out: &mut Vec<u64>) {
        debug_assert_eq!(lat.len(), lon.len());
        out.clear();
        out.reserve(lat.len().min(lon.len()));
        for (lat, lon) in lat.chunks(BLOCK).zip(lon.chunks(BLOCK)) {
            let n = lat.len().min(lon.len());
            let mut xs = [0u64; BLOCK];
            let mut ys = [0u64; BLOCK];
            let mut certain = [false; BLOCK];
            for i in 0..n {
                let (x, x_certain) = estimate(lon[i] + 180.0, self.lon_scale, self.lon_cells);
                let (y, y_certain) = estimate(lat[i] + 90.0, self.lat_scale, self.lat_cells);
                xs[i] = x;
                ys[i] = y;
                certain[i] = x_certain & y_certain;
            }
            for i in 0..n {
                out.push(if certain[i] {
                    self.interleave(xs[i], ys[i])
                } else {
                    let point = GeoPoint {
                        lat: lat[i],
                        lon: lon[i],
                    };
                    GeohashCell::of(point, self.precision).bits
                });
            }
        }
    }

    /// The cell of longitude index `x` and latitude index `y`.
    #[inline]
    fn interleave(&self, x: u64, y: u64) -> u64 {
        spread_index(x) << self.lon_shift | spread_index(y) << self.lat_shift
    }
}

/// `offset * scale` rounded down, and whether that is certainly the cell
/// index below `cells` that exact arithmetic gives: its fractional part is
/// more than [`MARGIN`] from an edge. False for NaN, negatives and the
/// last edge (the index is then meaningless). Branch-free: rounding
/// `x - 1/2` to the nearest integer is the floor of `x` for every `x` that
/// is not on an edge, and `x - floor` is exact (Sterbenz).
#[inline(always)]
fn estimate(offset: f64, scale: f64, cells: f64) -> (u64, bool) {
    let x = offset * scale;
    let rounded = (x - 0.5) + ROUND;
    let floor = rounded - ROUND;
    let fraction = x - floor;
    let certain = (x >= 0.0) & (x < cells) & ((fraction - 0.5).abs() < 0.5 - MARGIN);
    // Indices are below 2^30, held in the low mantissa bits.
    (rounded.to_bits() & 0xFFFF_FFFF, certain)
}

/// Bytes spread to the even bits of 16 (a grid's index at precision 1-3
/// is at most 8 bits).
const SPREAD_BYTE: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut v = 0;
    while v < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[v] |= (((v >> bit) & 1) as u16) << (2 * bit);
            bit += 1;
        }
        v += 1;
    }
    table
};

/// [`spread`] of a cell index, by table when it fits a byte.
#[inline]
fn spread_index(v: u64) -> u64 {
    match SPREAD_BYTE.get(v as usize) {
        Some(&spread) => u64::from(spread),
        None => spread(v),
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Coordinates that stress the estimate: random ones, short decimals,
    /// cell edges at every depth and the doubles either side of them, the
    /// range's ends, NaN, infinities and out-of-range values.
    fn awkward_points() -> Vec<GeoPoint> {
        let mut rng = SmallRng::seed_from_u64(0xce11);
        let mut points = Vec::new();
        for _ in 0..5_000 {
            points.push(GeoPoint {
                lat: rng.gen_range(-90.0..=90.0),
                lon: rng.gen_range(-180.0..=180.0),
            });
            points.push(GeoPoint {
                lat: f64::from(rng.gen_range(-900_000..=900_000i32)) / 10_000.0,
                lon: f64::from(rng.gen_range(-1_800_000..=1_800_000i32)) / 10_000.0,
            });
        }
        for bits in 1..=30u32 {
            for _ in 0..20 {
                let k = rng.gen_range(0..=1u64 << bits) as f64;
                let lon = -180.0 + k * 360.0 / (1u64 << bits) as f64;
                let lat = -90.0 + k * 180.0 / (1u64 << bits) as f64;
                for (lat, lon) in [
                    (lat, lon),
                    (lat.next_down(), lon.next_up()),
                    (lat.next_up(), lon.next_down()),
                ] {
                    points.push(GeoPoint { lat, lon });
                }
            }
        }
        for (lat, lon) in [
            (90.0, 180.0),
            (-90.0, -180.0),
            (-0.0, 0.0),
            (f64::NAN, 0.0),
            (0.0, f64::NAN),
            (100.0, 200.0),
            (-100.0, -200.0),
            (f64::INFINITY, f64::NEG_INFINITY),
            (1e300, -1e300),
        ] {
            points.push(GeoPoint { lat, lon });
        }
        points
    }

    #[test]
    fn finder_cells_are_those_of_the_exact_encoder() {
        let points = awkward_points();
        for precision in 1..=MAX_PRECISION {
            let finder = CellFinder::new(precision);
            for p in &points {
                assert_eq!(
                    finder.bits(*p),
                    GeohashCell::of(*p, precision).bits,
                    "{p:?} at precision {precision}"
                );
            }
        }
    }

    #[test]
    fn cells_of_a_block_are_those_found_one_by_one() {
        let points = awkward_points();
        let lat: Vec<f64> = points.iter().map(|p| p.lat).collect();
        let lon: Vec<f64> = points.iter().map(|p| p.lon).collect();
        let mut out = vec![7];
        for precision in 1..=MAX_PRECISION {
            let finder = CellFinder::new(precision);
            // Whole, and in pieces that do not fill a block.
            for piece in [lat.len(), 1, 63, 65, 100] {
                for (lat, lon) in lat.chunks(piece).zip(lon.chunks(piece)) {
                    finder.cells_of(lat, lon, &mut out);
                    assert_eq!(out.len(), lat.len());
                    for (i, cell) in out.iter().enumerate() {
                        let p = GeoPoint {
                            lat: lat[i],
                            lon: lon[i],
                        };
                        assert_eq!(*cell, GeohashCell::of(p, precision).bits, "{p:?}");
                    }
                }
            }
        }
        CellFinder::new(2).cells_of(&[], &[], &mut out);
        assert!(out.is_empty());
    }
}
