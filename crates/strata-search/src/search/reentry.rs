//! The search entry points that passes below them call again: the
//! per-bucket searches of deferred and nested aggregations and `top_hits`,
//! scanned aggregations' bucket searches, the bounds pass of calendar
//! histograms. They are handed down as function pointers, so the modules
//! that run those passes never import the modules that call them.

use std::sync::Arc;

use super::request::SearchRequest;
use super::response::SearchResponse;
use crate::error::Result;
use crate::index::SearchIndex;

/// A whole search (`search::search_response`): filter aggregations, bucket
/// pipelines and shard failures included.
pub type SearchFn = fn(&[Arc<SearchIndex>], &SearchRequest) -> Result<SearchResponse>;

/// One search pass (`single_pass::search_once`), given the whole search
/// its own extra passes call.
pub type PassFn = fn(&[Arc<SearchIndex>], &SearchRequest, SearchFn) -> Result<SearchResponse>;

/// Both entry points, as a pass hands them to the searches it starts.
#[derive(Clone, Copy)]
pub struct Reentry {
    /// The whole search.
    pub search: SearchFn,
    /// One pass.
    pub pass: PassFn,
}

impl Reentry {
    /// Runs `req` as a whole search.
    pub fn search(
        &self,
        indices: &[Arc<SearchIndex>],
        req: &SearchRequest,
    ) -> Result<SearchResponse> {
        (self.search)(indices, req)
    }

    /// Runs `req` as one pass.
    pub fn pass(
        &self,
        indices: &[Arc<SearchIndex>],
        req: &SearchRequest,
    ) -> Result<SearchResponse> {
        (self.pass)(indices, req, self.search)
    }
}
