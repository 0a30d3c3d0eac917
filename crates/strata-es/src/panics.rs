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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Bytes;
    use axum::http::Method;

    #[test]
    fn a_panic_is_the_requests_error_in_elasticsearchs_shape() {
        let req = EsRequest::new(
            Method::POST,
            "/logs/_search",
            None,
            Bytes::from_static(b"{}"),
        );
        let got: Result<()> = contain(&req, || {
            // Index arithmetic on an empty vector: the class of bug seen.
            let empty: Vec<u64> = std::hint::black_box(Vec::new());
            let last = empty[empty.len().saturating_sub(1)];
            assert_eq!(last, 0);
            Ok(())
        });
        let err = got.unwrap_err();
        assert_eq!(err.status(), 500);
        let body = err.body();
        assert_eq!(body["error"]["type"], "exception");
        assert_eq!(body["error"]["root_cause"][0]["type"], "exception");
        assert!(body["error"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("the server failed on this request"));
        // A request that does not panic is untouched.
        assert_eq!(contain(&req, || Ok(7)).unwrap(), 7);
    }
}
