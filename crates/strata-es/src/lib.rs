//! # strata-es: the Elasticsearch-compatible HTTP front end
//!
//! Serves Elasticsearch's REST API over the `strata-search` engine, so the
//! official clients (elasticsearch-py 8 and 9, Kibana-style tools) connect
//! unchanged: JSON and NDJSON bodies, the vendor media type
//! `application/vnd.elasticsearch+json; compatible-with=N`, the
//! `X-Elastic-Product: Elasticsearch` header on every reply, and errors in
//! Elasticsearch's shape with its status codes.
//!
//! ## Layout
//! - [`node`]: [`Node`], the catalog of indices plus the node's identity
//!   (name, cluster name and uuid, persisted under the search root).
//! - [`server`]: the axum router, the body limit, the one dispatcher from
//!   a request to a handler and from a reply to bytes.
//! - [`transport`]: the connections: `strata-net`'s listener (TLS,
//!   protected mode) under hyper's HTTP/1.1 server, the connection limit,
//!   header, body and idle time bounds ([`transport::HttpLimits`]);
//!   [`timed_body`] bounds a body's arrival.
//! - [`startup`]: [`NodeState`], what is served while the indices
//!   recover (root, red health, the "state not recovered" block).
//! - [`cluster_settings`]: the cluster settings of `_cluster/settings`
//!   (`action.destructive_requires_name`), persisted under the root.
//! - [`route`]: method and path to a [`route::Route`], or the "no handler
//!   found" / "incorrect HTTP method" errors.
//! - [`request`]: [`request::EsRequest`], the parsed request: path
//!   segments, query parameters, body, media type.
//! - [`media`]: content negotiation (JSON, NDJSON, the vendor types).
//! - [`reply`]: [`reply::Reply`], a status, a JSON or text payload and the
//!   translog positions to await before it is sent.
//! - [`chunked`]: reply bodies sent while they are produced (`_msearch`).
//! - [`error`]: [`EsError`], the one table from engine and request errors
//!   to Elasticsearch error JSON and HTTP status; [`body_position`]
//!   finds the line and column of a parse error in the request body,
//!   within the query its path names (`body_path`).
//! - [`panics`]: a handler's panic logged and answered as an error reply.
//! - [`contexts`]: open scroll and point-in-time contexts (pinned
//!   searchers, keep-alive, limits).
//! - [`data_streams`]: data streams (a write alias over `.ds-` backing
//!   indices, names persisted); `write_target`: the index a document
//!   write goes to (auto-creating indices and streams).
//! - [`tasks`]: long-running requests (`_reindex`, by-query) as tasks.
//! - [`pressure`]: indexing back pressure (429 beyond a bound of bytes in
//!   flight).
//! - [`filter_path`]: the `filter_path` response filter.
//! - [`host`]: load, memory and processors of the host (from `/proc`).
//! - [`jvm`]: the `jvm` section of `_nodes/stats`, honest for a process
//!   without a JVM (resident memory as the old pool, no collections).
//! - [`ndjson`]: line splitting for `_bulk` and `_msearch`.
//! - [`handlers`]: one file per group of endpoints (root, indices,
//!   documents, bulk, search, cluster, cat).
//! - [`version`]: the Elasticsearch and Lucene versions reported.
//! - [`security`]: authentication (file realm, API keys) and
//!   authorization of every route, when a realm is configured.
//!
//! Engine calls block (tantivy, file I/O), so every handler runs on
//! tokio's blocking pool; acknowledging a write under `request`
//! durability awaits the translog's durability future on the async side,
//! never holding a worker thread. This crate knows nothing of other
//! front ends or of the server's configuration files.

#![forbid(unsafe_code)]

mod body_path;
pub mod body_position;
pub mod chunked;
pub mod cluster_settings;
pub mod contexts;
pub mod data_streams;
pub mod error;
pub mod filter_path;
pub mod handlers;
pub mod host;
pub mod jvm;
pub mod media;
pub mod ndjson;
pub mod node;
pub mod panics;
pub mod pressure;
pub mod reply;
pub mod request;
pub mod route;
pub mod security;
pub mod server;
pub mod startup;
pub mod tasks;
pub mod timed_body;
pub mod transport;
pub mod version;
mod write_target;

pub use error::EsError;
pub use node::{Node, NodeConfig};
pub use security::SecurityConfig;
pub use server::{serve, serve_with};
pub use startup::NodeState;
pub use transport::HttpLimits;
pub use version::{ES_VERSION, LUCENE_VERSION};

/// Default largest request body (Elasticsearch's `http.max_content_length`).
pub const DEFAULT_MAX_BODY: usize = 100 << 20;
