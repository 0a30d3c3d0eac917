//! `AUTH [username] password`. The only user is `default`; its password is
//! `requirepass` (none: any password is accepted for `default`).

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// True when `user` (`None`: default) with `password` may log in while
/// `required` is the configured password.
pub fn credentials_ok(required: Option<&str>, user: Option<&[u8]>, password: &[u8]) -> bool {
    if user.is_some_and(|u| u != b"default") {
        return false;
    }
    match required {
        None => true,
        Some(expected) => constant_time_eq(expected.as_bytes(), password),
    }
}

/// Compares without an early exit on the first differing byte.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = (a.len() != b.len()) as u8;
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

/// `AUTH`: `+OK` and the connection is authenticated, or `WRONGPASS`.
pub fn auth<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let required = ctx.shared.info.settings.requirepass();
    let (user, password) = match args.len() {
        2 => (None, args.get(1)),
        3 => (Some(args.get(1)), args.get(2)),
        _ => return Err(RespError::Syntax),
    };
    if user.is_none() && required.is_none() {
        return Err(RespError::AuthNotConfigured);
    }
    if !credentials_ok(required.as_deref(), user, password) {
        return Err(RespError::WrongPass);
    }
    ctx.conn.authenticated = true;
    out.ok();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials() {
        assert!(credentials_ok(None, None, b"anything"));
        assert!(credentials_ok(None, Some(b"default"), b"x"));
        assert!(!credentials_ok(None, Some(b"bob"), b"x"));
        assert!(credentials_ok(Some("pw"), None, b"pw"));
        assert!(!credentials_ok(Some("pw"), None, b"pw2"));
        assert!(!credentials_ok(Some("pw"), None, b"p"));
        assert!(credentials_ok(Some("pw"), Some(b"default"), b"pw"));
    }
}
