//! ACLs applied to a connection: keeping its user current, the permission
//! check Redis makes before running (and, inside `EXEC`, before running
//! each queued command), authentication, and the log of denials.

use std::sync::atomic::Ordering;

use crate::acl::log::{Context, Denied, Reason};
use crate::acl::{check, Denial};
use crate::args::Args;
use crate::client_line::client_line;
use crate::command::CommandSpec;
use crate::connection::Connection;
use crate::reply::RespError;
use crate::shared::Shared;

/// Re-reads the connection's user if any user changed since it was read.
/// `false` when the user was deleted (or deleted and created again): the
/// connection must close without running anything more, as Redis closes
/// the connections of a deleted user.
pub fn refresh(shared: &Shared, conn: &mut Connection) -> bool {
    let epoch = shared.acl.epoch();
    if epoch == conn.acl_epoch {
        return true;
    }
    match shared.acl.user(&conn.user.name) {
        Some(user) if user.generation == conn.user.generation => {
            conn.set_user(user, epoch);
            true
        }
        _ => false,
    }
}

/// Checks `spec` with `args` for the connection's user; a denial is logged
/// (`ACL LOG`), counted, and returned as the `NOPERM` error to send.
pub fn authorize(
    shared: &Shared,
    conn: &Connection,
    spec: &CommandSpec,
    args: &Args<'_>,
    context: Context,
) -> Result<(), RespError> {
    let denial = match check(&conn.user, spec, args) {
        Ok(()) => return Ok(()),
        Err(denial) => denial,
    };
    let (reason, object, error) = match denial {
        Denial::Command => {
            shared.acl.denied().command.fetch_add(1, Ordering::Relaxed);
            let error = RespError::NoPermCommand {
                user: conn.user.display_name(),
                command: spec.name.to_string(),
            };
            (Reason::Command, spec.name.as_bytes(), error)
        }
        Denial::Key(index) => {
            shared.acl.denied().key.fetch_add(1, Ordering::Relaxed);
            (Reason::Key, args.get(index), RespError::NoPermKey)
        }
    };
    record(shared, conn, reason, context, object, &conn.user.name);
    Err(error)
}

/// `AUTH` and `HELLO ... AUTH`: on success the connection runs as `name`
/// from now on; a failure leaves it as it was, and is logged under
/// `object` (`AUTH` or `HELLO`).
pub fn log_in(
    shared: &Shared,
    conn: &mut Connection,
    name: &[u8],
    password: &[u8],
    object: &str,
) -> Result<(), RespError> {
    let epoch = shared.acl.epoch();
    match shared.acl.authenticate(name, password) {
        Some(user) => {
            conn.set_user(user, epoch);
            conn.authenticated = true;
            Ok(())
        }
        None => {
            shared.acl.denied().auth.fetch_add(1, Ordering::Relaxed);
            let context = Context::TopLevel;
            record(shared, conn, Reason::Auth, context, object.as_bytes(), name);
            Err(RespError::WrongPass)
        }
    }
}

fn record(
    shared: &Shared,
    conn: &Connection,
    reason: Reason,
    context: Context,
    object: &[u8],
    username: &[u8],
) {
    let denied = Denied {
        reason,
        context,
        object,
        username,
        client_info: client_line(&conn.client, Some(&conn.peer))
            .trim_end()
            .to_string(),
    };
    let now_ms = shared.keyspace.clock().now_ms();
    shared.acl.log().lock().add(denied, now_ms);
}

/// True when the connection may run commands that need authentication.
pub(crate) fn is_authenticated(shared: &Shared, conn: &Connection) -> bool {
    conn.authenticated || !shared.password_required()
}
