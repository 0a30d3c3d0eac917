//! The lab's error type: everything that can stop a benchmark run.
//!
//! Errors name the peer or file involved so a failed run can be diagnosed from the message
//! alone. A server that answers a request with an error reply is *not* a [`LabError`]: such
//! replies are counted in the results. Only a broken conversation (I/O failure, closed socket,
//! unparseable bytes) or a rejected setup step (AUTH, flush) aborts the run.

use std::io;
use std::path::PathBuf;

use crate::kv::protocol::ProtocolError;

/// Why a benchmark could not run or complete.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LabError {
    /// The arguments describe an impossible run (for example `--key-max` not above `--key-min`).
    #[error("invalid benchmark configuration: {0}")]
    Config(String),

    /// The client runtime could not be built.
    #[error("could not build the client runtime: {0}")]
    Runtime(#[source] io::Error),

    /// Opening a connection to the server failed.
    #[error("could not connect to {addr}: {source}")]
    Connect {
        /// `host:port` that was dialled.
        addr: String,
        /// The underlying socket error.
        #[source]
        source: io::Error,
    },

    /// Reading from or writing to an established connection failed.
    #[error("i/o error talking to {addr}: {source}")]
    Io {
        /// `host:port` of the server.
        addr: String,
        /// The underlying socket error.
        #[source]
        source: io::Error,
    },

    /// The server closed a connection while replies were still expected.
    #[error("{addr} closed the connection while replies were outstanding")]
    Closed {
        /// `host:port` of the server.
        addr: String,
    },

    /// The server sent bytes that are not a valid reply of the protocol in use.
    #[error("malformed reply from {addr}: {source}")]
    Protocol {
        /// `host:port` of the server.
        addr: String,
        /// What was wrong with the reply.
        #[source]
        source: ProtocolError,
    },

    /// A setup command (AUTH, flush) was answered with an error reply.
    #[error("{command} was rejected by the server: {reply}")]
    Rejected {
        /// The command that failed, e.g. `AUTH`.
        command: &'static str,
        /// The error reply, lossily decoded.
        reply: String,
    },

    /// The server child process could not be prepared or started.
    #[error("could not start server {binary}: {source}")]
    Spawn {
        /// Executable that was run.
        binary: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },

    /// The server child process exited or never accepted connections.
    #[error("server {binary} did not become ready: {reason}\n--- server log ---\n{log}")]
    ServerNotReady {
        /// Executable that was run.
        binary: PathBuf,
        /// What went wrong (exit status or timeout).
        reason: String,
        /// The tail of the child's combined stdout/stderr.
        log: String,
    },

    /// A connection task panicked or was cancelled.
    #[error("a connection task failed: {0}")]
    Task(#[source] tokio::task::JoinError),

    /// An HTTP request of a setup step got no reply or was refused (`bench eventdata`).
    #[error("{request}: {reason}")]
    Http {
        /// `METHOD url` of the request.
        request: String,
        /// The failure or the server's error reply.
        reason: String,
    },

    /// A check after a run failed, e.g. the document count did not match what was indexed.
    #[error("benchmark check failed: {0}")]
    Check(String),

    /// A process's threads could not be pinned to a core (`sched_setaffinity`).
    #[error("could not pin {what} to a core: {source}")]
    Affinity {
        /// The process, e.g. `the server (pid 123)`.
        what: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },

    /// The experiment needs an engine this build does not contain.
    #[error("{0}")]
    NotAvailable(String),

    /// The JSON result could not be written.
    #[error("could not write the JSON result to {path}: {source}")]
    WriteResult {
        /// Destination file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl LabError {
    /// Process exit code for a command-line front end: 2 for an invalid configuration (the
    /// run never started), 1 for every failure during a run.
    pub fn exit_code(&self) -> u8 {
        match self {
            LabError::Config(_) => 2,
            _ => 1,
        }
    }
}
