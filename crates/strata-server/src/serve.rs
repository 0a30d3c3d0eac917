//! `strata serve`: load the configuration, set up logging, run a [`Server`]
//! on a multi-thread runtime until SIGINT, SIGTERM or a client's `SHUTDOWN`,
//! then shut down cleanly.

use std::time::Duration;

use strata_service::ShutdownKind;
use tokio::signal::unix::{signal, Signal, SignalKind};

use crate::config::{ServeArgs, ServerConfig};
use crate::error::ServerError;
use crate::server::Server;

/// How long open connections get to close after a shutdown signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// How long the runtime waits for tasks still running after the grace period.
const RUNTIME_SHUTDOWN: Duration = Duration::from_secs(1);

/// The `strata serve` entry point: returns `Ok` after a clean shutdown.
/// `build_commit` is the commit the binary was built from (what `strata
/// --version` names), reported to clients.
pub fn run_serve(args: ServeArgs, build_commit: &str) -> Result<(), ServerError> {
    let mut config = ServerConfig::load(&args)?;
    config.build_commit = build_commit.to_owned();
    crate::logging::init(&config.log_level, config.log_format)?;
    run(&config)
}

/// Runs the server described by a validated `config` until a signal arrives.
pub fn run(config: &ServerConfig) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.threads)
        .thread_name("strata-worker")
        .thread_stack_size(strata_service::THREAD_STACK_SIZE)
        .enable_all()
        .build()
        .map_err(ServerError::Runtime)?;
    let outcome = runtime.block_on(async {
        // Handlers go in before the ports open, so a signal sent as soon as
        // the server answers is always a clean shutdown.
        let mut signals = Signals::install()?;
        let server = Server::start(config).await?;
        let why = tokio::select! {
            name = signals.recv() => format!("signal {name}"),
            kind = server.shutdown_requested() => match kind {
                ShutdownKind::Graceful => "a client's SHUTDOWN".to_owned(),
                ShutdownKind::Abandon => {
                    // A script holds the keyspace and may never let go: no
                    // drain, no flush, no destructor that would wait for it.
                    tracing::warn!("exiting at once on a client's request");
                    std::process::exit(0);
                }
            },
            cause = server.failed() => {
                // No grace, no final flush: stop serving now.
                tracing::error!(%cause, "stopping at once");
                return Err(ServerError::FailStop(cause));
            }
        };
        tracing::info!(on = %why, "shutting down");
        // A clean stop waits for a running script, as Redis's does (an
        // unkillable one may never end, and the ports are closed by then):
        // a second SIGTERM or SIGINT exits at once, as a kill would.
        tokio::spawn(async move {
            let name = signals.recv().await;
            tracing::error!(signal = %name, "second signal while shutting down: exiting at once");
            std::process::exit(1);
        });
        server.shutdown(SHUTDOWN_GRACE).await;
        Ok::<_, ServerError>(())
    });
    if let Err(err) = outcome {
        runtime.shutdown_background();
        return Err(err);
    }
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    tracing::info!("shutdown complete");
    Ok(())
}

/// The signals that stop the server.
struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    fn install() -> Result<Self, ServerError> {
        Ok(Self {
            interrupt: signal(SignalKind::interrupt()).map_err(ServerError::Signals)?,
            terminate: signal(SignalKind::terminate()).map_err(ServerError::Signals)?,
        })
    }

    /// Waits for the first of SIGINT and SIGTERM and names it.
    async fn recv(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
        }
    }
}
