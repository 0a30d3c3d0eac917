//! Log output: `tracing` events to standard error, as text or JSON lines,
//! filtered by the configured level unless `RUST_LOG` is set.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;
use crate::error::ServerError;

/// Parses a level or filter directives (`info`, `warn,strata_resp=debug`).
pub fn parse_filter(directives: &str) -> Result<EnvFilter, String> {
    if directives.trim().is_empty() {
        return Err("must not be empty (try `info`)".into());
    }
    EnvFilter::try_new(directives.trim()).map_err(|err| format!("`{directives}`: {err}"))
}

/// Installs the global subscriber. `RUST_LOG`, when set and non-empty,
/// replaces `level`. Calling it again (tests running servers in-process) is
/// harmless: the first subscriber stays.
pub fn init(level: &str, format: LogFormat) -> Result<(), ServerError> {
    let directives = match std::env::var("RUST_LOG") {
        Ok(env) if !env.trim().is_empty() => env,
        _ => level.to_owned(),
    };
    let filter = parse_filter(&directives)
        .map_err(|msg| ServerError::Logging(format!("RUST_LOG/log_level {msg}")))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal());
    // An error only means a subscriber is already installed.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    Ok(())
}
