//! A connection's socket as the driver uses it: reads that also wait for
//! shutdown, closing, idleness, the request deadline and the session's
//! wakeup; writes bounded by the request timeout; held replies sent once
//! their durability wait resolves; a console for a session that asks.

use std::io;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use strata_net::Connection;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::session::Hold;
use crate::signal::{Event, Signal};
use crate::timeouts::IdleTimeout;

/// Why a wait for input ended without input.
pub(super) enum ReadEnd {
    Closed,
    Shutdown,
    Idle,
    RequestTimeout,
}

/// Reads what the client sent (at least a byte; none when `wakeup` is
/// signalled: output arrived for the session), or says why not: the
/// client closed (or was closed from outside), shutdown, the idle limit
/// (counted from `last_activity`, and following changes of the limit) or
/// the pending request's `deadline` passed.
///
/// Only the socket and the connection's [`Signal`] are waited on (and the
/// deadline's timer and `wakeup` when there are any): this runs once per
/// request at pipeline depth 1, so each extra waiter costs.
pub(super) async fn read_some(
    stream: &mut Connection,
    input: &mut BytesMut,
    idle: &IdleTimeout,
    last_activity: Instant,
    deadline: Option<Instant>,
    signal: &Signal,
    wakeup: Option<&tokio::sync::Notify>,
) -> Result<usize, io::Result<ReadEnd>> {
    let request_deadline = deadline.map(tokio::time::Instant::from_std);
    loop {
        // A subscriber waits for messages, not requests: never idle (as
        // Redis exempts pub/sub clients from `timeout`).
        let idle_deadline = match wakeup {
            Some(_) => None,
            None => idle
                .limit()
                .map(|limit| tokio::time::Instant::from_std(last_activity + limit)),
        };
        let (deadline, end) = match (idle_deadline, request_deadline) {
            (Some(i), Some(r)) if i < r => (Some(i), ReadEnd::Idle),
            (_, Some(r)) => (Some(r), ReadEnd::RequestTimeout),
            (i, None) => (i, ReadEnd::Idle),
        };
        // The socket first: input already there is read without touching
        // the rest (the driver checks the signal after each batch).
        tokio::select! {
            biased;
            n = stream.read_buf(input) => return match n {
                Ok(0) => Err(Ok(ReadEnd::Closed)),
                Ok(n) => Ok(n),
                Err(err) => Err(Err(err)),
            },
            event = std::future::poll_fn(|cx| signal.poll_event(cx)) => match event {
                Event::Closed => return Err(Ok(ReadEnd::Closed)),
                Event::Shutdown => return Err(Ok(ReadEnd::Shutdown)),
                Event::Recheck => {}
            },
            () = sleep_until(deadline) => return Err(Ok(end)),
            () = notified(wakeup) => return Ok(0),
        }
    }
}

/// A console on the socket for a session that asked for one (`SCRIPT
/// DEBUG`); `None` on TLS or when the descriptor could not be duplicated.
pub(super) fn console(stream: &Connection) -> Option<strata_net::Console> {
    stream.console().and_then(|made| {
        made.map_err(|err| tracing::warn!(%err, "could not make a console"))
            .ok()
    })
}

/// The socket's file descriptor (`CLIENT LIST`'s `fd`).
pub(super) fn raw_fd(stream: &Connection) -> i64 {
    use std::os::fd::AsRawFd;
    match stream {
        Connection::Plain(tcp) => i64::from(tcp.as_raw_fd()),
        Connection::Tls(tls) => i64::from(tls.get_ref().0.as_raw_fd()),
    }
}

/// Waits for `wakeup` (forever without one).
async fn notified(wakeup: Option<&tokio::sync::Notify>) {
    match wakeup {
        Some(notify) => notify.notified().await,
        None => std::future::pending().await,
    }
}

/// Sleeps until `deadline` (forever without one).
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Writes `bytes` and flushes them (TLS buffers otherwise), failing when
/// the client does not take them within `bound`.
pub(super) async fn send(
    stream: &mut Connection,
    mut bytes: &[u8],
    bound: Duration,
) -> io::Result<()> {
    // What the socket takes at once needs no timer (a plain socket has
    // nothing to flush): the common case, one syscall.
    while !bytes.is_empty() {
        match stream.try_write(bytes) {
            Some(Ok(0)) => return Err(io::ErrorKind::WriteZero.into()),
            Some(Ok(n)) => bytes = &bytes[n..],
            Some(Err(err)) if err.kind() == io::ErrorKind::WouldBlock => break,
            Some(Err(err)) => return Err(err),
            None => break,
        }
    }
    if bytes.is_empty() {
        return Ok(());
    }
    let write = async {
        stream.write_all(bytes).await?;
        stream.flush().await
    };
    match tokio::time::timeout(bound, write).await {
        Ok(result) => result,
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("the client took no replies for {bound:?}"),
        )),
    }
}

/// Sends the replies before the hold, waits for it, and on success leaves
/// the held replies in `output` for the caller to send (`Ok(true)`). On
/// failure the held replies are dropped, the failure reply is sent and
/// `Ok(false)` says to close. The wait itself has no timeout: a durable
/// wait always resolves (the log either syncs or poisons itself).
pub(super) async fn wait_for(
    hold: Hold,
    stream: &mut Connection,
    output: &mut BytesMut,
    written_total: &mut u64,
    bound: Duration,
) -> io::Result<bool> {
    let from = hold.from.min(output.len());
    if from > 0 {
        let ready = output.split_to(from);
        *written_total += ready.len() as u64;
        send(stream, &ready, bound).await?;
    }
    match hold.until.await {
        Ok(()) => Ok(true),
        Err(cause) => {
            output.clear();
            let reply = (hold.on_failure)(&cause);
            *written_total += reply.len() as u64;
            send(stream, &reply, bound).await?;
            Ok(false)
        }
    }
}
