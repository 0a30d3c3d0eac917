//! `CLIENT PAUSE timeout [WRITE|ALL]`: holds back every command (`ALL`,
//! the default) or those that may write (`WRITE`) for `timeout`
//! milliseconds (see [`crate::pause`]); `CLIENT UNPAUSE` ends it sooner.

use std::time::{Duration, Instant};

use crate::args::Args;
use crate::blocking::parse_timeout_ms;
use crate::pause::PauseMode;
use crate::reply::{ClientError, RespError};
use crate::shared::Shared;

/// Starts (or extends) the pause `args` asks for.
pub fn pause(shared: &Shared, args: &Args<'_>) -> Result<(), RespError> {
    if args.len() > 4 {
        return Err(RespError::SubcommandArgs {
            sub: String::from_utf8_lossy(args.get(1)).into_owned(),
            command: "CLIENT".into(),
        });
    }
    // Redis reads the timeout as its blocking commands' milliseconds.
    let timeout = parse_timeout_ms(args.get(2))?.unwrap_or(Duration::ZERO);
    let mode = match args.len() {
        4 => match args.get(3).to_ascii_lowercase().as_slice() {
            b"write" => PauseMode::Write,
            b"all" => PauseMode::All,
            _ => return Err(ClientError::PauseMode.into()),
        },
        _ => PauseMode::All,
    };
    // A pause past what an Instant holds lasts until UNPAUSE in practice.
    let end = Instant::now()
        .checked_add(timeout)
        .unwrap_or_else(|| Instant::now() + Duration::from_secs(1 << 32));
    shared.pause.pause(end, mode);
    Ok(())
}
