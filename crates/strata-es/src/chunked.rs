//! Reply bodies sent while they are produced (`_msearch`): a producer
//! on the blocking pool hands chunks to a bounded channel, the HTTP body
//! takes them as the connection drains. The channel's bound is the back
//! pressure: a slow client stops the producer instead of letting the
//! reply pile up in memory. Each chunk carries its reservation on the
//! request breaker, given back once the chunk is handed to the connection.
//! If the client goes away, the producer's next send fails and it stops.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};
use strata_search::MemoryAccount;
use tokio::sync::mpsc;

/// One piece of the body and the memory reserved for it.
pub struct Chunk {
    /// The bytes.
    pub bytes: Bytes,
    /// Released when the chunk leaves for the connection.
    pub memory: MemoryAccount,
}

/// The producer's end.
pub struct ChunkSender {
    tx: mpsc::Sender<Chunk>,
}

impl ChunkSender {
    /// Sends `chunk`, waiting while the channel is full (call it on a
    /// blocking thread). `false`: the client is gone; stop producing.
    pub fn send(&self, chunk: Chunk) -> bool {
        self.tx.blocking_send(chunk).is_ok()
    }
}

/// The body's end: an HTTP body of the chunks in order.
pub struct ChunkedBody {
    rx: mpsc::Receiver<Chunk>,
}

impl std::fmt::Debug for ChunkedBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChunkedBody")
    }
}

/// A channel holding at most `chunks` chunks not yet sent.
pub fn channel(chunks: usize) -> (ChunkSender, ChunkedBody) {
    let (tx, rx) = mpsc::channel(chunks.max(1));
    (ChunkSender { tx }, ChunkedBody { rx })
}

impl Body for ChunkedBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.rx.poll_recv(cx) {
            // The chunk's reservation is dropped here, with the chunk.
            Poll::Ready(Some(chunk)) => Poll::Ready(Some(Ok(Frame::data(chunk.bytes)))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
