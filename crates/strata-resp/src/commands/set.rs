//! `SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::commands::expire::{expiry_at, Unit};
use crate::notify::{self, fire, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// How a time option was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeKind {
    /// `EX` / `PX`: relative to now.
    Relative(Unit),
    /// `EXAT` / `PXAT`: absolute Unix time.
    Absolute(Unit),
}

/// Expiry options shared by `SET` and `GETEX`, parsed with Redis's rules:
/// at most one kind of time option (repeating the same kind is allowed, the
/// last wins), `KEEPTTL` (SET) and `PERSIST` (GETEX) exclude them.
#[derive(Debug, Default, Clone, Copy)]
pub struct TimeOption<'a> {
    /// The time option and its argument.
    pub time: Option<(TimeKind, &'a [u8])>,
    /// `KEEPTTL`.
    pub keep_ttl: bool,
    /// `PERSIST`.
    pub persist: bool,
}

impl<'a> TimeOption<'a> {
    /// Tries to consume the option at `args[*i]` (advancing `*i` past its
    /// argument). `Ok(false)` when `opt` is not a time option.
    pub fn parse(
        &mut self,
        opt: &[u8],
        args: &Args<'a>,
        i: &mut usize,
        allow_keep_ttl: bool,
        allow_persist: bool,
    ) -> Result<bool, RespError> {
        let kind = match opt.to_ascii_lowercase().as_slice() {
            b"ex" => TimeKind::Relative(Unit::Seconds),
            b"px" => TimeKind::Relative(Unit::Millis),
            b"exat" => TimeKind::Absolute(Unit::Seconds),
            b"pxat" => TimeKind::Absolute(Unit::Millis),
            b"keepttl" if allow_keep_ttl => {
                if self.time.is_some() || self.persist {
                    return Err(RespError::Syntax);
                }
                self.keep_ttl = true;
                return Ok(true);
            }
            b"persist" if allow_persist => {
                if self.time.is_some() || self.keep_ttl {
                    return Err(RespError::Syntax);
                }
                self.persist = true;
                return Ok(true);
            }
            _ => return Ok(false),
        };
        let conflicting = self.time.is_some_and(|(k, _)| k != kind);
        if conflicting || self.keep_ttl || self.persist || *i + 1 >= args.len() {
            return Err(RespError::Syntax);
        }
        *i += 1;
        self.time = Some((kind, args.get(*i)));
        Ok(true)
    }

    /// The absolute expiry the time option asks for, if any.
    pub fn resolve(&self, now_ms: u64, command: &'static str) -> Result<Option<u64>, RespError> {
        match self.time {
            None => Ok(None),
            Some((TimeKind::Relative(unit), arg)) => {
                expiry_at(arg, unit, true, now_ms, command).map(Some)
            }
            Some((TimeKind::Absolute(unit), arg)) => {
                expiry_at(arg, unit, false, now_ms, command).map(Some)
            }
        }
    }
}

#[derive(Debug, Default)]
struct SetOptions<'a> {
    nx: bool,
    xx: bool,
    get: bool,
    time: TimeOption<'a>,
}

fn parse_options<'a>(args: &Args<'a>) -> Result<SetOptions<'a>, RespError> {
    let mut o = SetOptions::default();
    let mut i = 3;
    while i < args.len() {
        let opt = args.get(i);
        match opt.to_ascii_lowercase().as_slice() {
            b"nx" if !o.xx => o.nx = true,
            b"xx" if !o.nx => o.xx = true,
            b"get" => o.get = true,
            _ => {
                if !o.time.parse(opt, args, &mut i, true, false)? {
                    return Err(RespError::Syntax);
                }
            }
        }
        i += 1;
    }
    Ok(o)
}

/// `SET`: `+OK`, or null when NX/XX prevented it; with `GET`, the old value
/// (or null) instead.
pub fn set<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let o = parse_options(&args)?;
    let expires_at = o.time.resolve(ctx.shared.keyspace.now_ms(), "set")?;
    let value = args.get(2);
    let key = args.get(1);
    // `new` needs to know whether the key was there: no blind store then.
    let notifying = notify::any(ctx);
    if !(o.get || o.nx || o.xx || o.time.keep_ttl || notifying && notify::wanted(ctx, notify::NEW))
    {
        // Nothing of the old item is needed: stored blind (with the SSD
        // tier, no read of the old value).
        let item = NewItem {
            value: Cow::Borrowed(value),
            flags: 0,
            expires_at,
        };
        ctx.store.set(key, item)?;
        if notifying {
            announce(ctx, key, false, expires_at);
        }
        out.ok();
        return Ok(());
    }
    let mark = out.position();
    let stored = ctx.store.update(key, |old| {
        if o.get && not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        if o.get {
            match old {
                Some(item) => out.bulk(item.value),
                None => out.null(),
            }
        }
        let exists = old.is_some();
        if (o.nx && exists) || (o.xx && !exists) {
            return (Mutation::Keep, Ok(None));
        }
        let expires_at = if o.time.keep_ttl {
            old.and_then(|i| i.expires_at)
        } else {
            expires_at
        };
        let item = NewItem {
            value: Cow::Borrowed(value),
            flags: 0,
            expires_at,
        };
        (Mutation::Put(item), Ok(Some(!exists)))
    });
    match stored {
        Err(err) => {
            out.truncate(mark);
            return Err(err.into());
        }
        Ok(Err(err)) => return Err(err),
        Ok(Ok(None)) if !o.get => out.null(),
        Ok(Ok(None)) => {}
        Ok(Ok(Some(created))) => {
            announce(ctx, key, created, expires_at);
            if !o.get {
                out.ok();
            }
        }
    }
    Ok(())
}

/// The events of a stored SET: `new` if `created`, `set`, and `expire`
/// when it was given an expiry (`expires_at`; not for KEEPTTL), as Redis
/// sends them.
pub fn announce<S>(ctx: &Ctx<'_, S>, key: &[u8], created: bool, expires_at: Option<u64>) {
    if !notify::any(ctx) {
        return;
    }
    fire_created(ctx, created, notify::STRING, "set", key);
    if let Some(at) = expires_at {
        fire(ctx, notify::GENERIC, "expire", key);
        // An expiry already past (EXAT/PXAT): the engine stored nothing.
        // Redis stores the key and sends `expired` at its next lookup
        // or expiry cycle; it is sent now.
        if at <= ctx.shared.keyspace.now_ms() {
            fire(ctx, notify::EXPIRED, "expired", key);
        }
    }
}
