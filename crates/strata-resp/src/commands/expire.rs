//! `EXPIRE`, `PEXPIRE`, `EXPIREAT`, `PEXPIREAT key time [NX|XX|GT|LT]`, and
//! the expire-time arithmetic shared with `SET`, `SETEX` and `GETEX`.

use strata_kv::{Mutation, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::number::parse_i64;
use crate::reply::{lossy_prefix, RespError};
use crate::writer::ReplyWriter;

/// The unit of a time argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Seconds (`EX`, `EXPIRE`, ...).
    Seconds,
    /// Milliseconds (`PX`, `PEXPIRE`, ...).
    Millis,
}

/// An absolute expiry (Unix ms) from a `SET`-style time argument: it must
/// be positive, and `relative` times are added to `now_ms`. Overflow and
/// non-positive values are `invalid expire time in '<command>'`.
pub fn expiry_at(
    arg: &[u8],
    unit: Unit,
    relative: bool,
    now_ms: u64,
    command: &'static str,
) -> Result<u64, RespError> {
    let n = parse_i64(arg).ok_or(RespError::NotInteger)?;
    let invalid = RespError::InvalidExpire(command);
    if n <= 0 || (unit == Unit::Seconds && n > i64::MAX / 1000) {
        return Err(invalid);
    }
    let ms = if unit == Unit::Seconds { n * 1000 } else { n };
    let at = if relative {
        ms.checked_add(now_ms as i64).ok_or(invalid)?
    } else {
        ms
    };
    Ok(at as u64)
}

#[derive(Debug, Default, Clone, Copy)]
struct Conditions {
    nx: bool,
    xx: bool,
    gt: bool,
    lt: bool,
}

fn parse_conditions(args: &Args<'_>) -> Result<Conditions, RespError> {
    let mut c = Conditions::default();
    for opt in args.iter_from(3) {
        match opt.to_ascii_lowercase().as_slice() {
            b"nx" => c.nx = true,
            b"xx" => c.xx = true,
            b"gt" => c.gt = true,
            b"lt" => c.lt = true,
            _ => return Err(RespError::UnsupportedOption(lossy_prefix(opt, 128))),
        }
    }
    if c.nx && (c.xx || c.gt || c.lt) {
        return Err(RespError::ExpireNxConflict);
    }
    if c.gt && c.lt {
        return Err(RespError::ExpireGtLtConflict);
    }
    Ok(c)
}

/// The EXPIRE family: 1 when the timeout was set (or the key deleted because
/// the time is already past), 0 when the key is missing or a condition failed.
pub fn expire<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    unit: Unit,
    absolute: bool,
    command: &'static str,
) -> Result<(), RespError> {
    let conditions = parse_conditions(&args)?;
    let invalid = RespError::InvalidExpire(command);
    let mut when = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    if unit == Unit::Seconds {
        when = when.checked_mul(1000).ok_or(invalid.clone())?;
    }
    let now = ctx.shared.keyspace.now_ms();
    if !absolute {
        when = when.checked_add(now as i64).ok_or(invalid)?;
    }
    let changed = ctx.store.update(args.get(1), |old| {
        let Some(item) = old else {
            return (Mutation::Keep, None);
        };
        // No expiry counts as an infinite TTL: GT never beats it, LT always does.
        let refused = match item.expires_at.map(|t| t as i64) {
            None => conditions.xx || conditions.gt,
            Some(current) => {
                conditions.nx
                    || (conditions.gt && when <= current)
                    || (conditions.lt && when >= current)
            }
        };
        if refused {
            (Mutation::Keep, None)
        } else if when <= now as i64 {
            (Mutation::Delete, Some("del"))
        } else {
            (Mutation::SetExpiry(Some(when as u64)), Some("expire"))
        }
    })?;
    if let Some(event) = changed {
        fire(ctx, notify::GENERIC, event, args.get(1));
    }
    out.integer(i64::from(changed.is_some()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_style_expiry() {
        assert_eq!(
            expiry_at(b"10", Unit::Seconds, true, 1000, "set"),
            Ok(11_000)
        );
        assert_eq!(expiry_at(b"10", Unit::Millis, true, 1000, "set"), Ok(1010));
        assert_eq!(expiry_at(b"5", Unit::Seconds, false, 1000, "set"), Ok(5000));
        assert_eq!(
            expiry_at(b"0", Unit::Seconds, true, 0, "set"),
            Err(RespError::InvalidExpire("set"))
        );
        assert_eq!(
            expiry_at(b"-1", Unit::Millis, true, 0, "set"),
            Err(RespError::InvalidExpire("set"))
        );
        assert_eq!(
            expiry_at(b"x", Unit::Millis, true, 0, "set"),
            Err(RespError::NotInteger)
        );
        assert_eq!(
            expiry_at(b"9223372036854775807", Unit::Millis, true, 5, "set"),
            Err(RespError::InvalidExpire("set"))
        );
        assert_eq!(
            expiry_at(b"9223372036854776", Unit::Seconds, true, 0, "set"),
            Err(RespError::InvalidExpire("set"))
        );
    }
}
