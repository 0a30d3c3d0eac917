//! [`EsError`]: every way a request can fail, and the one table that turns
//! it into Elasticsearch's error reply (`{"error": {"root_cause": [..],
//! "type": .., "reason": ..}, "status": N}`) with the HTTP status
//! Elasticsearch uses. Engine errors keep the type and status that
//! `strata-search` assigns them.
//!
//! - `kind`: [`EsError`], [`Result`], the engine's errors taken in.
//! - `table`: the error's `type`, status, `reason` and challenges.
//! - `reply`: the error reply body.
//! - `located`: a parse error's position in the request body.

mod kind;
mod located;
mod reply;
mod table;

pub use kind::{EsError, Result, CHALLENGES};

#[cfg(test)]
mod tests;
