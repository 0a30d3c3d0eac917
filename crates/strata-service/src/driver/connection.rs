//! One connection's read → [`Session::process`] → write loop, and its
//! state between turns ([`Conn`]), which is what moves when the worker
//! pool asks a connection to change workers.
//!
//! A connection moves only between two requests: no complete request
//! left unprocessed (a partial one moves with it, in its input buffer),
//! every reply sent, no durability wait or fetch under way, and on a
//! plain socket (a TLS session's state lives in rustls's stream, which is
//! not taken apart). The socket keeps its descriptor across a move.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use bytes::BytesMut;
use strata_net::Connection;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::config::DriverConfig;
use super::socket::{console, read_some, send, wait_for, ReadEnd};
use crate::clients::{ClientInfo, Clients};
use crate::panic_guard;
use crate::send_policy::SendPolicy;
use crate::session::{Flow, Session};
use crate::timeouts::{Attached, RequestClock};
use crate::workers;

/// Room made in the input buffer before a read.
pub(super) const READ_CHUNK: usize = 16 * 1024;
/// Output buffers larger than this are released after a flush so that one
/// large reply does not pin memory for the life of a connection.
pub(super) const KEEP_OUTPUT_CAPACITY: usize = 256 * 1024;
/// Traffic is added to the shared counters in batches of this many bytes.
pub(super) const TRAFFIC_BATCH: u64 = 64 * 1024;

/// What a connection's loop needs besides its own state; shared by the
/// tasks it runs as when it moves between workers.
///
/// Invariant: the client is registered exactly while this lives. Dropping
/// it unregisters the client, so a connection whose task is dropped
/// unrun or mid-way (its worker stopped, or a move onto a stopped worker)
/// leaves no entry in the registry, and the connection count it feeds
/// (`maxclients`, `INFO clients`) stays true.
pub(super) struct ConnCtx {
    pub(super) clients: Arc<Clients>,
    pub(super) client: Arc<ClientInfo>,
    pub(super) config: DriverConfig,
    pub(super) failure: Failure,
}

impl Drop for ConnCtx {
    fn drop(&mut self) {
        self.clients.unregister(self.client.id);
    }
}

/// What a connection whose session panicked logs and answers.
pub(super) struct Failure {
    pub(super) protocol: &'static str,
    pub(super) client: u64,
    pub(super) reply: &'static [u8],
}

/// A boxed connection future: the loop re-spawns itself on another
/// worker, so its type must not name itself.
pub(super) type ConnFuture = Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// A connection's state between turns of its loop.
pub(super) struct Conn<S> {
    stream: Connection,
    state: State<S>,
}

/// Everything but the socket.
struct State<S> {
    session: S,
    input: BytesMut,
    output: BytesMut,
    read_total: u64,
    written_total: u64,
    /// When the last batch of input was processed (the idle limit counts
    /// from it).
    last_activity: Instant,
    clock: RequestClock,
    _attached: Attached,
}

/// A connection between workers: its socket is registered with no
/// reactor.
struct Detached<S> {
    tcp: std::net::TcpStream,
    state: State<S>,
}

impl<S: Session> Conn<S> {
    /// A connection about to start its loop.
    pub(super) fn new(stream: Connection, session: S, ctx: &ConnCtx) -> Self {
        Self {
            stream,
            state: State {
                session,
                input: BytesMut::with_capacity(READ_CHUNK),
                output: BytesMut::with_capacity(READ_CHUNK),
                read_total: 0,
                written_total: 0,
                last_activity: Instant::now(),
                clock: RequestClock::default(),
                _attached: ctx.config.idle_timeout.attach(&ctx.client),
            },
        }
    }

    fn detach(self) -> io::Result<Detached<S>> {
        match self.stream {
            Connection::Plain(tcp) => Ok(Detached {
                tcp: tcp.into_std()?,
                state: self.state,
            }),
            Connection::Tls(_) => Err(io::Error::other("a TLS connection cannot move")),
        }
    }
}

impl<S> Detached<S> {
    /// Registers the socket with the current runtime's reactor.
    fn attach(self) -> io::Result<Conn<S>> {
        Ok(Conn {
            stream: Connection::Plain(tokio::net::TcpStream::from_std(self.tcp)?),
            state: self.state,
        })
    }
}

/// How a turn of the loop ended.
enum Exit<S> {
    /// The connection is over (closed, failed or shut down).
    Ended(io::Result<()>),
    /// The pool wants it on worker `to`.
    Move(Conn<S>, usize),
}

/// Runs `conn` here until it ends or moves; a move re-spawns it on its
/// new worker. The client is unregistered when the last task holding
/// `ctx` ends or is dropped.
pub(super) fn drive<S: Session>(conn: Conn<S>, ctx: Arc<ConnCtx>) -> ConnFuture {
    Box::pin(async move {
        match run(conn, &ctx).await {
            Exit::Ended(result) => finish(result, &ctx),
            Exit::Move(conn, to) => move_to(conn, ctx, to),
        }
    })
}

fn move_to<S: Session>(conn: Conn<S>, ctx: Arc<ConnCtx>, to: usize) {
    let Some(pool) = ctx.config.workers.clone() else {
        return finish(Ok(()), &ctx);
    };
    match conn.detach() {
        Ok(detached) => pool.spawn_on(to, async move {
            match detached.attach() {
                Ok(conn) => drive(conn, ctx).await,
                Err(err) => finish(Err(err), &ctx),
            }
        }),
        Err(err) => finish(Err(err), &ctx),
    }
}

/// Makes room for the next read: doubling, as `reserve` does, but never
/// past `wanted` (the bytes the request at the front needs) when that is
/// known and larger than a read, so a large bulk ends in a buffer of about
/// its size. Data still arrives before the room for it is taken.
fn grow_input(input: &mut BytesMut, wanted: Option<usize>) {
    let len = input.len();
    match wanted {
        Some(wanted) if wanted > len + READ_CHUNK => {
            let doubled = (input.capacity() * 2).max(len + READ_CHUNK);
            let target = doubled.min(wanted);
            if target > input.capacity() {
                let mut grown = BytesMut::with_capacity(target);
                grown.extend_from_slice(input);
                *input = grown;
            }
        }
        _ => input.reserve(READ_CHUNK),
    }
}

/// The connection is over: logged when it failed (dropping its
/// [`ConnCtx`] unregisters it).
pub(super) fn finish(result: io::Result<()>, ctx: &ConnCtx) {
    if let Err(err) = result {
        tracing::debug!(protocol = ctx.failure.protocol, client = ctx.client.id, %err, "connection ended with an error");
    }
}

/// Where the pool wants this connection, if it is elsewhere: called
/// between requests (no reply unsent, no wait under way).
fn wanted_elsewhere(stream: &Connection, ctx: &ConnCtx) -> Option<usize> {
    let pool = ctx.config.workers.as_ref()?;
    if stream.is_tls() {
        return None;
    }
    pool.move_target(workers::current()?)
}

async fn run<S: Session>(mut conn: Conn<S>, ctx: &ConnCtx) -> Exit<S> {
    let config = &ctx.config;
    let client = &ctx.client;
    let failure = &ctx.failure;
    let idle = &config.idle_timeout;
    let signal = client.signal();
    let bound = config.request_timeout;
    let stream = &mut conn.stream;
    let st = &mut conn.state;
    // True while the session yielded with requests still in `input`.
    let mut pending = false;
    let result = 'connection: loop {
        if !pending {
            // Between requests: the only point a connection may move.
            if let Some(to) = wanted_elsewhere(stream, ctx) {
                return Exit::Move(conn, to);
            }
            if st.input.capacity() - st.input.len() < READ_CHUNK / 4 {
                grow_input(&mut st.input, st.session.input_wanted());
            }
            let deadline = st.clock.deadline(bound);
            let wakeup = st.session.wakeup();
            let read = read_some(
                stream,
                &mut st.input,
                idle,
                st.last_activity,
                deadline,
                signal,
                wakeup.as_deref(),
            );
            match read.await {
                Ok(n) => st.read_total += n as u64,
                Err(Ok(ReadEnd::Closed | ReadEnd::Shutdown)) => break Ok(()),
                Err(Ok(ReadEnd::Idle)) => {
                    tracing::debug!("closing an idle connection");
                    break Ok(());
                }
                Err(Ok(ReadEnd::RequestTimeout)) => {
                    tracing::debug!(
                        ?bound,
                        "closing a connection whose request did not arrive in time"
                    );
                    break Ok(());
                }
                Err(Err(err)) => break Err(err),
            }
        }
        let before = st.input.len();
        client
            .buffers
            .note_input(st.input.len(), st.input.capacity());
        let processed = panic_guard::contain(|| st.session.process(&mut st.input, &mut st.output));
        let flow = match processed {
            Ok(flow) => flow,
            Err(panic) => {
                tracing::error!(
                    protocol = failure.protocol,
                    client = failure.client,
                    %panic,
                    input = %panic_guard::input_excerpt(&st.input),
                    "a request made the session panic; closing its connection"
                );
                // Replies produced by this call may wait for durability
                // (a hold not yet asked for): none of them is sent.
                st.output.clear();
                st.output.extend_from_slice(failure.reply);
                st.written_total += st.output.len() as u64;
                let _ = send(stream, &st.output, bound).await;
                break Ok(());
            }
        };
        if st.session.wants_console() {
            st.session.give_console(console(stream));
        }
        let left_worker = workers::take_left_worker();
        workers::note_served(before - st.input.len());
        let now = Instant::now();
        workers::end_stale_round(now);
        st.last_activity = now;
        st.clock
            .after_process(before, st.input.len(), st.session.mid_request(), now);
        client.note_activity(now);
        client
            .buffers
            .note_input(st.input.len(), st.input.capacity());
        client
            .buffers
            .note_output(st.output.len(), st.output.capacity());
        if let Some(hold) = st.session.hold() {
            match wait_for(hold, stream, &mut st.output, &mut st.written_total, bound).await {
                Ok(true) => {}
                Ok(false) => break Ok(()),
                Err(err) => break Err(err),
            }
        }
        if !st.output.is_empty() {
            let batch = st.session.batch_len();
            // After a blocking section this thread may not end rounds.
            let hold = match left_worker {
                true => None,
                false => workers::with_round(|round| SendPolicy::hold(round, batch)).flatten(),
            };
            if let Some(hold) = hold {
                hold.await;
            }
            st.written_total += st.output.len() as u64;
            // A client closed from outside (a subscriber over its output
            // limit) stops waiting for its reader at once; what the socket
            // takes without waiting is still sent (the reply to the
            // command that closed it, say), as the send is polled first.
            let sent = tokio::select! {
                biased;
                sent = send(stream, &st.output, bound) => sent,
                () = client.closed() => break Ok(()),
            };
            if let Err(err) = sent {
                break Err(err);
            }
            st.output.clear();
            if st.output.capacity() > KEEP_OUTPUT_CAPACITY {
                st.output = BytesMut::with_capacity(READ_CHUNK);
            }
            client.buffers.note_output(0, st.output.capacity());
        }
        if left_worker {
            // The task may still run on the thread that left the worker:
            // a yield puts it back on the worker's queue before it holds
            // anything more (off the worker, tokio wakes it at once).
            tokio::task::yield_now().await;
        }
        if flow == Flow::Close || st.input.len() > config.max_input || signal.stops_reading() {
            break Ok(());
        }
        pending = flow == Flow::Yield;
        if let Some(wait) = st.session.fetch() {
            tokio::pin!(wait);
            // Input keeps being read meanwhile (up to the bound), so a
            // client that goes away while blocked (BLPOP) is noticed: its
            // wait is dropped and it takes nothing that is pushed later.
            loop {
                tokio::select! {
                    () = signal.reading_stopped() => break 'connection Ok(()),
                    () = &mut wait => break,
                    n = stream.read_buf(&mut st.input), if st.input.len() < config.max_input => match n {
                        Ok(0) => break 'connection Ok(()),
                        Ok(n) => st.read_total += n as u64,
                        Err(err) => break 'connection Err(err),
                    },
                }
            }
            pending = true;
        }
        if st.read_total + st.written_total >= TRAFFIC_BATCH {
            ctx.clients.count_traffic(st.read_total, st.written_total);
            (st.read_total, st.written_total) = (0, 0);
        }
    };
    ctx.clients.count_traffic(st.read_total, st.written_total);
    // TLS sends close_notify here; a client that takes nothing cannot hold it.
    let _ = tokio::time::timeout(bound, stream.shutdown()).await;
    Exit::Ended(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_doubles_but_stops_at_the_bulk_it_waits_for() {
        let mut input = BytesMut::with_capacity(READ_CHUNK);
        let wanted = 300_000;
        while input.len() < wanted {
            if input.capacity() - input.len() < READ_CHUNK / 4 {
                grow_input(&mut input, Some(wanted));
            }
            let room = (input.capacity() - input.len()).min(wanted - input.len());
            input.extend_from_slice(&vec![b'v'; room]);
        }
        assert_eq!(input.capacity(), wanted, "no more than the bulk needs");
        // Without a known size it doubles, as reserve does.
        let mut plain = BytesMut::with_capacity(READ_CHUNK);
        plain.extend_from_slice(&[0; READ_CHUNK]);
        grow_input(&mut plain, None);
        assert!(plain.capacity() >= 2 * READ_CHUNK);
        // A small want leaves the usual growth.
        let small = plain.len() + 10;
        grow_input(&mut plain, Some(small));
        assert!(plain.capacity() >= plain.len() + READ_CHUNK);
    }
}
