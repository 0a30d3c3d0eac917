//! Log output: `tracing` events to standard error, as text or JSON lines,
//! filtered by the configured level unless `RUST_LOG` is set. Panics are
//! logged there too (with the thread and location, in the same format),
//! so a contained request panic shows up as one error event beside the
//! front end's own line naming the request.

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
    std::panic::set_hook(Box::new(log_panic));
    Ok(())
}

/// The panic hook: one error event instead of the default text on stderr.
/// A backtrace is attached when `RUST_BACKTRACE` asks for one.
fn log_panic(info: &std::panic::PanicHookInfo<'_>) {
    let thread = std::thread::current();
    let location = info
        .location()
        .map(|l| format!("{}:{}", l.file(), l.line()))
        .unwrap_or_default();
    let thread = thread.name().unwrap_or("unnamed");
    let message = strata_service::panic_guard::panic_message(info.payload());
    let backtrace = std::backtrace::Backtrace::capture();
    if backtrace.status() == std::backtrace::BacktraceStatus::Captured {
        tracing::error!(thread, %location, %backtrace, "panic: {message}");
    } else {
        tracing::error!(thread, %location, "panic: {message}");
    }
}
