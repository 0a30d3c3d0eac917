//! The contract between the connection driver and a wire protocol.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::BytesMut;

use crate::clients::ClientInfo;
/// The hold a session hands the driver (defined with the durability it waits for).
pub use crate::durability::Hold;
/// Blocking I/O on a connection's socket, for [`Session::give_console`].
pub use strata_net::{Console, ConsoleSession};

/// What the driver does after a [`Session::process`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Flush the output and keep reading.
    Continue,
    /// Flush the output, then close the connection.
    Close,
    /// The output reached [`OUTPUT_SOFT_LIMIT`] with requests still waiting in
    /// the input: flush it and call `process` again before reading more.
    Yield,
}

/// Once a session's output holds this many bytes it should stop taking
/// requests from the input and return [`Flow::Yield`], so that a pipeline of
/// requests with large replies never buffers more than about this much
/// (plus one reply).
pub const OUTPUT_SOFT_LIMIT: usize = 1 << 20;

/// One connection's protocol state machine.
pub trait Session: Send + 'static {
    /// Consumes every complete request at the front of `input` (leaving an
    /// incomplete tail in place) and appends their replies, in order, to
    /// `output`. It should stop early with [`Flow::Yield`] once `output`
    /// holds [`OUTPUT_SOFT_LIMIT`] bytes.
    ///
    /// The implementation MUST bound what it keeps buffered: a request that
    /// can never complete within its limits is answered with the protocol's
    /// error and either skipped or the connection closed, so `input` never
    /// grows without bound. It MUST NOT panic on any input.
    fn process(&mut self, input: &mut BytesMut, output: &mut BytesMut) -> Flow;

    /// Called after every [`process`](Self::process): replies produced by
    /// that call that must wait for durability, if any. The driver sends
    /// nothing past [`Hold::from`] and reads no more input until the hold
    /// resolves, so pipelined replies stay in order.
    fn hold(&mut self) -> Option<Hold> {
        None
    }

    /// Called after every [`process`](Self::process) (and after the hold):
    /// work the request at the front of the input waits for, such as values
    /// read from a slower memory tier off the worker thread. The driver
    /// sends the output so far, awaits it, and calls `process` again before
    /// reading more input.
    fn fetch(&mut self) -> Option<Pin<Box<dyn Future<Output = ()> + Send + 'static>>> {
        None
    }

    /// True when a request armed the session for talking with its client
    /// while a later request runs (Redis's `SCRIPT DEBUG`): after this
    /// [`process`](Self::process) call the driver makes a [`Console`] on
    /// the socket and hands it over with [`give_console`](Self::give_console).
    /// The session should end the batch (with [`Flow::Yield`] if requests
    /// remain) right after the arming request, so the console is there
    /// before the next one runs.
    fn wants_console(&self) -> bool {
        false
    }

    /// The console asked for by [`wants_console`](Self::wants_console):
    /// `None` when the connection has none (TLS) or it could not be made.
    fn give_console(&mut self, _console: Option<Console>) {}

    /// Called before the driver waits for input: a signal that output
    /// arrived from elsewhere (a pub/sub message), on which the driver
    /// calls [`process`](Self::process) without new input. `None` (the
    /// default) when nothing can arrive.
    fn wakeup(&self) -> Option<Arc<tokio::sync::Notify>> {
        None
    }

    /// True while the session is inside a request whose bytes it consumes
    /// as they arrive (memcached discarding a value it refused), so the
    /// driver's request bound keeps counting from that request's start
    /// although the input is empty.
    fn mid_request(&self) -> bool {
        false
    }

    /// How many bytes the input must hold for the request at its front to
    /// be complete, when the session knows (a RESP bulk whose length was
    /// announced): the driver then grows the input buffer by doubling but
    /// never past this, so a large argument costs about its own size, not
    /// up to twice it. `None` (the default): plain doubling.
    fn input_wanted(&self) -> Option<usize> {
        None
    }

    /// Requests the last [`process`](Self::process) call took from the
    /// input (the driver holds replies back until the other ready
    /// connections have run, by this count: see `send_policy::SendPolicy`).
    fn batch_len(&self) -> usize {
        1
    }
}

/// A wire protocol: a factory of sessions plus the replies the driver needs.
pub trait Protocol: Send + Sync + 'static {
    /// The per-connection state.
    type Session: Session;

    /// Short name for logs (`memcache`, `resp`).
    fn name(&self) -> &'static str;

    /// Opens the session of a newly accepted client.
    fn open(&self, client: Arc<ClientInfo>) -> Self::Session;

    /// Bytes sent to a client refused because `max_connections` is reached,
    /// before the connection is closed.
    fn too_many_connections(&self) -> &'static [u8];

    /// Bytes sent to a client whose request made the session panic (a bug,
    /// see [`crate::panic_guard`]), before the connection is closed.
    fn internal_error(&self) -> &'static [u8];
    /// Bytes sent to a client protected mode refuses (it is not on the
    /// loopback interface and the port asks no authentication), before
    /// the connection is closed: what happened and how to allow it.
    fn protected_mode_refusal(&self) -> &'static [u8];
}
