//! `CLIENT ID|GETNAME|SETNAME|INFO|LIST|SETINFO|HELP`.

use std::fmt::Write as _;
use std::time::Instant;

use strata_kv::Store;
use strata_service::ClientInfo;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::connection::PeerView;
use crate::number::parse_i64;
use crate::protocol::Shared;
use crate::reply::{lossy_prefix, RespError};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GETNAME",
    "    Return the name of the current connection.",
    "ID",
    "    Return the ID of the current connection.",
    "INFO",
    "    Return information about the current client connection.",
    "LIST [options ...]",
    "    Return information about client connections. Options:",
    "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
    "      Return clients of specified type.",
    "    * ID <id> [<id> ...]",
    "      Return clients with the given ids.",
    "SETINFO <option> <value>",
    "    Set client meta attr. Options are:",
    "    * LIB-NAME: the client lib name.",
    "    * LIB-VER: the client lib version.",
    "SETNAME <name>",
    "    Assign the name <name> to the current connection.",
    "HELP",
    "    Prints this help.",
];

/// Refuses names with spaces, control or non-ASCII characters, as Redis.
pub fn validate_name(name: &[u8]) -> Result<(), RespError> {
    if name.iter().all(|c| (b'!'..=b'~').contains(c)) {
        Ok(())
    } else {
        Err(RespError::BadClientName)
    }
}

/// Writes `lines` as an array of simple strings (the `HELP` replies).
pub fn write_help(out: &mut ReplyWriter<'_>, lines: &[&str]) {
    out.array(lines.len());
    for line in lines {
        out.simple(line);
    }
}

/// The `CLIENT LIST` line of one client (ending in `\n`). The buffer
/// fields (`qbuf`, `obl`, `omem`, ...) are 0: the connection driver owns
/// the buffers and does not publish their sizes; they are present because
/// clients parse them as numbers (redis-py's `CLIENT INFO` and `ACL LOG`).
pub fn client_line(client: &ClientInfo, peer: Option<&PeerView>) -> String {
    let now = Instant::now();
    let age = now.saturating_duration_since(client.connected_at).as_secs();
    let idle = now
        .saturating_duration_since(*client.last_active.lock())
        .as_secs();
    let name = client.name.lock().clone().unwrap_or_default();
    let multi = peer.map_or(-1, PeerView::multi);
    let (sub, psub, ssub) = peer.map_or((0, 0, 0), PeerView::subscriptions);
    let flags = match (multi >= 0, sub + psub + ssub > 0) {
        (true, _) => "x",
        (false, true) => "P",
        (false, false) => "N",
    };
    let (argv_mem, multi_mem) = peer.map_or((0, 0), PeerView::memory);
    let messages = peer.map_or(0, PeerView::pending_messages);
    let (qbuf, rbs, rbp) = client.buffers.input();
    let (obl, out_capacity) = client.buffers.output();
    let omem = obl + messages;
    let tot_mem = rbs + out_capacity + argv_mem + multi_mem + messages;
    let events = if omem > 0 { "rw" } else { "r" };
    let mut line = String::with_capacity(256);
    let _ = write!(
        line,
        "id={} addr={} laddr={} fd={} name={} age={} idle={} flags={} db=0 sub={} psub={} \
         ssub={} multi={} qbuf={} qbuf-free={} argv-mem={} multi-mem={} rbs={} rbp={} obl={} \
         oll=0 omem={} tot-mem={} events={} cmd={} user={} redir=-1",
        client.id,
        client.addr,
        client.local_addr,
        client.buffers.fd(),
        name,
        age,
        idle,
        flags,
        sub,
        psub,
        ssub,
        multi,
        qbuf,
        rbs.saturating_sub(qbuf),
        argv_mem,
        multi_mem,
        rbs,
        rbp,
        obl,
        omem,
        tot_mem,
        events,
        *client.last_command.lock(),
        peer.map_or_else(|| "default".to_string(), |p| p.user().display_name()),
    );
    if let Some(peer) = peer {
        let (lib_name, lib_ver) = peer.lib();
        let _ = write!(
            line,
            " resp={} lib-name={} lib-ver={}",
            peer.resp(),
            lib_name.unwrap_or_default(),
            lib_ver.unwrap_or_default(),
        );
    }
    line.push('\n');
    line
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
            _ => return Err(RespError::UnknownClientType(lossy_prefix(args.get(3), 128))),
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
                    return Err(RespError::UnrecognizedOption(lossy_prefix(
                        args.get(2),
                        128,
                    )))
                }
            };
            if !value.iter().all(|c| (b'!'..=b'~').contains(c)) {
                return Err(RespError::BadClientInfo(attr_name.into()));
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
        "client|list" => {
            let text = client_list(ctx.shared, &args)?;
            out.verbatim("txt", text.as_bytes());
        }
        _ => write_help(out, HELP),
    }
    Ok(())
}
