//! `strata bench tpcc`: options ([`TpccArgs`]), the driver (`run`), its
//! workers (`worker`), the report (`report`).

mod args;
mod driver;
mod report;
mod worker;

pub use args::{CcName, TpccArgs};
pub use driver::run_tpcc;
pub use report::{Latency, TpccResult, TypeCounts};
