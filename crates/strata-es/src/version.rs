//! The versions this front end reports, a leaf the handlers and the
//! start-up replies use.

/// The Elasticsearch version this front end reports (`GET /`).
pub const ES_VERSION: &str = "8.15.0";
/// The Lucene version Elasticsearch [`ES_VERSION`] ships with.
pub const LUCENE_VERSION: &str = "9.11.1";
