//! The contract between the connection driver and a wire protocol.

use std::sync::Arc;

use bytes::BytesMut;

use crate::clients::ClientInfo;

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
}
