//! `PFSELFTEST`'s checks of this implementation, as Redis's command makes
//! them: every dense register keeps what is written to it without touching
//! its neighbours; a sparse HyperLogLog stays sparse while small and
//! counts exactly as a dense one fed the same elements; and the estimate's
//! error at 1, 10, 100, ... elements stays within six standard errors.
//! Redis adds elements up to 10,000,000; this stops at [`MAX_ELEMENTS`]
//! (a tenth: the command runs on a serving thread, and the error bound is
//! relative, so the larger cardinality adds little).

use rand::{Rng, RngCore};

use super::dense;
use super::format::{HEADER, REGISTERS, SPARSE_MAX_BYTES};
use super::{count_registers, Hll, DENSE_SIZE};

/// Rounds of the register test (Redis's `HLL_TEST_CYCLES`).
const CYCLES: usize = 1000;

/// Elements added in the error test; checkpoints are its powers of ten.
pub const MAX_ELEMENTS: u64 = 1_000_000;

/// Runs every check; the error is Redis's `TESTFAILED ...` text.
pub fn run(rng: &mut impl RngCore) -> Result<(), String> {
    registers(rng)?;
    estimates(rng.gen(), MAX_ELEMENTS)
}

/// Random values in every register, read back.
fn registers(rng: &mut impl RngCore) -> Result<(), String> {
    let mut bytes = vec![0u8; DENSE_SIZE - HEADER];
    let mut wanted = vec![0u8; REGISTERS];
    for _ in 0..CYCLES {
        for (i, w) in wanted.iter_mut().enumerate() {
            *w = rng.gen_range(0..64);
            dense::put(&mut bytes, i, *w);
        }
        for (i, &w) in wanted.iter().enumerate() {
            let got = dense::get(&bytes, i);
            if got != w {
                return Err(format!(
                    "TESTFAILED Register error, counter {i} wanted {w} got {got}"
                ));
            }
        }
    }
    Ok(())
}

/// `up_to` distinct elements (`j ^ seed`) into a dense and a sparse
/// HyperLogLog, checked at each power of ten.
fn estimates(seed: u64, up_to: u64) -> Result<(), String> {
    let corrupt = |_| "TESTFAILED corrupt HyperLogLog".to_string();
    let mut dense = Hll::new();
    dense.to_dense().map_err(corrupt)?;
    let mut sparse = Hll::new();
    let relerr = 1.04 / (REGISTERS as f64).sqrt();
    let mut checkpoint = 1u64;
    for j in 1..=up_to {
        let element = (j ^ seed).to_le_bytes();
        dense.add(&element).map_err(corrupt)?;
        sparse.add(&element).map_err(corrupt)?;
        if j != checkpoint {
            continue;
        }
        if j < SPARSE_MAX_BYTES as u64 / 2 && sparse.is_dense() {
            return Err("TESTFAILED sparse encoding not used".into());
        }
        let count = |h: &Hll| {
            let mut r = [0u8; REGISTERS];
            h.registers(&mut r).map(|()| count_registers(&r))
        };
        let card = count(&dense).map_err(corrupt)?;
        if card != count(&sparse).map_err(corrupt)? {
            return Err("TESTFAILED dense/sparse disagree".into());
        }
        // Cardinality 10 may collide more than the bound allows; Redis
        // allows it an error of one.
        let maxerr = match j {
            10 => 1,
            _ => (relerr * 6.0 * checkpoint as f64).ceil() as u64,
        };
        let abserr = checkpoint.abs_diff(card);
        if abserr > maxerr {
            return Err(format!(
                "TESTFAILED Too big error. card:{checkpoint} abserr:{abserr}"
            ));
        }
        checkpoint *= 10;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn this_implementation_passes_over_many_seeds() {
        let mut rng = SmallRng::seed_from_u64(7);
        registers(&mut rng).unwrap();
        for _ in 0..20 {
            estimates(rng.gen(), 100_000).unwrap();
        }
    }
}
