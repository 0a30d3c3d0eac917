//! [`CellOf`]: a grid's cell for each point, as [`CellTable`] keys it:
//! geohash bits (through [`CellFinder`], a block of points at a time) or
//! map tile bits ([`GeoTile`]); a point outside the grid's `bounds` gets
//! [`OUTSIDE`], which no cell has (geohash bits take at most 60 bits, tile
//! bits 58), and is not counted.
//!
//! [`CellTable`]: super::cell_table::CellTable

use super::plan::Grid;
use crate::mapping::geo::{CellFinder, GeoPoint, GeoTile, GeohashCell};
use crate::query::BoundingBox;
use crate::search::agg_tree::GridSystem;

/// The cell of a point outside the grid's bounds.
pub(super) const OUTSIDE: u64 = u64::MAX;

/// How one grid finds cells.
#[derive(Debug, Clone, Copy)]
enum Cells {
    Geohash(CellFinder),
    Geotile(usize),
}

/// See the module docs.
#[derive(Debug, Clone, Copy)]
pub(super) struct CellOf {
    cells: Cells,
    bounds: Option<BoundingBox>,
}

impl CellOf {
    /// The cell finder of `grid`.
    pub(super) fn new(grid: &Grid) -> CellOf {
        let cells = match grid.system {
            GridSystem::Geohash => Cells::Geohash(CellFinder::new(grid.precision)),
            GridSystem::Geotile => Cells::Geotile(grid.precision),
        };
        CellOf {
            cells,
            bounds: grid.bounds,
        }
    }

    /// The cell of `point`, or [`OUTSIDE`].
    #[inline]
    pub(super) fn bits(&self, point: GeoPoint) -> u64 {
        if self.bounds.is_some_and(|b| !b.contains(point)) {
            return OUTSIDE;
        }
        match self.cells {
            Cells::Geohash(finder) => finder.bits(point),
            Cells::Geotile(zoom) => GeoTile::of(point, zoom).bits,
        }
    }

    /// The cells of the points `(lat[i], lon[i])` into `out` (cleared first).
    pub(super) fn cells_of(&self, lat: &[f64], lon: &[f64], out: &mut Vec<u64>) {
        match self.cells {
            Cells::Geohash(finder) => finder.cells_of(lat, lon, out),
            Cells::Geotile(zoom) => {
                out.clear();
                let points = lat.iter().zip(lon);
                out.extend(
                    points.map(|(&lat, &lon)| GeoTile::of(GeoPoint { lat, lon }, zoom).bits),
                );
            }
        }
        if let Some(bounds) = self.bounds {
            for ((bits, &lat), &lon) in out.iter_mut().zip(lat).zip(lon) {
                if !bounds.contains(GeoPoint { lat, lon }) {
                    *bits = OUTSIDE;
                }
            }
        }
    }
}

/// The bucket key of the cell with `bits` in `grid` (`5/16/10`, `u17`).
pub(super) fn key(grid: &Grid, bits: u64) -> String {
    match grid.system {
        GridSystem::Geohash => GeohashCell::new(bits, grid.precision).map(|c| c.to_string()),
        GridSystem::Geotile => GeoTile::new(bits, grid.precision).map(|t| t.to_string()),
    }
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(system: GridSystem, precision: usize, bounds: Option<BoundingBox>) -> Grid {
        Grid {
            system,
            precision,
            bounds,
        }
    }

    #[test]
    fn block_and_point_cells_agree_and_bounds_exclude() {
        let lat = [52.37, 51.22, -40.1, 60.3, 85.5, 90.0, -90.0];
        let lon = [4.91, 4.40, -170.5, 175.2, -179.99, 180.0, -180.0];
        let crossing = BoundingBox {
            top: 80.0,
            bottom: -50.0,
            left: 170.0,
            right: -160.0,
        };
        for system in [GridSystem::Geohash, GridSystem::Geotile] {
            for bounds in [None, Some(crossing)] {
                let g = grid(system, 3, bounds);
                let of = CellOf::new(&g);
                let mut block = Vec::new();
                of.cells_of(&lat, &lon, &mut block);
                let one: Vec<u64> = lat
                    .iter()
                    .zip(&lon)
                    .map(|(&lat, &lon)| of.bits(GeoPoint { lat, lon }))
                    .collect();
                assert_eq!(block, one, "{system:?} {bounds:?}");
                let inside: Vec<bool> = one.iter().map(|&b| b != OUTSIDE).collect();
                let want = match bounds {
                    None => vec![true; lat.len()],
                    Some(_) => vec![false, false, true, true, false, false, false],
                };
                assert_eq!(inside, want, "{system:?}");
            }
        }
        let tiles = grid(GridSystem::Geotile, 1, None);
        let bits = CellOf::new(&tiles).bits(GeoPoint {
            lat: -40.1,
            lon: -170.5,
        });
        assert_eq!(key(&tiles, bits), "1/0/1");
        let hashes = grid(GridSystem::Geohash, 3, None);
        let bits = CellOf::new(&hashes).bits(GeoPoint {
            lat: 52.374081,
            lon: 4.912350,
        });
        assert_eq!(key(&hashes, bits), "u17");
    }
}
