//! One client connection: turns buffered request bytes into replies.
//!
//! The loop takes complete requests off the front of the input: a command
//! line, and for storage commands the data block after it. A storage command
//! waits, unconsumed, until its whole block has arrived, which the driver's
//! input limit (largest item plus slack) always allows. A block that can
//! never be stored (larger than the item limit, or after a refused `ms`) is
//! not buffered: the session enters a "swallow" state that discards bytes
//! as they arrive, so a client announcing a gigabyte costs no memory.
//!
//! With an auth file, a connection must log in first ([`crate::login`]).
//! A request in the binary protocol is answered with a binary error and
//! the connection closes ([`crate::binary`]).

use std::sync::Arc;

use bytes::{Buf, BytesMut};
use strata_kv::fetch::{FetchWait, Retry, Verdict};
use strata_metrics::Stopwatch;
use strata_service::durability::one_line;
use strata_service::{ClientInfo, Flow, HeldReplies, Hold, Session, OUTPUT_SOFT_LIMIT};

use crate::binary;
use crate::codec::{self, Block, Frame};
use crate::command::Command;
use crate::command_stats;
use crate::commands;
use crate::login::{self, Outcome};
use crate::prefetch;
use crate::reply::{self, Error};
use crate::shared::Shared;

/// Per-connection state of the memcached protocol.
#[derive(Debug)]
pub struct MemcacheSession {
    shared: Arc<Shared>,
    conn: Conn,
    /// Replies of writes that wait for their log record (`sync` mode).
    held: HeldReplies,
    /// Values of the request at the front of the input that are read from
    /// the SSD tier before it runs again (see `strata_kv::fetch`).
    retry: Retry,
    /// Requests the last `process` call took from the input.
    batch_len: usize,
    /// The last `process` stopped at the keyspace's closed entry gate (a
    /// RESP script holds every shard): wait for it to open.
    gate_closed: bool,
}

impl MemcacheSession {
    pub(crate) fn new(shared: Arc<Shared>, client: Arc<ClientInfo>, authenticated: bool) -> Self {
        Self {
            shared,
            conn: Conn {
                client,
                swallow: 0,
                authenticated,
            },
            held: HeldReplies::default(),
            retry: Retry::default(),
            batch_len: 0,
            gate_closed: false,
        }
    }
}

/// What a connection's requests read and change besides the keyspace.
#[derive(Debug)]
struct Conn {
    client: Arc<ClientInfo>,
    /// Bytes still to discard before the next command line.
    swallow: usize,
    /// Logged in, or no auth file is configured.
    authenticated: bool,
}

impl Conn {
    /// Handles the request at the front of `input`. Returns the bytes
    /// consumed (0 when it is incomplete) and what to do next.
    fn step(&mut self, shared: &Shared, input: &[u8], output: &mut BytesMut) -> (usize, Step) {
        if binary::is_binary(input) {
            return match binary::refuse(input, output) {
                true => (input.len(), Step::Close),
                false => (0, Step::Wait),
            };
        }
        if !self.authenticated {
            return match login::step(input, shared, output) {
                Outcome::Wait => (0, Step::Wait),
                Outcome::Handled { consumed, swallow } => {
                    self.swallow = swallow;
                    (consumed, Step::Next)
                }
                Outcome::LoggedIn { consumed } => {
                    self.authenticated = true;
                    (consumed, Step::Next)
                }
                Outcome::Close => (input.len(), Step::Close),
            };
        }
        let (line, line_len) = match codec::next_line(input, shared.max_request()) {
            Frame::Incomplete => return (0, Step::Wait),
            Frame::TooLong => {
                output.extend_from_slice(Error::LineTooLong.wire());
                return (input.len(), Step::Close);
            }
            Frame::Line { text, consumed } => (text, consumed),
        };
        if codec::looks_like_http(line) {
            // memcached closes on an HTTP request line, answering nothing.
            return (input.len(), Step::Close);
        }
        let cmd = match Command::parse(line) {
            Ok(cmd) => cmd,
            Err(refused) => {
                reply::error(output, refused.error, refused.noreply);
                self.swallow = refused.swallow;
                return (line_len, Step::Next);
            }
        };
        let Some(len) = cmd.data_len() else {
            self.client.touch(cmd.name());
            let flow = run(shared, cmd, &[], output);
            return (line_len, flow.into());
        };
        if len > shared.keyspace.max_item_size() {
            // Never buffered: answered now, its bytes discarded as they come.
            self.client.touch(cmd.name());
            reject(shared, &cmd);
            commands::refuse_too_large(&cmd, shared, output);
            self.swallow = len.saturating_add(2);
            return (line_len, Step::Next);
        }
        match codec::data_block(&input[line_len..], len) {
            Block::Incomplete => (0, Step::Wait),
            Block::Complete { data, terminated } => {
                self.client.touch(cmd.name());
                let consumed = line_len + len + 2;
                if !terminated {
                    reject(shared, &cmd);
                    commands::bad_data_chunk(&cmd, output);
                    return (consumed, Step::Next);
                }
                let flow = run(shared, cmd, data, output);
                (consumed, flow.into())
            }
        }
    }
}

/// Runs `cmd`, counting the call, its latency and whether it failed. A call
/// whose values are being read from the SSD tier runs again and counts then.
fn run(shared: &Shared, cmd: Command<'_>, data: &[u8], output: &mut BytesMut) -> Flow {
    let id = command_stats::id_of(cmd.name());
    let reply_start = output.len();
    let started = Stopwatch::start();
    let flow = commands::execute(cmd, data, shared, output);
    let nanos = started.elapsed_nanos();
    let deferred = shared.keyspace.ssd().is_some() && strata_kv::fetch::deferred();
    if let Some(id) = id.filter(|_| !deferred) {
        let failed = command_stats::is_error(&output[reply_start..]);
        shared.commands.record(id, nanos, failed);
    }
    flow
}

/// Counts `cmd` as refused before running.
fn reject(shared: &Shared, cmd: &Command<'_>) {
    if let Some(id) = command_stats::id_of(cmd.name()) {
        shared.commands.reject(id);
    }
}

/// What the processing loop does after one step.
enum Step {
    /// Handle the next request.
    Next,
    /// The front request is incomplete: wait for more input.
    Wait,
    /// Close the connection after flushing the replies.
    Close,
}

impl From<Flow> for Step {
    fn from(flow: Flow) -> Self {
        match flow {
            Flow::Continue | Flow::Yield => Step::Next,
            Flow::Close => Step::Close,
        }
    }
}

impl Session for MemcacheSession {
    fn process(&mut self, input: &mut BytesMut, output: &mut BytesMut) -> Flow {
        // Nothing journaled before this call is ours to wait for.
        strata_kv::take_written_lsn();
        // The requests read together see one instant (see `strata_kv::clock`).
        let _now = strata_kv::hold_now();
        let Self {
            shared,
            conn,
            held,
            retry,
            batch_len,
            gate_closed,
        } = self;
        let shared: &Shared = shared;
        let mut pos = 0;
        *batch_len = 0;
        // Counted in until this batch ends; past a closed gate nothing more
        // runs, so this thread never waits on a shard lock a script holds
        // (see `strata_kv::Keyspace::exclusive_drained`).
        let entry = shared.keyspace.enter();
        // The input is warmed (see `prefetch`) up to this offset.
        let mut warm_until = 0;
        let flow = loop {
            if conn.swallow > 0 {
                let n = conn.swallow.min(input.len() - pos);
                pos += n;
                conn.swallow -= n;
                if conn.swallow > 0 {
                    break Flow::Continue;
                }
            }
            if pos == input.len() {
                break Flow::Continue;
            }
            if !entry.is_open() {
                *gate_closed = true;
                break Flow::Continue;
            }
            if pos >= warm_until && conn.authenticated {
                warm_until = pos + prefetch::warm(&shared.keyspace, &input[pos..]);
            }
            let reply_start = output.len();
            let attempt = retry.begin();
            let (consumed, step) = conn.step(shared, &input[pos..], output);
            match retry.finish(attempt) {
                Verdict::Done => {}
                Verdict::Again => {
                    // Not consumed: it runs again once its values are read.
                    output.truncate(reply_start);
                    break Flow::Continue;
                }
                Verdict::Failed(cause) => {
                    output.truncate(reply_start);
                    let line = format!("SERVER_ERROR {}\r\n", one_line(&cause));
                    output.extend_from_slice(line.as_bytes());
                }
            }
            held.note(reply_start, strata_kv::take_written_lsn());
            pos += consumed;
            *batch_len += 1;
            match step {
                // Let the driver flush large outputs before taking more requests.
                Step::Next if output.len() >= OUTPUT_SOFT_LIMIT && pos < input.len() => {
                    break Flow::Yield
                }
                Step::Next => {}
                Step::Wait => break Flow::Continue,
                Step::Close => break Flow::Close,
            }
        };
        input.advance(pos);
        flow
    }

    fn hold(&mut self) -> Option<Hold> {
        let durability = self.shared.info.durability.as_deref();
        self.held.take_hold(durability, durability_failure)
    }

    fn fetch(&mut self) -> Option<FetchWait> {
        if std::mem::take(&mut self.gate_closed) {
            return Some(wait_for_gate(&self.shared));
        }
        self.retry.wait()
    }

    fn mid_request(&self) -> bool {
        self.conn.swallow > 0
    }

    fn batch_len(&self) -> usize {
        self.batch_len
    }
}

/// Resolves when the keyspace's entry gate is open.
fn wait_for_gate(shared: &Shared) -> FetchWait {
    Box::pin(shared.keyspace.gate_open())
}

/// The reply sent instead of held replies whose log record failed.
fn durability_failure(cause: &str) -> Vec<u8> {
    format!("SERVER_ERROR write not durable: {}\r\n", one_line(cause)).into_bytes()
}
