//! `ACL <subcommand>`: Redis 7's user management. This file dispatches and
//! answers the small subcommands (`WHOAMI`, `CAT`, `GENPASS`, `HELP`); the
//! others have a file each: [`users`] (`SETUSER`, `GETUSER`, `DELUSER`,
//! `LIST`, `USERS`), [`file`] (`LOAD`, `SAVE`), [`log`] and [`dryrun`].

mod common;
pub mod dryrun;
pub mod file;
pub mod log;
pub mod users;

pub(crate) use common::{close_connections, wrong_args};

use strata_kv::Store;

use crate::acl::categories::{self, CATEGORIES};
use crate::acl::passwords;
use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::number::parse_i64;
use crate::reply::{lossy_prefix, RespError};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CAT [<category>]",
    "    List all commands that belong to <category>, or all command categories",
    "    when no category is specified.",
    "DELUSER <username> [<username> ...]",
    "    Delete a list of users.",
    "DRYRUN <username> <command> [<arg> ...]",
    "    Returns whether the user can execute the given command without executing the command.",
    "GETUSER <username>",
    "    Get the user's details.",
    "GENPASS [<bits>]",
    "    Generate a secure 256-bit user password. The optional `bits` argument can",
    "    be used to specify a different size.",
    "LIST",
    "    Show users details in config file format.",
    "LOAD",
    "    Reload users from the ACL file.",
    "LOG [<count> | RESET]",
    "    Show the ACL log entries.",
    "SAVE",
    "    Save the current config to the ACL file.",
    "SETUSER <username> <attribute> [<attribute> ...]",
    "    Create or modify a user with the specified attributes.",
    "USERS",
    "    List all the registered usernames.",
    "WHOAMI",
    "    Return the current connection username.",
    "HELP",
    "    Prints this help.",
];

/// Largest `ACL GENPASS` size in bits.
const MAX_GENPASS_BITS: i64 = 4096;

/// `ACL <subcommand>`.
pub fn acl<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("acl", &args)?;
    match sub.name {
        "acl|setuser" => users::setuser(ctx.shared, &args, out),
        "acl|getuser" => users::getuser(ctx.shared, &args, out),
        "acl|deluser" => users::deluser(ctx.shared, &args, out),
        "acl|list" => users::list(ctx.shared, out),
        "acl|users" => users::names(ctx.shared, out),
        "acl|load" => file::load(ctx.shared, out),
        "acl|save" => file::save(ctx.shared, out),
        "acl|log" => log::log(ctx.shared, &args, out),
        "acl|dryrun" => dryrun::dryrun(ctx.shared, &args, out),
        "acl|whoami" => {
            out.bulk(&ctx.conn.user.name);
            Ok(())
        }
        "acl|cat" => cat(&args, out),
        "acl|genpass" => genpass(&args, out),
        _ => {
            write_help(out, HELP);
            Ok(())
        }
    }
}

/// `ACL CAT [category]`: the categories, or the commands of one.
fn cat(args: &Args<'_>, out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    match args.len() {
        2 => {
            out.array(CATEGORIES.len());
            CATEGORIES.iter().for_each(|c| out.bulk(c.as_bytes()));
        }
        3 => {
            let raw = args.get(2);
            let category = std::str::from_utf8(raw)
                .ok()
                .and_then(categories::canonical)
                .filter(|c| *c != "all")
                .ok_or_else(|| RespError::UnknownCategory(lossy_prefix(raw, 128)))?;
            let members: Vec<_> = categories::members(category).collect();
            out.array(members.len());
            members.iter().for_each(|s| out.bulk(s.name.as_bytes()));
        }
        _ => return Err(wrong_args(args)),
    }
    Ok(())
}

/// `ACL GENPASS [bits]`: a random password, 256 bits by default, as hex.
fn genpass(args: &Args<'_>, out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    let bits = match args.len() {
        2 => 256,
        3 => {
            let bits = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
            if !(1..=MAX_GENPASS_BITS).contains(&bits) {
                return Err(RespError::GenpassBits);
            }
            bits
        }
        _ => return Err(wrong_args(args)),
    };
    let bits = usize::try_from(bits).map_err(|_| RespError::GenpassBits)?;
    let password = passwords::generate(bits).ok_or(RespError::NoRandomness)?;
    out.bulk(password.as_bytes());
    Ok(())
}
