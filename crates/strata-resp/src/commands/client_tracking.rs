//! `CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
//! [OPTOUT] [NOLOOP]`, `CLIENT CACHING YES|NO`, `CLIENT GETREDIR` and
//! `CLIENT TRACKINGINFO` (see [`crate::tracking`]), with Redis's checks in
//! Redis's order and its refusals.

use crate::args::Args;
use crate::connection::Connection;
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::shared::Shared;
use crate::tracking::{self, Options};
use crate::writer::ReplyWriter;

/// `CLIENT TRACKING ...`.
pub fn tracking(
    shared: &Shared,
    conn: &mut Connection,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let on = match args.get(2).to_ascii_lowercase().as_slice() {
        b"on" => true,
        b"off" => false,
        _ => return Err(RespError::Syntax),
    };
    let mut options = Options::default();
    let mut i = 3;
    while i < args.len() {
        let more = i + 1 < args.len();
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"redirect" if more => {
                if options.redirect != 0 {
                    return Err(ClientError::OneRedirect.into());
                }
                let id = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                // Redis reads 0 as "no redirect"; a negative id is no client.
                options.redirect = u64::try_from(id).map_err(|_| ClientError::NoRedirectTarget)?;
                i += 1;
            }
            b"prefix" if more => {
                options.prefixes.push(args.get(i + 1).into());
                i += 1;
            }
            b"bcast" => options.bcast = true,
            b"optin" => options.optin = true,
            b"optout" => options.optout = true,
            b"noloop" => options.noloop = true,
            _ => return Err(RespError::Syntax),
        }
        i += 1;
    }
    if !on {
        tracking::disable(shared, conn);
        out.ok();
        return Ok(());
    }
    check(shared, conn, &options)?;
    tracking::enable(shared, conn, options);
    out.ok();
    Ok(())
}

/// Redis's refusals of `CLIENT TRACKING ON`, in its order.
fn check(shared: &Shared, conn: &Connection, new: &Options) -> Result<(), ClientError> {
    if !new.bcast && !new.prefixes.is_empty() {
        return Err(ClientError::PrefixNeedsBcast);
    }
    let old = conn.tracking.as_ref().map(|t| &t.options);
    if old.is_some_and(|o| o.bcast != new.bcast) {
        return Err(ClientError::SwitchBcast);
    }
    if new.optin && new.optout {
        return Err(ClientError::OptinAndOptout);
    }
    if old.is_some_and(|o| (new.optin && o.optout) || (new.optout && o.optin)) {
        return Err(ClientError::SwitchOptMode);
    }
    if (new.optin || new.optout) && new.bcast {
        return Err(ClientError::OptWithBcast);
    }
    if new.redirect != 0 && !shared.peers.lock().contains_key(&new.redirect) {
        return Err(ClientError::NoRedirectTarget);
    }
    let existing = old.map_or(&[][..], |o| &o.prefixes[..]);
    for (k, p) in new.prefixes.iter().enumerate() {
        let overlaps = |q: &[u8]| q != &p[..] && (q.starts_with(p) || p.starts_with(q));
        if let Some(q) = existing.iter().find(|q| overlaps(q)) {
            return Err(ClientError::PrefixOverlap(
                lossy(p),
                lossy(q),
                "an existing",
            ));
        }
        if let Some(q) = new.prefixes[k + 1..].iter().find(|q| overlaps(q)) {
            return Err(ClientError::PrefixOverlap(
                lossy(p),
                lossy(q),
                "another provided",
            ));
        }
    }
    Ok(())
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `CLIENT CACHING YES|NO`: whether the next command's reads are
/// remembered, in `OPTIN` or `OPTOUT` mode.
pub fn caching(conn: &mut Connection, args: &Args<'_>) -> Result<(), RespError> {
    let yes = match args.get(2).to_ascii_lowercase().as_slice() {
        b"yes" => true,
        b"no" => false,
        _ => return Err(RespError::Syntax),
    };
    let Some(t) = conn
        .tracking
        .as_mut()
        .filter(|t| t.options.optin || t.options.optout)
    else {
        return Err(ClientError::CachingNeedsOptMode.into());
    };
    match (yes, t.options.optin) {
        (true, false) => Err(ClientError::CachingYesNeedsOptin.into()),
        (false, true) => Err(ClientError::CachingNoNeedsOptout.into()),
        _ => {
            t.caching = Some(yes);
            Ok(())
        }
    }
}

/// `CLIENT GETREDIR`: -1 when tracking is off, else the redirect (0: none).
pub fn getredir(conn: &Connection) -> i64 {
    conn.tracking.as_ref().map_or(-1, |t| {
        i64::try_from(t.options.redirect).unwrap_or(i64::MAX)
    })
}

/// `CLIENT TRACKINGINFO`: flags, redirect, prefixes.
pub fn trackinginfo(shared: &Shared, conn: &Connection, out: &mut ReplyWriter<'_>) {
    let mut flags: Vec<&str> = Vec::new();
    match &conn.tracking {
        None => flags.push("off"),
        Some(t) => {
            let o = &t.options;
            flags.push("on");
            let named = [
                (o.bcast, "bcast"),
                (o.optin, "optin"),
                (o.optout, "optout"),
                (t.caching == Some(true), "caching-yes"),
                (t.caching == Some(false), "caching-no"),
                (o.noloop, "noloop"),
                (
                    o.redirect != 0 && !shared.peers.lock().contains_key(&o.redirect),
                    "broken_redirect",
                ),
            ];
            flags.extend(named.iter().filter(|(set, _)| *set).map(|(_, name)| *name));
        }
    }
    out.map(3);
    out.bulk(b"flags");
    out.set(flags.len());
    for flag in &flags {
        out.bulk(flag.as_bytes());
    }
    out.bulk(b"redirect");
    out.integer(getredir(conn));
    out.bulk(b"prefixes");
    let prefixes = conn
        .tracking
        .as_ref()
        .map_or(&[][..], |t| &t.options.prefixes[..]);
    out.array(prefixes.len());
    for p in prefixes {
        out.bulk(p);
    }
}
