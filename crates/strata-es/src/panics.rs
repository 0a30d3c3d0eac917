//! A request's panic contained to its reply: a panic in a handler (or in
//! one search of an `_msearch`) is a bug, never an input's due; it is
//! logged with the request and answered with Elasticsearch's error shape
//! (status 500, type `exception`), and the node keeps serving.

use std::any::Any;

use strata_service::panic_guard::{self, input_excerpt, panic_message};

use crate::error::{EsError, Result};
use crate::request::EsRequest;

/// Runs `f`, turning a panic into [`panicked`]'s error.
pub fn contain<T>(req: &EsRequest, f: impl FnOnce() -> Result<T>) -> Result<T> {
    panic_guard::contain(f).unwrap_or_else(|message| Err(failed(req, &message)))
}

/// The error of a request that panicked with `payload`, logged.
pub fn panicked(req: &EsRequest, payload: &(dyn Any + Send)) -> EsError {
    failed(req, &panic_message(payload))
}

fn failed(req: &EsRequest, message: &str) -> EsError {
    tracing::error!(
        method = %req.method,
        uri = %req.uri,
        body = %input_excerpt(&req.body),
        panic = %message,
        "a request made its handler panic"
    );
    EsError::Internal(format!("the server failed on this request: {message}"))
}
