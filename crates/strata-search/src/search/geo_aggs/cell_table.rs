//! A grid's cells while one segment is collected: a flat table indexed by
//! the cell's bits at low precisions, a hash map above them.
//!
//! Kibana's maps ask for coarse grids (precision 2-3 at world zoom), where
//! a lookup in a hash map per document was a fifth of a grid's time. Up to
//! [`DENSE_BITS`] bits of cell key every cell has a slot, so a document is
//! counted with two array indexings; the table is turned into [`Cells`]
//! (only the cells seen) when the segment is harvested. Points outside a
//! grid's bounds ([`OUTSIDE`]) are not counted.

use super::cell_of::OUTSIDE;
use super::fruit::{Cell, Cells, Centroid};
use crate::mapping::geo::GeoPoint;

/// Cell keys up to this many bits use a flat table: 1,024 cells (two
/// geohash characters, or map tiles to zoom 5), a few KiB per segment
/// (a third geohash character would be 32,768 cells per segment
/// collector, mostly empty).
const DENSE_BITS: usize = 10;

/// See the module docs.
pub(super) enum CellTable {
    Dense {
        /// Documents per cell, indexed by bits.
        docs: Vec<u64>,
        /// `subs` centroids per cell, cell by cell.
        centroids: Vec<Centroid>,
        subs: usize,
    },
    Sparse {
        cells: Cells,
        subs: usize,
    },
}

impl CellTable {
    /// An empty table for a grid whose cell keys take `key_bits` bits,
    /// with `subs` centroid sub-aggregations.
    pub(super) fn new(key_bits: usize, subs: usize) -> CellTable {
        if key_bits <= DENSE_BITS {
            let slots = 1usize << key_bits;
            CellTable::Dense {
                docs: vec![0; slots],
                centroids: vec![Centroid::default(); slots * subs],
                subs,
            }
        } else {
            CellTable::Sparse {
                cells: Cells::default(),
                subs,
            }
        }
    }

    /// The document count and centroids of the cell with `bits` (which fit
    /// the table's key bits: they come from the grid's `CellOf`, and are
    /// not [`OUTSIDE`]).
    #[inline]
    pub(super) fn cell_mut(&mut self, bits: u64) -> (&mut u64, &mut [Centroid]) {
        match self {
            CellTable::Dense {
                docs,
                centroids,
                subs,
            } => {
                let at = bits as usize;
                (&mut docs[at], &mut centroids[at * *subs..(at + 1) * *subs])
            }
            CellTable::Sparse { cells, subs } => {
                let cell = cells.entry(bits).or_insert_with(|| Cell::new(*subs));
                (&mut cell.docs, &mut cell.centroids[..])
            }
        }
    }

    /// Counts a block of points, one per document, whose cells are
    /// `cells`, each point also added to every centroid of its cell (a
    /// grid whose sub-aggregations are all centroids of its own field,
    /// Kibana's map); points [`OUTSIDE`] are skipped. The same as
    /// [`CellTable::cell_mut`] per point, with the table's kind matched
    /// once per block.
    pub(super) fn add_own_points(&mut self, cells: &[u64], lat: &[f64], lon: &[f64]) {
        let points = cells.iter().zip(lat.iter().zip(lon));
        match self {
            CellTable::Dense {
                docs,
                centroids,
                subs,
            } => {
                let subs = *subs;
                for (&bits, (&lat, &lon)) in points.filter(|(&bits, _)| bits != OUTSIDE) {
                    let at = bits as usize;
                    let cell = &mut centroids[at * subs..(at + 1) * subs];
                    count_point(&mut docs[at], cell, GeoPoint { lat, lon });
                }
            }
            CellTable::Sparse { .. } => {
                for (&bits, (&lat, &lon)) in points.filter(|(&bits, _)| bits != OUTSIDE) {
                    let (docs, centroids) = self.cell_mut(bits);
                    count_point(docs, centroids, GeoPoint { lat, lon });
                }
            }
        }
    }

    /// The cells seen.
    pub(super) fn into_cells(self) -> Cells {
        match self {
            CellTable::Sparse { cells, .. } => cells,
            CellTable::Dense {
                docs,
                centroids,
                subs,
            } => docs
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(at, n)| {
                    let cell = Cell {
                        docs: *n,
                        centroids: centroids[at * subs..(at + 1) * subs].to_vec(),
                    };
                    (at as u64, cell)
                })
                .collect(),
        }
    }
}

/// One point counted into its cell: the count, and every centroid of the cell.
#[inline]
fn count_point(docs: &mut u64, centroids: &mut [Centroid], p: GeoPoint) {
    *docs += 1;
    centroids.iter_mut().for_each(|c| c.add(p));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the same cells into a table of each kind.
    fn fill(table: &mut CellTable, cells: &[(u64, f64)]) {
        for &(bits, lat) in cells {
            let (docs, centroids) = table.cell_mut(bits);
            *docs += 1;
            centroids[0].add(GeoPoint { lat, lon: 0.0 });
        }
    }

    #[test]
    fn dense_and_sparse_tables_agree() {
        let input = [(0, 1.0), (1023, 2.0), (5, 3.0), (5, 4.0), (0, 5.0)];
        let mut dense = CellTable::new(10, 1);
        assert!(matches!(dense, CellTable::Dense { .. }));
        fill(&mut dense, &input);
        let mut sparse = CellTable::Sparse {
            cells: Cells::default(),
            subs: 1,
        };
        fill(&mut sparse, &input);
        let render = |cells: Cells| {
            let mut v: Vec<_> = cells
                .into_iter()
                .map(|(k, c)| (k, c.docs, format!("{:?}", c.centroids)))
                .collect();
            v.sort();
            v
        };
        let dense = render(dense.into_cells());
        assert_eq!(dense, render(sparse.into_cells()));
        let counts: Vec<_> = dense.iter().map(|(k, n, _)| (*k, *n)).collect();
        assert_eq!(counts, [(0, 2), (5, 2), (1023, 1)]);
        assert!(matches!(CellTable::new(11, 0), CellTable::Sparse { .. }));
    }

    #[test]
    fn a_block_of_own_points_counts_as_point_by_point() {
        let cells = [0, 1023, 5, 5, 0, 7, OUTSIDE];
        let lat = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
        let lon = [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0];
        let render = |cells: Cells| {
            let mut v: Vec<_> = cells
                .into_iter()
                .map(|(k, c)| (k, c.docs, format!("{:?}", c.centroids)))
                .collect();
            v.sort();
            v
        };
        for subs in [0, 1, 2] {
            let mut want = CellTable::new(10, subs);
            let counted = cells
                .iter()
                .zip(&lat)
                .zip(&lon)
                .filter(|((&b, _), _)| b != OUTSIDE);
            for ((&bits, &lat), &lon) in counted {
                let (docs, centroids) = want.cell_mut(bits);
                *docs += 1;
                centroids
                    .iter_mut()
                    .for_each(|c| c.add(GeoPoint { lat, lon }));
            }
            let want = render(want.into_cells());
            for key_bits in [10, 25] {
                let mut got = CellTable::new(key_bits, subs);
                got.add_own_points(&cells, &lat, &lon);
                assert_eq!(
                    render(got.into_cells()),
                    want,
                    "key bits {key_bits}, subs {subs}"
                );
            }
        }
    }
}
