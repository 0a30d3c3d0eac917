//! Elasticsearch's action names for the operations whose index checks
//! happen inside handlers (items of `_bulk`, `_mget`, `_msearch`, and
//! alias listings). The route-level table is in `authorize.rs`.

/// A document written with `op_type=index` (overwriting allowed).
pub const INDEX_DOC: &str = "indices:data/write/index:op_type/index";
/// A document written with `op_type=create`.
pub const CREATE_DOC: &str = "indices:data/write/index:op_type/create";
/// A document updated.
pub const UPDATE_DOC: &str = "indices:data/write/update";
/// A document deleted.
pub const DELETE_DOC: &str = "indices:data/write/delete";
/// An index created by a write to a missing one.
pub const AUTO_CREATE: &str = "indices:admin/auto_create";
/// One document of an `_mget`.
pub const MGET_ITEM: &str = "indices:data/read/mget[shard]";
/// A search (also each search of an `_msearch`).
pub const SEARCH: &str = "indices:data/read/search";
/// Reading aliases.
pub const GET_ALIASES: &str = "indices:admin/aliases/get";
