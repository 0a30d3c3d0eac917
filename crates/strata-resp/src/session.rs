//! [`RespSession`]: one connection's request loop. Parses every complete
//! request in the input, applies the checks Redis applies before running a
//! command (known name, arity, authentication, ACL permissions, `MULTI`
//! queuing) and runs it.
//!
//! Invariants: a protocol error is answered and closes the connection; the
//! input left buffered never exceeds the query buffer limit (the connection
//! is closed instead); nothing here panics on any input.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use bytes::{Buf, BytesMut};
use strata_kv::fetch::{FetchWait, Retry, Verdict};
use strata_service::durability::one_line;
use strata_service::{Flow, HeldReplies, Hold, Session, OUTPUT_SOFT_LIMIT};

use crate::args::Args;
use crate::codec::{Limits, Parsed, RequestParser};
use crate::command::{self, Command};
use crate::connection::Connection;
use crate::permissions::is_authenticated;
use crate::prefetch;
use crate::reply::RespError;
use crate::scripting::Gate;
use crate::shared::Shared;
use crate::stats::{Tally, Totals};
use crate::writer::ReplyWriter;

mod pause_gate;
mod request;
mod waits;

use pause_gate::pause_gate;
use request::{answer_served, run};
use waits::{wait_blocked, wait_for_script};

/// The per-connection state machine of the RESP front end.
#[derive(Debug)]
pub struct RespSession {
    shared: Arc<Shared>,
    parser: RequestParser,
    conn: Connection,
    /// Replies of writes that wait for their log record (`sync` mode).
    held: HeldReplies,
    /// Values of the request at the front of the input that are read from
    /// the SSD tier before it runs again (see `strata_kv::fetch`).
    retry: Retry,
    /// Requests the last `process` call took from the input.
    batch_len: usize,
    /// The end of another connection's script, which the request at the
    /// front of the input waits for.
    script_wait: Option<Duration>,
    /// The end of a `CLIENT PAUSE`, which that request waits for.
    pause_wait: Option<Duration>,
}

impl RespSession {
    pub(crate) fn new(shared: Arc<Shared>, conn: Connection) -> Self {
        Self {
            shared,
            parser: RequestParser::new(),
            conn,
            held: HeldReplies::default(),
            retry: Retry::default(),
            script_wait: None,
            pause_wait: None,
            batch_len: 0,
        }
    }
}

impl Drop for RespSession {
    fn drop(&mut self) {
        // Handed to its blocked pop, never answered: back to its list.
        if let Some(served) = self.conn.block.take_served() {
            crate::commands::list::give_back::give_back(&self.shared, served);
        }
        self.conn.pubsub.clear(&self.shared.pubsub);
        if self.conn.monitoring {
            self.shared.monitors.remove(self.conn.client.id);
        }
        self.shared.peers.lock().remove(&self.conn.client.id);
        crate::tracking::disable(&self.shared, &mut self.conn);
    }
}

impl Session for RespSession {
    fn process(&mut self, input: &mut BytesMut, output: &mut BytesMut) -> Flow {
        // Nothing journaled before this call is ours to wait for.
        strata_kv::take_written_lsn();
        // The requests read together see one instant (see `strata_kv::clock`).
        let _now = strata_kv::hold_now();
        let Self {
            shared,
            parser,
            conn,
            held,
            retry,
            script_wait,
            pause_wait,
            batch_len,
        } = self;
        *batch_len = 0;
        let shared: &Shared = shared;
        // Counted in until this batch ends: a script about to hold every
        // shard waits for it, and it runs nothing more once one waits
        // (`script_gate`), so this thread never waits on a shard lock.
        let entry = shared.keyspace.enter();
        // Messages published (and monitor lines fed) to this connection
        // go before later replies.
        conn.pubsub.mailbox().take_into(output);
        let mut out = ReplyWriter::counting(output, conn.version, &shared.errorstats);
        let first_reply = out.position();
        let mut tally = Tally::default();
        let mut flow = Flow::Continue;
        // The input is warmed (see `prefetch`) down to this many bytes left.
        let mut warm_until = usize::MAX;
        loop {
            if evicted(shared, conn) {
                flow = Flow::Close;
                break;
            }
            let limits = Limits {
                max_bulk: shared.max_bulk(),
                authenticated: is_authenticated(shared, conn),
            };
            match parser.parse(input, limits) {
                Ok(Parsed::Incomplete) => break,
                Ok(Parsed::Nothing { consumed }) => input.advance(consumed),
                Ok(Parsed::Request { consumed }) => {
                    *batch_len += 1;
                    // The requests behind this one are warmed while it runs
                    // (a lone request has nothing to overlap its miss with).
                    let rest = input.len() - consumed;
                    if rest > 0 && rest <= warm_until {
                        warm_until = rest - prefetch::warm(&shared.keyspace, &input[consumed..]);
                    }
                    // A push handed this blocked pop its element: it is
                    // answered, not run again (before the gates: it was
                    // served when the push ran).
                    if let Some(served) = conn.block.take_served() {
                        let reply_start = out.position();
                        answer_served(shared, conn, parser.args(input), &served, &mut out);
                        tally.commands += 1;
                        tally.writes += 1;
                        held.note(reply_start, served.after_lsn);
                        conn.last_write_lsn = conn.last_write_lsn.max(served.after_lsn);
                        conn.block.finish();
                        input.advance(consumed);
                        continue;
                    }
                    if let Some(left) = pause_gate(shared, conn, parser.args(input)) {
                        *pause_wait = Some(left);
                        break;
                    }
                    match script_gate(shared, conn, parser.args(input), entry.is_open()) {
                        Gate::Run => {}
                        Gate::Busy => {
                            out.error(&RespError::Busy.to_string());
                            tally.errors += 1;
                            input.advance(consumed);
                            continue;
                        }
                        Gate::Wait(left) => {
                            *script_wait = Some(left);
                            break;
                        }
                    }
                    // A debugging `EVAL` talks over the socket itself:
                    // the replies before it go first (after their holds).
                    if conn.debug.mode().is_some()
                        && out.position() > first_reply
                        && is_eval(parser.args(input))
                    {
                        flow = Flow::Yield;
                        break;
                    }
                    let reply_start = out.position();
                    let before = tally;
                    let attempt = retry.begin();
                    run(shared, conn, parser.args(input), &mut out, &mut tally);
                    conn.peer.set_argv_mem(0);
                    conn.note_memory();
                    if conn.block.wait.is_some() {
                        // A blocking command found nothing: it runs again
                        // when its keys are pushed to or it times out.
                        let _ = retry.finish(attempt);
                        out.truncate(reply_start);
                        tally = before;
                        break;
                    }
                    conn.block.finish();
                    match retry.finish(attempt) {
                        Verdict::Done => {}
                        Verdict::Again => {
                            // Not consumed: it runs again once its values
                            // are read, and counts then.
                            out.truncate(reply_start);
                            tally = before;
                            break;
                        }
                        Verdict::Failed(cause) => {
                            out.truncate(reply_start);
                            out.error(&format!("ERR {}", one_line(&cause)));
                            tally.errors += 1;
                        }
                    }
                    if conn.reply.after_command() {
                        out.truncate(reply_start);
                    }
                    let lsn = strata_kv::take_written_lsn();
                    held.note(reply_start, lsn);
                    conn.last_write_lsn = conn.last_write_lsn.max(lsn);
                    input.advance(consumed);
                    if conn.close {
                        flow = Flow::Close;
                        break;
                    }
                    // `SCRIPT DEBUG` armed it: the driver gives the console
                    // before the next request runs.
                    if conn.debug.wants_console() {
                        flow = if input.is_empty() {
                            Flow::Continue
                        } else {
                            Flow::Yield
                        };
                        break;
                    }
                    // Let the driver flush large outputs before taking more requests.
                    if out.position() >= OUTPUT_SOFT_LIMIT && !input.is_empty() {
                        flow = Flow::Yield;
                        break;
                    }
                }
                Err(err) => {
                    out.error(&RespError::Protocol(err).to_string());
                    tally.errors += 1;
                    flow = Flow::Close;
                    break;
                }
            }
        }
        if input.len() > shared.query_limit() {
            flow = Flow::Close;
        }
        conn.pubsub.mailbox().take_into(output);
        shared.stats.record(tally);
        shared.stats.maybe_sample(|| Totals {
            commands: shared.stats.commands(),
            net_in: shared.clients.bytes_read(),
            net_out: shared.clients.bytes_written(),
        });
        flow
    }

    fn hold(&mut self) -> Option<Hold> {
        let durability = self.shared.info.durability.as_deref();
        self.held.take_hold(durability, durability_failure)
    }

    fn fetch(&mut self) -> Option<FetchWait> {
        let shared = &self.shared;
        self.retry.wait().or_else(|| {
            if let Some(wait) = self.conn.block.wait.take() {
                return Some(wait_blocked(shared, wait, self.conn.client.id));
            }
            if let Some(left) = self.pause_wait.take() {
                return Some(Box::pin(shared.pause.wait(left)));
            }
            self.script_wait
                .take()
                .map(|left| wait_for_script(shared, left))
        })
    }

    fn wants_console(&self) -> bool {
        self.conn.debug.wants_console()
    }

    fn give_console(&mut self, console: Option<strata_service::Console>) {
        self.conn.debug.give_console(console);
    }

    fn batch_len(&self) -> usize {
        self.batch_len
    }

    fn input_wanted(&self) -> Option<usize> {
        self.parser.input_wanted()
    }

    /// Subscribers and monitors are woken by what arrives in their
    /// mailbox (and so are never idle).
    fn wakeup(&self) -> Option<Arc<Notify>> {
        // So are tracking clients, by their invalidations.
        (self.conn.pubsub.active() || self.conn.monitoring || self.conn.tracking.is_some())
            .then(|| self.conn.pubsub.mailbox().notify().clone())
    }
}

/// `EVAL` or `EVAL_RO` (what a debugging session runs).
fn is_eval(args: Args<'_>) -> bool {
    let name = args.get(0);
    name.eq_ignore_ascii_case(b"eval") || name.eq_ignore_ascii_case(b"eval_ro")
}

/// The reply sent instead of held replies whose log record failed.
fn durability_failure(cause: &str) -> Vec<u8> {
    format!("-ERR write not durable: {}\r\n", one_line(cause)).into_bytes()
}

/// Client eviction's check before each request and before input waiting
/// for more is left (Redis's `evictClients` before a command and before it
/// sleeps): true when this client is closing, evicted or killed. With
/// `maxmemory-clients` off, one relaxed load.
fn evicted(shared: &Shared, conn: &Connection) -> bool {
    if !shared.client_eviction.is_on() {
        return false;
    }
    shared.evict_clients();
    conn.client.is_closing()
}

/// Whether the request may run while another connection's script runs
/// (or is about to: `open` is false once one closed the keyspace's entry
/// gate, see `strata_kv::Keyspace::exclusive_drained`): commands flagged
/// `allow_busy` (`SCRIPT KILL`, `AUTH`, `QUIT`, ...) do, as they take no
/// shard lock, except `WATCH`, which does, and `SHUTDOWN` but for
/// `SHUTDOWN NOSAVE` past the threshold.
/// The command is looked up only while a script runs or the gate is
/// closed (the common case asks the two gates alone).
fn script_gate(shared: &Shared, conn: &Connection, args: Args<'_>, open: bool) -> Gate {
    let gate = shared.scripts.gate(conn.client.id);
    if matches!(gate, Gate::Run) && open {
        return gate;
    }
    let Some(spec) = command::lookup(args.get(0)) else {
        return Gate::Run;
    };
    let gate = match gate {
        // Closed for a script not marked running yet, or for `DEBUG`. A
        // command that holds the keyspace itself queues for it off its
        // worker (`request.rs`), as it would behind any other holder;
        // waking every such waiter at each opening would cost each script
        // a pass over all of them.
        Gate::Run if request::holds_keyspace(shared, conn, spec.command) => return Gate::Run,
        Gate::Run => Gate::Wait(Duration::from_millis(
            shared.scripts.busy_threshold_ms().max(1),
        )),
        gate => gate,
    };
    let effective = spec.effective(&args).unwrap_or(spec);
    let allowed = spec.flags.contains(&"allow_busy") || effective.flags.contains(&"allow_busy");
    let allowed = match spec.command {
        Command::Watch => false,
        // As in Redis: only `SHUTDOWN NOSAVE` gets past a busy script (and
        // exits at once); otherwise it waits for the script like any
        // command, or is answered BUSY.
        Command::Shutdown => {
            matches!(gate, Gate::Busy)
                && args.iter_from(1).any(|a| a.eq_ignore_ascii_case(b"nosave"))
        }
        _ => allowed,
    };
    if allowed {
        return Gate::Run;
    }
    gate
}
