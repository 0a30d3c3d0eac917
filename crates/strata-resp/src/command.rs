//! What a command handler works with: [`Ctx`] (the store, the shared
//! state, the connection). The table's row types live in
//! [`spec`](crate::spec), name lookup in [`lookup`](crate::lookup), and
//! [`execute`](crate::dispatch::execute) in [`dispatch`](crate::dispatch),
//! above every handler; they are re-exported here.

use crate::connection::Connection;
pub use crate::lookup::{lookup, resolve_subcommand};
use crate::shared::Shared;
pub use crate::spec::{Command, CommandSpec, KeySpec, Search};

/// What a handler works with: the store (shared or exclusive), the
/// protocol-wide state and this connection's state.
pub struct Ctx<'a, S> {
    /// The keyspace access for this command.
    pub store: &'a mut S,
    /// State shared by every connection of the front end.
    pub shared: &'a Shared,
    /// This connection.
    pub conn: &'a mut Connection,
}
