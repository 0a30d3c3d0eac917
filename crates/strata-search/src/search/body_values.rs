//! The plain values of a search body's keys (`from`, `size`, the boolean
//! flags), read the same way wherever a body's key is taken (the search
//! request, `top_hits`), in the same words on a bad value.

use serde_json::Value;

use crate::error::{Result, SearchError};

/// A non-negative integer, or a string of one.
pub(crate) fn as_usize(key: &str, v: &Value) -> Result<usize> {
    v.as_u64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .map(|n| n as usize)
        .ok_or_else(|| {
            SearchError::parsing(format!("[{key}] must be a non-negative integer, got [{v}]"))
        })
}

/// A JSON boolean.
pub(crate) fn as_bool(key: &str, v: &Value) -> Result<bool> {
    v.as_bool()
        .ok_or_else(|| SearchError::parsing(format!("[{key}] must be a boolean, got [{v}]")))
}
