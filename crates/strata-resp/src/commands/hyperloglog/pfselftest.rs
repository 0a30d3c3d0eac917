//! `PFSELFTEST`: checks this HyperLogLog implementation (`hll::selftest`)
//! and answers `OK`, or Redis's `TESTFAILED ...` error.

use crate::hll::selftest;
use crate::reply::{RespError, ValueError};
use crate::writer::ReplyWriter;

/// Runs the checks with a fresh random seed.
pub fn pfselftest(out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    selftest::run(&mut rand::thread_rng()).map_err(ValueError::HllSelfTest)?;
    out.simple("OK");
    Ok(())
}
