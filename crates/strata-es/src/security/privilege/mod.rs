//! Privileges: what an action name is granted by.
//!
//! - `glob`: `*`/`?` patterns over action and index names.
//! - `named`: Elasticsearch's named cluster and index privileges as sets
//!   of action patterns, and the order error messages list them in.
//! - `names`: index name patterns of roles (wildcards, `/regex/`) and the
//!   restricted index names.

pub mod glob;
pub mod named;
pub mod names;
