//! [`TimedBody`]: a request body that must arrive whole within a time
//! bound from the request's head, so a client trickling its body a byte a
//! second cannot hold a connection (and a handler waiting for it) for
//! long. Past the bound, reading it fails with [`BodyTimeout`], which the
//! request handler answers with 408 (`EsError::BodyTimeout`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use tokio::time::Sleep;

/// The body did not arrive within the bound.
#[derive(Debug, Clone, Copy)]
pub struct BodyTimeout {
    /// The bound.
    pub after: Duration,
}

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the request body did not arrive within {:?}", self.after)
    }
}

impl std::error::Error for BodyTimeout {}

/// A request body with a deadline.
pub struct TimedBody {
    inner: Incoming,
    deadline: Pin<Box<Sleep>>,
    after: Duration,
}

impl TimedBody {
    /// `inner`, which must arrive whole within `after` from now.
    pub fn new(inner: Incoming, after: Duration) -> Self {
        Self {
            inner,
            deadline: Box::pin(tokio::time::sleep(after)),
            after,
        }
    }
}

impl Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        match this.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimeout { after: this.after })))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
