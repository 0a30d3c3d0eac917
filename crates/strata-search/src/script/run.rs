//! Running a compiled script from inside tantivy (a `Weight` making a
//! segment's scorer), whose errors cannot hold ours: the script failure
//! carried through as a `TantivyError`, and a script that must give a
//! number.
//!
//! A leaf of `script`: the `script_score`, `function_score` and runtime
//! field queries use it without depending on one another.

use std::sync::Arc;

use strata_script::{Input, Limits, ScriptError};
use tantivy::TantivyError;

use super::doc_values::SegmentDocValues;
use super::Compiled;

/// A script failure carried through tantivy (whose errors cannot hold
/// ours) as an I/O error's payload; `SearchError::from` takes it back out.
pub fn carry(e: ScriptError) -> TantivyError {
    TantivyError::IoError(Arc::new(std::io::Error::other(e)))
}

/// An error a scoring script or function raises while a segment is scored.
pub(crate) fn illegal(message: String) -> TantivyError {
    TantivyError::InvalidArgument(message)
}

/// Runs a script that must give a number.
pub(crate) fn run_number(
    script: &Compiled,
    doc: &SegmentDocValues,
    score: Option<f64>,
    limits: Limits,
) -> tantivy::Result<f64> {
    let out = script
        .script
        .run(Input {
            params: Some(&script.params),
            doc: Some(doc),
            score,
            limits,
            ..Input::default()
        })
        .map_err(carry)?;
    out.value.as_f64().ok_or_else(|| {
        illegal(format!(
            "script score must return a number, got [{}]",
            out.value
        ))
    })
}
