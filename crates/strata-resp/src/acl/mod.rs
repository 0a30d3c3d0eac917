//! # ACLs: Redis 6/7 users and permissions for the RESP front end
//!
//! Users have passwords (kept as SHA-256 hashes only), allowed commands
//! (by name, `container|subcommand` or `@category`), key patterns (with
//! `%R~`/`%W~` read and write access) and channel patterns (stored and
//! shown; there is no pub/sub yet). `requirepass` is the default user's
//! password. The memcached port has its own authentication and is not
//! governed by these users.
//!
//! ## Layout
//! - [`users`]: [`User`] and its descriptions (`ACL LIST`, `ACL GETUSER`).
//! - [`rules`]: parsing and applying rules (`on`, `>pw`, `~k*`, `+@read`).
//! - [`command_set`]: dense ids for every command and subcommand row of
//!   the command table, and the bitmap of allowed ones.
//! - [`categories`]: Redis 7's categories, taken from the command table.
//! - [`checks`]: may this user run this command on these keys.
//! - [`passwords`]: hashing, constant-time comparison, `ACL GENPASS`.
//! - [`log`]: the bounded denial log (`ACL LOG`).
//! - [`file`]: the `aclfile` format, read and written atomically.
//! - [`store`]: [`Acl`], the shared users and the epoch connections watch.
//!
//! Nothing here knows about connections: the session asks [`checks`] and
//! keeps its user fresh by comparing [`Acl::epoch`]; closing the
//! connections of a deleted user is the `ACL` command's job.

pub mod categories;
pub mod checks;
pub mod command_set;
pub mod file;
pub mod log;
pub mod passwords;
pub mod rules;
pub mod store;
pub mod users;

pub use checks::{check, Denial};
pub use store::{Acl, StoreError, DEFAULT_USER};
pub use users::User;
