//! What one connection sent during one server run, and the checks of a
//! recovered keyspace against it.
//!
//! Each connection owns its keys, so a key's writes form one sequence in the
//! order they were sent, and replies arrive in that order: the acknowledged
//! writes are a prefix of the sent ones, the rest were in flight when the
//! server died. A recovered key must hold the state after some prefix of its
//! sequence that includes every write which had to survive. And because the
//! server runs one connection's commands in order and recovers a prefix of
//! one log, a single prefix of the connection's whole sequence must explain
//! all its keys at once.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::model::{KeyState, Op, Protocol};
use super::resp::Reply;

/// The state of a key that does not exist.
static ABSENT: KeyState = KeyState {
    value: None,
    expiring: false,
};

/// Keys listed in one failure message at most.
const SHOWN_KEYS: usize = 12;

/// Which writes must survive a restart.
#[derive(Clone, Copy, Debug)]
pub enum Survival {
    /// Every acknowledged write (sync mode, or a clean shutdown).
    Acknowledged,
    /// Every write acknowledged at or before this instant (async mode).
    AcknowledgedBy(Instant),
}

/// A command written to the connection.
pub struct SentOp {
    pub op: Op,
    pub sent_at: Instant,
    /// When its reply was read; `None` while in flight.
    pub acked_at: Option<Instant>,
}

/// One connection's writes during one server run.
pub struct ConnectionLog {
    name: String,
    protocol: Protocol,
    /// Times in messages are relative to this.
    origin: Instant,
    start: BTreeMap<String, KeyState>,
    current: BTreeMap<String, KeyState>,
    ops: Vec<SentOp>,
    /// For every key written: (index into `ops`, the key's state after it).
    steps: BTreeMap<String, Vec<(usize, KeyState)>>,
}

impl ConnectionLog {
    /// A log for connection `name`, speaking `protocol`, whose keys hold
    /// `start` (absent keys may be left out).
    pub fn new(
        name: String,
        protocol: Protocol,
        origin: Instant,
        start: BTreeMap<String, KeyState>,
    ) -> ConnectionLog {
        ConnectionLog {
            name,
            protocol,
            origin,
            current: start.clone(),
            start,
            ops: Vec::new(),
            steps: BTreeMap::new(),
        }
    }

    /// The state of `key` after every command sent so far.
    pub fn state(&self, key: &str) -> KeyState {
        self.current.get(key).cloned().unwrap_or_default()
    }

    /// Records `op` as sent; returns its index and the reply it must get.
    pub fn sent(&mut self, op: Op, now: Instant) -> (usize, Reply) {
        let index = self.ops.len();
        let (changes, reply) = op.apply(&self.current, self.protocol);
        for (key, state) in changes {
            self.steps
                .entry(key.clone())
                .or_default()
                .push((index, state.clone()));
            self.current.insert(key, state);
        }
        self.ops.push(SentOp {
            op,
            sent_at: now,
            acked_at: None,
        });
        (index, reply)
    }

    /// Records the reply to op `index`.
    pub fn acked(&mut self, index: usize, now: Instant) {
        self.ops[index].acked_at = Some(now);
    }

    /// Every command sent.
    pub fn ops(&self) -> &[SentOp] {
        &self.ops
    }

    /// Every key this connection owns: those it started with and those it wrote.
    pub fn keys(&self) -> BTreeSet<String> {
        self.start
            .keys()
            .chain(self.steps.keys())
            .cloned()
            .collect()
    }

    /// The recovered states of this connection's keys, absent ones left out:
    /// what the next run starts from.
    pub fn next_start(&self, recovered: &BTreeMap<String, KeyState>) -> BTreeMap<String, KeyState> {
        self.keys()
            .into_iter()
            .filter_map(|key| recovered.get(&key).map(|state| (key, state.clone())))
            .filter(|(_, state)| state.exists())
            .collect()
    }

    /// The existing keys' states after every command sent.
    pub fn final_states(&self) -> BTreeMap<String, KeyState> {
        self.current
            .iter()
            .filter(|(_, state)| state.exists())
            .map(|(key, state)| (key.clone(), state.clone()))
            .collect()
    }

    /// Checks `recovered` (absent keys may be left out) against what had to
    /// survive; returns one message per problem.
    pub fn check(&self, recovered: &BTreeMap<String, KeyState>, survival: Survival) -> Vec<String> {
        let mut problems = Vec::new();
        for key in self.keys() {
            let got = recovered.get(&key).unwrap_or(&ABSENT);
            let states = self.states(&key);
            let required = self.required_steps(&key, survival);
            if !states[required..].contains(&got) {
                problems.push(self.explain_key(&key, got, required));
            }
        }
        if problems.is_empty() {
            problems.extend(self.check_one_prefix(recovered, survival));
        }
        problems
    }

    /// How long before `killed_at` the oldest acknowledged write missing from
    /// `recovered` was acknowledged (per key, the latest matching state is
    /// assumed), or `None` if none is missing.
    pub fn oldest_lost_ack(
        &self,
        recovered: &BTreeMap<String, KeyState>,
        killed_at: Instant,
    ) -> Option<Duration> {
        let mut oldest = None;
        for (key, steps) in &self.steps {
            let got = recovered.get(key).unwrap_or(&ABSENT);
            let Some(matched) = self.states(key).iter().rposition(|s| *s == got) else {
                continue;
            };
            let first_lost = steps[matched..]
                .iter()
                .find_map(|(index, _)| self.ops[*index].acked_at);
            if let Some(acked_at) = first_lost {
                let age = killed_at.saturating_duration_since(acked_at);
                oldest = oldest.max(Some(age));
            }
        }
        oldest
    }

    /// The states `key` went through: its start, then after each step.
    fn states(&self, key: &str) -> Vec<&KeyState> {
        let start = self.start.get(key).unwrap_or(&ABSENT);
        let steps = self.steps.get(key).into_iter().flatten();
        std::iter::once(start)
            .chain(steps.map(|(_, state)| state))
            .collect()
    }

    /// How many of `key`'s steps must be in its recovered state.
    fn required_steps(&self, key: &str, survival: Survival) -> usize {
        let steps = self.steps.get(key).map_or(&[][..], |s| &s[..]);
        steps
            .iter()
            .rposition(|(index, _)| self.must_survive(*index, survival))
            .map_or(0, |last| last + 1)
    }

    fn must_survive(&self, index: usize, survival: Survival) -> bool {
        match (self.ops[index].acked_at, survival) {
            (None, _) => false,
            (Some(_), Survival::Acknowledged) => true,
            (Some(acked_at), Survival::AcknowledgedBy(deadline)) => acked_at <= deadline,
        }
    }

    /// Finds a prefix of all the connection's commands that explains every
    /// recovered key at once.
    fn check_one_prefix(
        &self,
        recovered: &BTreeMap<String, KeyState>,
        survival: Survival,
    ) -> Option<String> {
        let n = self.ops.len();
        let required = (0..n)
            .rposition(|index| self.must_survive(index, survival))
            .map_or(0, |last| last + 1);
        // ruled_out[k] - ruled_out[k - 1]: how many keys rule prefix k out.
        let mut ruled_out = vec![0i64; n + 2];
        let mut per_key = Vec::new();
        for (key, steps) in &self.steps {
            let got = recovered.get(key).unwrap_or(&ABSENT);
            let mut matching = Vec::new();
            for (j, state) in self.states(key).into_iter().enumerate() {
                // State j holds after prefixes lo..=hi of the commands.
                let lo = if j == 0 { 0 } else { steps[j - 1].0 + 1 };
                let hi = steps.get(j).map_or(n, |(index, _)| *index);
                if state == got {
                    matching.push((lo, hi));
                } else {
                    ruled_out[lo] += 1;
                    ruled_out[hi + 1] -= 1;
                }
            }
            per_key.push((key, matching));
        }
        let mut ruling_keys = 0;
        for (prefix, change) in ruled_out[..=n].iter().enumerate() {
            ruling_keys += change;
            if prefix >= required && ruling_keys == 0 {
                return None;
            }
        }
        let mut message = format!(
            "{}: each key matches some prefix of the connection's {n} commands, but no single \
             prefix of at least {required} commands matches them all. Prefixes matching each key:",
            self.name
        );
        for (key, matching) in per_key.iter().take(SHOWN_KEYS) {
            let _ = write!(message, "\n  {key}: {}", ranges(matching));
        }
        let _ = write!(message, "\n{}", self.describe_ops());
        Some(message)
    }

    fn explain_key(&self, key: &str, got: &KeyState, required: usize) -> String {
        let start = self.start.get(key).unwrap_or(&ABSENT);
        let mut message = format!(
            "{}: key {key} recovered as {got:?}, but only its states after write #{required} \
             or later are allowed:\n  #0 start: {start:?}",
            self.name
        );
        let steps = self.steps.get(key).into_iter().flatten();
        for (number, (index, state)) in steps.enumerate() {
            let _ = write!(
                message,
                "\n  #{} {} -> {state:?}",
                number + 1,
                self.describe_op(*index)
            );
        }
        message
    }

    /// Op `index` with its send and ack times.
    fn describe_op(&self, index: usize) -> String {
        let sent = &self.ops[index];
        let at = |t: Instant| t.duration_since(self.origin).as_millis();
        let acked = match sent.acked_at {
            Some(t) => format!("acked +{}ms", at(t)),
            None => "in flight".into(),
        };
        format!(
            "op[{index}] sent +{}ms {acked}: {:?}",
            at(sent.sent_at),
            sent.op
        )
    }

    /// Every op, for messages; long logs show their ends.
    fn describe_ops(&self) -> String {
        const ENDS: usize = 20;
        let n = self.ops.len();
        let mut text = format!("{}'s commands:", self.name);
        for index in 0..n {
            if n > 2 * ENDS && index == ENDS {
                let _ = write!(text, "\n  ... {} more ...", n - 2 * ENDS);
            }
            if n <= 2 * ENDS || index < ENDS || index >= n - ENDS {
                let _ = write!(text, "\n  {}", self.describe_op(index));
            }
        }
        text
    }
}

/// Inclusive ranges in order, adjacent ones merged: `0-3, 7, 9-12`.
fn ranges(ranges: &[(usize, usize)]) -> String {
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for &(lo, hi) in ranges {
        match merged.last_mut() {
            Some(last) if last.1 + 1 == lo => last.1 = hi,
            _ => merged.push((lo, hi)),
        }
    }
    if merged.is_empty() {
        return "none".into();
    }
    let text: Vec<String> = merged
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}-{hi}")
            }
        })
        .collect();
    text.join(", ")
}
