//! The HyperLogLog a key holds, or Redis's error for what it holds
//! instead. A leaf.

use strata_kv::ItemRef;

use crate::commands::collection::not_string;
use crate::hll::{Corrupt, Hll, NotHll};
use crate::reply::{RespError, ValueError};

/// The HyperLogLog in `item`, or Redis's error for what it holds instead.
pub fn hll_of(item: ItemRef<'_>) -> Result<Hll, RespError> {
    if not_string(Some(item)) {
        return Err(RespError::WrongType);
    }
    Hll::parse(item.value).map_err(|NotHll| RespError::from(ValueError::NotHll))
}

impl From<Corrupt> for RespError {
    fn from(_: Corrupt) -> RespError {
        RespError::from(ValueError::CorruptHll)
    }
}
