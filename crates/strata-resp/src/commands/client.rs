//! `CLIENT ID|GETNAME|SETNAME|INFO|LIST|SETINFO|REPLY|NO-EVICT|NO-TOUCH|HELP`,
//! and `KILL`
//! (`client_kill.rs`), `UNBLOCK` (`client_unblock.rs`), `PAUSE` and
//! `UNPAUSE` (`client_pause.rs`), `TRACKING`, `CACHING`, `GETREDIR` and
//! `TRACKINGINFO` (`client_tracking.rs`).

use strata_kv::Store;

use crate::args::Args;
pub use crate::client_line::client_line;
use crate::command::{resolve_subcommand, Ctx};
use crate::connection::ReplyMode;
use crate::number::parse_i64;
use crate::reply::{lossy_prefix, ClientError, RespError};
use crate::shared::Shared;
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CACHING (YES|NO)",
    "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
    "GETREDIR",
    "    Return the client ID we are redirecting to when tracking is enabled.",
    "GETNAME",
    "    Return the name of the current connection.",
    "ID",
    "    Return the ID of the current connection.",
    "INFO",
    "    Return information about the current client connection.",
    "KILL <ip:port>",
    "    Kill connection made from <ip:port>.",
    "KILL <option> <value> [<option> <value> [...]]",
    "    Kill connections. Options are:",
    "    * ADDR (<ip:port>|<unixsocket>:0)",
    "      Kill connections made from the specified address",
    "    * LADDR (<ip:port>|<unixsocket>:0)",
    "      Kill connections made to specified local address",
    "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
    "      Kill connections by type.",
    "    * USER <username>",
    "      Kill connections authenticated by <username>.",
    "    * SKIPME (YES|NO)",
    "      Skip killing current connection (default: yes).",
    "    * ID <client-id>",
    "      Kill connections by client id.",
    "LIST [options ...]",
    "    Return information about client connections. Options:",
    "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
    "      Return clients of specified type.",
    "    * ID <id> [<id> ...]",
    "      Return clients with the given ids.",
    "PAUSE <timeout> [WRITE|ALL]",
    "    Suspend all, or just write, clients for <timeout> milliseconds.",
    "REPLY (ON|OFF|SKIP)",
    "    Control the replies sent to the current connection.",
    "SETINFO <option> <value>",
    "    Set client meta attr. Options are:",
    "    * LIB-NAME: the client lib name.",
    "    * LIB-VER: the client lib version.",
    "SETNAME <name>",
    "    Assign the name <name> to the current connection.",
    "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
    "         [OPTIN] [OPTOUT] [NOLOOP]",
    "    Control server assisted client side caching.",
    "TRACKINGINFO",
    "    Report tracking status for the current connection.",
    "UNPAUSE",
    "    Stop the current client pause, resuming traffic.",
    "UNBLOCK <clientid> [TIMEOUT|ERROR]",
    "    Unblock the specified blocked client.",
    "NO-EVICT (ON|OFF)",
    "    Protect current client connection from eviction.",
    "NO-TOUCH (ON|OFF)",
    "    Will not touch LRU/LFU stats when this mode is on.",
    "HELP",
    "    Prints this help.",
];

/// Refuses names with spaces, control or non-ASCII characters, as Redis.
pub fn validate_name(name: &[u8]) -> Result<(), RespError> {
    if name.iter().all(|c| (b'!'..=b'~').contains(c)) {
        Ok(())
    } else {
        Err(RespError::Client(ClientError::BadClientName))
    }
}

/// Writes `lines` as an array of simple strings (the `HELP` replies).
pub fn write_help(out: &mut ReplyWriter<'_>, lines: &[&str]) {
    out.array(lines.len());
    for line in lines {
        out.simple(line);
    }
}

fn client_list(shared: &Shared, args: &Args<'_>) -> Result<String, RespError> {
    let mut only_ids: Option<Vec<u64>> = None;
    // Some(true): subscribers only; Some(false): everyone else.
    let mut pubsub: Option<bool> = None;
    if args.len() == 4 && args.get(2).eq_ignore_ascii_case(b"type") {
        match args.get(3).to_ascii_lowercase().as_slice() {
            b"normal" => pubsub = Some(false),
            b"pubsub" => pubsub = Some(true),
            b"master" | b"replica" | b"slave" => only_ids = Some(Vec::new()),
            _ => {
                return Err(RespError::Client(ClientError::UnknownClientType(
                    lossy_prefix(args.get(3), 128),
                )))
            }
        }
    } else if args.len() > 3 && args.get(2).eq_ignore_ascii_case(b"id") {
        let ids = args
            .iter_from(3)
            // Ids that cannot exist (zero, negative) match nothing.
            .map(|a| parse_i64(a).map(|n| u64::try_from(n).unwrap_or(0)))
            .collect::<Option<Vec<u64>>>()
            .ok_or(RespError::InvalidClientId)?;
        only_ids = Some(ids);
    } else if args.len() != 2 {
        return Err(RespError::Syntax);
    }
    let peers = shared.peers.lock().clone();
    let mut text = String::new();
    for client in shared.clients.list() {
        if only_ids
            .as_ref()
            .is_some_and(|ids| !ids.contains(&client.id))
        {
            continue;
        }
        let peer = peers.get(&client.id).map(|p| &**p);
        let subscribed = peer.is_some_and(|p| p.subscriptions() != (0, 0, 0));
        if pubsub.is_some_and(|want| want != subscribed) {
            continue;
        }
        text.push_str(&client_line(&client, peer));
    }
    Ok(text)
}

/// `CLIENT <subcommand>`.
pub fn client<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("client", &args)?;
    let conn = &mut *ctx.conn;
    match sub.name {
        "client|id" => out.integer(i64::try_from(conn.client.id).unwrap_or(i64::MAX)),
        "client|getname" => match conn.client.name.lock().as_deref() {
            Some(name) => out.bulk(name.as_bytes()),
            None => out.null(),
        },
        "client|setname" => {
            let name = args.get(2);
            validate_name(name)?;
            let name = (!name.is_empty()).then(|| String::from_utf8_lossy(name).into_owned());
            *conn.client.name.lock() = name;
            out.ok();
        }
        "client|setinfo" => {
            let value = args.get(3);
            let attr = args.get(2).to_ascii_lowercase();
            let attr_name = match attr.as_slice() {
                b"lib-name" => "lib-name",
                b"lib-ver" => "lib-ver",
                _ => {
                    return Err(RespError::Client(ClientError::UnrecognizedOption(
                        lossy_prefix(args.get(2), 128),
                    )))
                }
            };
            if !value.iter().all(|c| (b'!'..=b'~').contains(c)) {
                return Err(RespError::Client(ClientError::BadClientInfo(
                    attr_name.into(),
                )));
            }
            let value = String::from_utf8_lossy(value).into_owned();
            if attr_name == "lib-name" {
                conn.peer.set_lib_name(value);
            } else {
                conn.peer.set_lib_version(value);
            }
            out.ok();
        }
        "client|info" => {
            let line = client_line(&conn.client, Some(&conn.peer));
            out.verbatim("txt", line.as_bytes());
        }
        "client|kill" => match super::client_kill::kill(ctx.shared, conn, &args)? {
            Some(killed) => out.integer(killed),
            None => out.ok(),
        },
        "client|reply" => match args.get(2).to_ascii_lowercase().as_slice() {
            b"on" => {
                conn.reply = ReplyMode::On;
                out.ok();
            }
            // No reply to these two: OFF's own is dropped, SKIP writes none.
            b"off" => conn.reply = ReplyMode::Off,
            b"skip" if conn.reply != ReplyMode::Off => conn.reply = ReplyMode::SkipNext,
            b"skip" => {}
            _ => return Err(RespError::Syntax),
        },
        "client|pause" => {
            super::client_pause::pause(ctx.shared, &args)?;
            out.ok();
        }
        "client|unpause" => {
            ctx.shared.pause.unpause();
            out.ok();
        }
        "client|tracking" => super::client_tracking::tracking(ctx.shared, conn, &args, out)?,
        "client|caching" => {
            super::client_tracking::caching(conn, &args)?;
            out.ok();
        }
        "client|no-evict" | "client|no-touch" => {
            let on = match args.get(2).to_ascii_lowercase().as_slice() {
                b"on" => true,
                b"off" => false,
                _ => return Err(RespError::Syntax),
            };
            match sub.name {
                "client|no-evict" => conn.peer.set_no_evict(on),
                _ => conn.peer.set_no_touch(on),
            }
            out.ok();
        }
        "client|getredir" => out.integer(super::client_tracking::getredir(conn)),
        "client|trackinginfo" => super::client_tracking::trackinginfo(ctx.shared, conn, out),
        "client|unblock" => out.integer(super::client_unblock::unblock(ctx.shared, &args)?),
        "client|list" => {
            let text = client_list(ctx.shared, &args)?;
            out.verbatim("txt", text.as_bytes());
        }
        _ => write_help(out, HELP),
    }
    Ok(())
}
