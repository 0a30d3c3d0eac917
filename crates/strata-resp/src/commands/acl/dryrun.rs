//! `ACL DRYRUN <user> <command> [arg ...]`: whether the user could run the
//! command, without running it or logging anything.

use crate::acl::{check, Denial};
use crate::args::Args;
use crate::command::lookup;
use crate::reply::{lossy_prefix, RespError};
use crate::shared::Shared;
use crate::writer::ReplyWriter;

/// `ACL DRYRUN`: `+OK`, or the reason as a bulk string (Redis 7.2's texts).
pub fn dryrun(
    shared: &Shared,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let name = args.get(2);
    let user = shared
        .acl
        .user(name)
        .ok_or_else(|| RespError::NoSuchUser(lossy_prefix(name, 128)))?;
    // The command's own arguments: everything from its name on.
    let command_args = args.tail(3);
    let command_name = command_args.get(0);
    let spec = lookup(command_name)
        .ok_or_else(|| RespError::NoSuchCommand(lossy_prefix(command_name, 128)))?;
    if !spec.arity_ok(command_args.len()) {
        return Err(RespError::WrongArity(spec.name.to_string()));
    }
    let Some(effective) = spec.effective(&command_args) else {
        return Err(RespError::unknown_subcommand(
            spec.name,
            command_args.get(1),
        ));
    };
    if !effective.arity_ok(command_args.len()) {
        return Err(RespError::WrongArity(effective.name.to_string()));
    }
    match check(&user, effective, &command_args) {
        Ok(()) => out.ok(),
        Err(Denial::Command) => out.bulk(
            format!(
                "User {} has no permissions to run the '{}' command",
                user.display_name(),
                effective.name
            )
            .as_bytes(),
        ),
        Err(Denial::Key(index)) => {
            let mut text = format!(
                "User {} has no permissions to access the '",
                user.display_name()
            )
            .into_bytes();
            text.extend_from_slice(command_args.get(index));
            text.extend_from_slice(b"' key");
            out.bulk(&text);
        }
    }
    Ok(())
}
