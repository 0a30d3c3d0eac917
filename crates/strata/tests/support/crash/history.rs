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

use super::model::{KeyState, Op};
use super::resp::Reply;

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
    /// Times in messages are relative to this.
    origin: Instant,
    start: BTreeMap<String, KeyState>,
    current: BTreeMap<String, KeyState>,
    ops: Vec<SentOp>,
    /// For every key written: (index into `ops`, the key's state after it).
    steps: BTreeMap<String, Vec<(usize, KeyState)>>,
}

impl ConnectionLog {
    /// A log for connection `name` whose keys hold `start` (absent keys may
    /// be left out).
    pub fn new(name: String, origin: Instant, start: BTreeMap<String, KeyState>) -> ConnectionLog {
        ConnectionLog {
            name,
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
        let (changes, reply) = op.apply(&self.current);
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
        self.start.keys().chain(self.steps.keys()).cloned().collect()
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
            let got = recovered.get(&key).cloned().unwrap_or_default();
            let states = self.states(&key);
            let required = self.required_steps(&key, survival);
            if !states[required..].contains(&got) {
                problems.push(self.explain_key(&key, &got, required));
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
            let got = recovered.get(key).cloned().unwrap_or_default();
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
    fn states(&self, key: &str) -> Vec<KeyState> {
        let start = self.start.get(key).cloned().unwrap_or_default();
        let steps = self.steps.get(key).into_iter().flatten();
        std::iter::once(start)
            .chain(steps.map(|(_, state)| state.clone()))
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
        let mut possible = vec![true; n + 1];
        possible[..required].fill(false);
        let mut per_key = Vec::new();
        for (key, steps) in &self.steps {
            let got = recovered.get(key).cloned().unwrap_or_default();
            let states = self.states(key);
            let mut matching = Vec::new();
            let mut done = 0;
            for (prefix, possible) in possible.iter_mut().enumerate() {
                while done < steps.len() && steps[done].0 < prefix {
                    done += 1;
                }
                let matches = states[done] == got;
                *possible &= matches;
                if matches {
                    matching.push(prefix);
                }
            }
            per_key.push((key, matching));
        }
        if possible.contains(&true) {
            return None;
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
        let start = self.start.get(key).cloned().unwrap_or_default();
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

/// Sorted numbers as ranges: `0-3, 7, 9-12`.
fn ranges(numbers: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let mut j = i;
        while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            numbers[i].to_string()
        } else {
            format!("{}-{}", numbers[i], numbers[j])
        });
        i = j + 1;
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}
