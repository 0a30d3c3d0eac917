//! `CLIENT KILL`: closes other clients' connections, as Redis 7 does.
//!
//! - `CLIENT KILL <ip:port>` (the old form): the client at that address,
//!   this one included; `+OK`, or `No such client`.
//! - `CLIENT KILL <filter> <value> ...`: every client matching all of
//!   `ID`, `TYPE` (`normal`, `pubsub`; `master`, `replica` and `slave`
//!   match none: Strata has no replication), `USER`, `ADDR`, `LADDR`, and
//!   not this one unless `SKIPME no`; the number killed.
//!
//! A killed connection gets the replies it already has and reads nothing
//! more (`ClientInfo::close`, as `ACL DELUSER` closes its user's); this
//! one, when it kills itself, closes after this reply. Only this front
//! end's clients are seen (the memcached port keeps its own registry).

use crate::args::Args;
use crate::connection::Connection;
use crate::number::parse_i64;
use crate::reply::{lossy_prefix, ClientError, RespError};
use crate::shared::Shared;

/// The client types `TYPE` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Normal,
    PubSub,
    /// `master`, `replica`, `slave`: none here.
    Replication,
}

/// What a client must match to be killed.
#[derive(Debug, Default)]
struct Filter {
    id: Option<u64>,
    kind: Option<Kind>,
    user: Option<Vec<u8>>,
    addr: Option<String>,
    laddr: Option<String>,
    skip_me: bool,
}

impl Filter {
    /// Parses `args` (from `CLIENT KILL` on); the old form is one address.
    fn parse(shared: &Shared, args: &Args<'_>) -> Result<Filter, RespError> {
        if args.len() == 3 {
            return Ok(Filter {
                addr: Some(String::from_utf8_lossy(args.get(2)).into_owned()),
                ..Filter::default()
            });
        }
        if args.len() % 2 != 0 {
            return Err(RespError::Syntax);
        }
        let mut filter = Filter {
            skip_me: true,
            ..Filter::default()
        };
        for i in (2..args.len()).step_by(2) {
            let value = args.get(i + 1);
            match args.get(i).to_ascii_lowercase().as_slice() {
                b"id" => {
                    let id = parse_i64(value)
                        .filter(|&id| id > 0)
                        .ok_or(RespError::Client(ClientError::ClientIdNotPositive))?;
                    filter.id = Some(id as u64);
                }
                b"type" => {
                    filter.kind = Some(match value.to_ascii_lowercase().as_slice() {
                        b"normal" => Kind::Normal,
                        b"pubsub" => Kind::PubSub,
                        b"master" | b"replica" | b"slave" => Kind::Replication,
                        _ => {
                            return Err(RespError::Client(ClientError::UnknownClientType(
                                lossy_prefix(value, 128),
                            )))
                        }
                    })
                }
                b"user" => {
                    if shared.acl.user(value).is_none() {
                        return Err(RespError::Client(ClientError::NoSuchUserToKill(
                            lossy_prefix(value, 128),
                        )));
                    }
                    filter.user = Some(value.to_vec());
                }
                b"addr" => filter.addr = Some(String::from_utf8_lossy(value).into_owned()),
                b"laddr" => filter.laddr = Some(String::from_utf8_lossy(value).into_owned()),
                b"skipme" => {
                    filter.skip_me = match value.to_ascii_lowercase().as_slice() {
                        b"yes" => true,
                        b"no" => false,
                        _ => return Err(RespError::Syntax),
                    }
                }
                _ => return Err(RespError::Syntax),
            }
        }
        Ok(filter)
    }
}

/// Runs `CLIENT KILL` for `conn`, writing nothing: returns the reply's
/// count (`None`: the old form, which answers `+OK`).
pub fn kill(
    shared: &Shared,
    conn: &mut Connection,
    args: &Args<'_>,
) -> Result<Option<i64>, RespError> {
    let old_form = args.len() == 3;
    let filter = Filter::parse(shared, args)?;
    let peers = shared.peers.lock().clone();
    let mut killed = 0i64;
    for client in shared.clients.list() {
        // A client killed already is gone, as in Redis (which frees it at
        // once), though its connection may not have deregistered yet.
        if client.is_closing() {
            continue;
        }
        let peer = peers.get(&client.id);
        let me = client.id == conn.client.id;
        let subscribed = peer.is_some_and(|p| p.subscriptions() != (0, 0, 0));
        let kind = if subscribed {
            Kind::PubSub
        } else {
            Kind::Normal
        };
        let matches = filter.id.is_none_or(|id| id == client.id)
            && filter.kind.is_none_or(|k| k == kind)
            && filter
                .addr
                .as_deref()
                .is_none_or(|a| a == client.addr.to_string())
            && filter
                .laddr
                .as_deref()
                .is_none_or(|a| a == client.local_addr.to_string())
            && filter
                .user
                .as_deref()
                .is_none_or(|u| peer.is_some_and(|p| p.user().name == u))
            && !(me && filter.skip_me);
        if !matches {
            continue;
        }
        if me {
            conn.close = true;
        } else {
            client.close();
        }
        killed += 1;
    }
    match old_form {
        true if killed == 0 => Err(RespError::Client(ClientError::NoSuchClient)),
        true => Ok(None),
        false => Ok(Some(killed)),
    }
}
