//! What the ACL subcommands share: the wrong-arguments error and closing
//! the connections of removed or changed users.

use crate::acl::User;
use crate::args::Args;
use crate::reply::{lossy_prefix, RespError};
use crate::shared::Shared;
use std::sync::Arc;

/// The error Redis gives a subcommand called with arguments it does not
/// take (`ACL CAT a b`).
pub(crate) fn wrong_args(args: &Args<'_>) -> RespError {
    RespError::SubcommandArgs {
        sub: lossy_prefix(args.get(1), 128),
        command: "ACL".into(),
    }
}

/// Closes the connections authenticated as any of `removed` (deleted by
/// `ACL DELUSER` or absent from the file `ACL LOAD` read), as Redis does.
/// Replies already produced are sent first; the calling connection, if it
/// is one of them, runs nothing more.
pub(crate) fn close_connections(shared: &Shared, removed: &[Arc<User>]) {
    if removed.is_empty() {
        return;
    }
    let ids: Vec<u64> = shared
        .peers
        .lock()
        .iter()
        .filter(|(_, peer)| {
            let user = peer.user();
            removed
                .iter()
                .any(|r| r.name == user.name && r.generation == user.generation)
        })
        .map(|(&id, _)| id)
        .collect();
    for id in ids {
        if let Some(client) = shared.clients.get(id) {
            client.close();
        }
    }
}
