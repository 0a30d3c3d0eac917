//! Errors raised inside a script, as the script and its client see them.
//!
//! mlua raises a Rust function's error into Lua as a userdata; Redis's
//! scripts get strings (`local ok, err = pcall(redis.call, ...)` then
//! `redis.error_reply(err)` is a common idiom), so what `pcall` and an
//! `xpcall` handler receive is made a string first ([`caught`]); a
//! script's own error values (tables, numbers) pass as they are.

/// An error reply raised in a script, with the script line: a command's
/// error from `redis.call`, an error table the script raised
/// (`error({err = ...})`), or a library function's error worded as
/// Redis words it. The text is what a `pcall` sees; the client's reply
/// adds `script: <sha>, on @user_script:<line>.`.
#[derive(Debug)]
pub(super) struct ReplyError {
    pub(super) text: String,
    pub(super) line: i64,
    /// A failed command's error, counted in the error statistics when it
    /// failed: a script answering with it does not count it again (Redis's
    /// `ignore_error_stats_update`).
    pub(super) counted: bool,
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for ReplyError {}

/// Whether an error table carries Redis's `ignore_error_stats_update`:
/// its error was counted when its command failed.
pub(super) fn counts_already(table: &mlua::Table) -> bool {
    matches!(
        table.raw_get::<mlua::Value>(IGNORE_STATS),
        Ok(mlua::Value::Boolean(true))
    )
}

/// The field Redis sets in a failed command's error table.
pub(super) const IGNORE_STATS: &str = "ignore_error_stats_update";

/// Whether `err` raises a failed command's error, counted when it failed.
pub(super) fn counted(err: &mlua::Error) -> bool {
    match err {
        mlua::Error::CallbackError { cause, .. } => counted(cause),
        mlua::Error::ExternalError(inner) => inner
            .downcast_ref::<ReplyError>()
            .is_some_and(|reply| reply.counted),
        _ => false,
    }
}

/// The message a script catches for `err`: the innermost cause's text,
/// without mlua's traceback.
pub(super) fn caught(err: &mlua::Error) -> String {
    match err {
        mlua::Error::CallbackError { cause, .. } => caught(cause),
        mlua::Error::ExternalError(inner) => match inner.downcast_ref::<ReplyError>() {
            Some(reply) => reply.text.clone(),
            None => inner.to_string(),
        },
        mlua::Error::RuntimeError(text) => text
            .split("\nstack traceback:")
            .next()
            .unwrap_or_default()
            .to_string(),
        mlua::Error::MemoryError(_) => "not enough memory".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{caught, ReplyError};

    #[test]
    #[allow(
        clippy::arc_with_non_send_sync,
        reason = "mlua's CallbackError holds an Arc"
    )]
    fn a_caught_error_is_the_innermost_text() {
        let call = mlua::Error::external(ReplyError {
            text: "ERR no such key".into(),
            line: 3,
            counted: true,
        });
        let wrapped = mlua::Error::CallbackError {
            traceback: "stack traceback:\n\t[C]: in ?".into(),
            cause: Arc::new(call),
        };
        assert_eq!(caught(&wrapped), "ERR no such key");
        let runtime = mlua::Error::runtime("Cannot serialise\nstack traceback:\n\t[C]");
        assert_eq!(caught(&runtime), "Cannot serialise");
    }
}

/// Raised by the instruction hook once `SCRIPT KILL` asked.
#[derive(Debug)]
pub(super) struct Killed;

impl std::fmt::Display for Killed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Script killed by user with SCRIPT KILL...")
    }
}

impl std::error::Error for Killed {}

/// Why `redis.call` failed: the error line (without `-`), whether the
/// command ran and answered it (else a check refused it first), and
/// whether the error was counted in the error statistics (every failure
/// of a command or of its checks is, as Redis's script client counts it;
/// a malformed call is the script's own error, counted when it answers).
#[derive(Debug)]
pub struct Failed {
    /// The error line.
    pub text: String,
    /// The command ran (its reply is the error).
    pub ran: bool,
    /// Counted already (see [`ReplyError::counted`]).
    pub counted: bool,
}

impl From<String> for Failed {
    fn from(text: String) -> Self {
        Failed {
            text,
            ran: false,
            counted: false,
        }
    }
}

impl From<&str> for Failed {
    fn from(text: &str) -> Self {
        Failed::from(text.to_string())
    }
}
