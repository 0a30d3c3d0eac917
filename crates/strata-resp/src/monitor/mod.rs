//! `MONITOR`: the connections that receive a line for every command run
//! ([`Monitors`]), what Redis 7.2 shows of a command and what a monitor
//! may still run.
//!
//! Cost when nobody monitors: one relaxed load of the monitor count per
//! command ([`Monitors::active`]); nothing else is read, timed or built.
//!
//! Bound: a line goes to the monitor's [`Mailbox`], the one its pub/sub
//! messages use, under the same `client-output-buffer-limit` (the
//! `pubsub` class; Redis counts monitors as `normal` clients, whose
//! default is no limit at all). A monitor whose waiting lines pass the
//! hard limit, or stay over the soft one for its seconds, is disconnected
//! and counted in `client_output_buffer_limit_disconnections`; a line
//! longer than the hard limit by itself is never built.
//!
//! Order: lines are built and delivered under one lock, their time read
//! inside it, so every monitor sees the same order and times never go
//! back. A command is fed once it ran (as Redis 7 feeds after `call()`),
//! so lines of commands that ran at the same time on different
//! connections follow the order they finished in.

pub(crate) mod line;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;

pub use line::Source;

use crate::args::Args;
use crate::pubsub::{Hub, Mailbox};
use crate::redact::redacted;
use crate::spec::CommandSpec;

/// The connections in `MONITOR` mode.
#[derive(Debug, Default)]
pub struct Monitors {
    /// How many there are: read on every command, so kept apart from the
    /// list (which only a command that is fed locks).
    count: AtomicUsize,
    /// Their mailboxes, in the order they started monitoring.
    watchers: Mutex<Vec<Arc<Mailbox>>>,
}

impl Monitors {
    /// Whether any connection monitors: one relaxed load, the only cost
    /// of monitoring to a command when nobody does.
    #[inline]
    pub fn active(&self) -> bool {
        self.count.load(Ordering::Relaxed) != 0
    }

    /// How many connections monitor.
    pub fn len(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// True when nobody monitors.
    pub fn is_empty(&self) -> bool {
        !self.active()
    }

    /// `MONITOR`: lines go to `mailbox` from now on.
    pub(crate) fn add(&self, mailbox: &Arc<Mailbox>) {
        let mut watchers = self.watchers.lock();
        watchers.push(mailbox.clone());
        self.count.store(watchers.len(), Ordering::Relaxed);
    }

    /// The connection `id` stops monitoring (`RESET`, closed): no line
    /// reaches its mailbox once this returns.
    pub(crate) fn remove(&self, id: u64) {
        let mut watchers = self.watchers.lock();
        watchers.retain(|mailbox| mailbox.id() != id);
        self.count.store(watchers.len(), Ordering::Relaxed);
    }

    /// Feeds a command that ran (Redis's `call()`) unless Redis hides it:
    /// commands flagged `admin` (`CONFIG`, `CLIENT LIST`, `DEBUG`,
    /// `MONITOR`, ...) or `skip_monitor` (`EVAL` and `FCALL`, fed before
    /// they run by [`feed`](Self::feed)), judged by the subcommand's row
    /// for a container.
    pub fn command_ran(
        &self,
        hub: &Hub,
        source: Source,
        spec: &'static CommandSpec,
        args: &Args<'_>,
    ) {
        let Some(row) = spec.effective(args) else {
            // An unknown subcommand: Redis refuses it before `call()`.
            return;
        };
        if row
            .flags
            .iter()
            .any(|flag| matches!(*flag, "admin" | "skip_monitor"))
        {
            return;
        }
        self.feed(hub, source, args);
    }

    /// Delivers the line of `args` to every monitor, with the secrets
    /// Redis hides redacted. Monitors over the output limit are
    /// disconnected and forgotten.
    pub fn feed(&self, hub: &Hub, source: Source, args: &Args<'_>) {
        let hidden = redacted(args);
        let len = line::body_len(args, hidden);
        let (hard, _, _) = hub.limit.get();
        let fits = hard == 0 || u64::try_from(len).is_ok_and(|len| len <= hard);
        let body = if fits {
            line::body(args, hidden, len)
        } else {
            Vec::new()
        };
        let mut watchers = self.watchers.lock();
        if watchers.is_empty() {
            return;
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let prefix = line::prefix(now, source);
        let size = prefix.len() + len;
        let parts: [&[u8]; 2] = [prefix.as_bytes(), &body];
        watchers.retain(|mailbox| {
            let delivered = mailbox.deliver_raw(size, &parts, &hub.limit);
            if !delivered && mailbox.just_closed() {
                hub.disconnections.fetch_add(1, Ordering::Relaxed);
            }
            delivered
        });
        self.count.store(watchers.len(), Ordering::Relaxed);
    }
}

/// Whether a monitoring connection may run `spec`: Redis 7.2 marks a
/// monitor as a replica, which may not run commands flagged `readonly`,
/// `write` or `may_replicate` ("Replica can't interact with the
/// keyspace"); everything else runs.
pub fn allowed_while_monitoring(spec: &'static CommandSpec, args: &Args<'_>) -> bool {
    let row = spec.effective(args).unwrap_or(spec);
    !row.flags
        .iter()
        .any(|flag| matches!(*flag, "readonly" | "write" | "may_replicate"))
}

#[cfg(test)]
mod tests;
