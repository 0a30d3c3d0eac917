//! `ACL SETUSER`, `GETUSER`, `DELUSER`, `LIST` and `USERS`.

use crate::acl::users::valid_username;
use crate::acl::StoreError;
use crate::args::Args;
use crate::reply::RespError;
use crate::shared::Shared;
use crate::writer::ReplyWriter;

use super::close_connections;

/// `ACL SETUSER <name> [rule ...]`: creates or changes a user, all rules or
/// none. Connections authenticated as the user get the new permissions
/// from their next command on.
pub fn setuser(
    shared: &Shared,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let name = args.get(2);
    if !valid_username(name) {
        return Err(RespError::BadUsername);
    }
    shared
        .acl
        .set_user(name, args.iter_from(3))
        .map_err(|failed| RespError::AclRule(failed.to_string()))?;
    out.ok();
    Ok(())
}

/// `ACL GETUSER <name>`: the user's flags, passwords (hashes), commands,
/// keys, channels and selectors (none); null for an unknown user.
pub fn getuser(
    shared: &Shared,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let Some(user) = shared.acl.user(args.get(2)) else {
        out.null();
        return Ok(());
    };
    out.map(6);
    out.bulk(b"flags");
    let flags = user.flags();
    out.array(flags.len());
    flags.iter().for_each(|f| out.bulk(f.as_bytes()));
    out.bulk(b"passwords");
    out.array(user.passwords.len());
    user.passwords
        .iter()
        .for_each(|h| out.bulk(h.to_hex().as_bytes()));
    out.bulk(b"commands");
    out.bulk(user.describe_commands().as_bytes());
    out.bulk(b"keys");
    out.bulk(&user.describe_keys());
    out.bulk(b"channels");
    out.bulk(&user.describe_channels());
    out.bulk(b"selectors");
    out.array(0);
    Ok(())
}

/// `ACL DELUSER <name> [name ...]`: the number of users deleted; their
/// connections are closed. `default` cannot be deleted.
pub fn deluser(
    shared: &Shared,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let names: Vec<&[u8]> = args.iter_from(2).collect();
    let removed = shared.acl.delete_users(&names).map_err(|err| match err {
        StoreError::DefaultUser => RespError::DeleteDefaultUser,
        other => RespError::Persistence(other.to_string()),
    })?;
    close_connections(shared, &removed);
    out.integer(removed.len() as i64);
    Ok(())
}

/// `ACL LIST`: every user as the rules that rebuild it.
pub fn list(shared: &Shared, out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    let users = shared.acl.users();
    out.array(users.len());
    users.iter().for_each(|u| out.bulk(&u.describe()));
    Ok(())
}

/// `ACL USERS`: every user name, sorted.
pub fn names(shared: &Shared, out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    let users = shared.acl.users();
    out.array(users.len());
    users.iter().for_each(|u| out.bulk(&u.name));
    Ok(())
}
