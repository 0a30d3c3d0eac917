//! API tests with the official Rust `elasticsearch` crate against an
//! in-process front end: every query and aggregation type, checked
//! against answers computed from the same documents, and the management
//! and error paths that `crates/strata/tests/es_rust_client.rs` (the same
//! client against a `strata serve` child) does not cover.

mod admin;
mod aggregations;
mod apis;
mod data;
mod queries;
mod scripts;
