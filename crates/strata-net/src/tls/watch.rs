//! Certificate reload without a restart: on SIGHUP, and when one of the
//! configured files changes (checked every poll interval by device,
//! inode, size and change times, so both a rewrite in place and a new
//! file renamed over the old one count). A configuration that fails to
//! load is logged and the previous one stays in use; the next change of
//! the files (say, the key written after the certificate) tries again.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::time::Duration;

use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::TlsAcceptor;

/// How often the files are checked for changes by default.
pub const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// What identifies one version of a file; `None` when it is missing.
type Stamp = Option<(u64, u64, u64, i64, i64, i64, i64)>;

fn stamps(paths: &[PathBuf]) -> Vec<Stamp> {
    paths
        .iter()
        .map(|path| {
            std::fs::metadata(path).ok().map(|m| {
                (
                    m.dev(),
                    m.ino(),
                    m.len(),
                    m.mtime(),
                    m.mtime_nsec(),
                    m.ctime(),
                    m.ctime_nsec(),
                )
            })
        })
        .collect()
}

/// Starts reloading `acceptor` on SIGHUP and whenever its files change
/// (checked every `poll`), until `shutdown` is cancelled. Must be called
/// inside a tokio runtime with signal handling enabled; SIGHUP is handled
/// from the moment it returns (until then its default action, ending the
/// process, applies).
pub fn spawn(acceptor: TlsAcceptor, poll: Duration, shutdown: CancellationToken) -> JoinHandle<()> {
    let mut hangup = match signal(SignalKind::hangup()) {
        Ok(signal) => Some(signal),
        Err(err) => {
            tracing::warn!(%err, "cannot handle SIGHUP; TLS files are still reloaded when they change");
            None
        }
    };
    let paths = acceptor.files().paths();
    let mut seen = stamps(&paths);
    tokio::spawn(async move {
        loop {
            let cause = tokio::select! {
                _ = shutdown.cancelled() => return,
                () = tokio::time::sleep(poll) => {
                    let now = stamps(&paths);
                    if now == seen {
                        continue;
                    }
                    seen = now;
                    "files changed"
                }
                () = next_signal(&mut hangup) => {
                    seen = stamps(&paths);
                    "SIGHUP"
                }
            };
            reload(&acceptor, cause);
        }
    })
}

/// Reloads once and logs the outcome.
pub fn reload(acceptor: &TlsAcceptor, cause: &str) {
    let files = acceptor.files();
    match acceptor.reload() {
        Ok(()) => tracing::info!(
            cause,
            cert = %files.cert.display(),
            key = %files.key.display(),
            "TLS certificate reloaded; new connections use it"
        ),
        Err(err) => tracing::error!(
            cause,
            error = %err,
            "TLS certificate reload failed; the previous certificate stays in use"
        ),
    }
}

/// The next SIGHUP; never, when it cannot be handled.
async fn next_signal(hangup: &mut Option<Signal>) {
    match hangup {
        Some(signal) => {
            if signal.recv().await.is_none() {
                // The signal driver is gone (runtime shutting down).
                *hangup = None;
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending::<()>().await,
    }
}
