//! # strata-tpcc: TPC-C on Strata's transaction engine
//!
//! The workload of section 4 of the seed document, in process on
//! `strata-txn`, and the benchmark `strata bench tpcc`.
//!
//! ## Layout
//! - [`schema`]: the nine tables, column positions, primary keys.
//! - [`random`]: TPC-C's generators (`NURand`, last names, strings).
//! - [`load`]: the initial population, warehouses in parallel.
//! - [`mix`]: the full mix and DBx1000's mix, transaction inputs.
//! - [`txns`]: the five transactions, one file each.
//! - [`consistency`]: consistency conditions 1 to 4.
//! - [`bench`]: `strata bench tpcc`: options, the driver (workers, warm-up,
//!   abort accounting, commit latency to the durable acknowledgment,
//!   progress), the report (table and JSON).
//!
//! This crate depends on `strata-txn` only; the `strata` binary embeds
//! [`bench::TpccArgs`] as `strata bench tpcc`.

#![forbid(unsafe_code)]

pub mod bench;
pub mod consistency;
pub mod load;
pub mod mix;
pub mod random;
pub mod schema;
pub mod txns;

pub use bench::{run_tpcc, TpccArgs, TpccResult};
pub use mix::Mix;
