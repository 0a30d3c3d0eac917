//! [`SendPolicy`]: which replies wait for the end of the worker's round
//! (`workers::round`) so that they go out together.

use std::sync::Arc;

use crate::workers::round::{Hold, Round};

/// Which of a connection's replies wait for the end of the worker's round.
///
/// A pipelined batch's replies always wait: the sends of a round come in
/// one burst, as Redis writes all replies in `beforeSleep`, and wake the
/// client once instead of once per connection (on a virtual machine each
/// wake-up costs the sender an inter-processor interrupt,
/// `_raw_spin_unlock_irqrestore` under `sock_def_readable`, 10% of the
/// server's CPU under `HSET`/`HGET` at depth 1).
///
/// A single request's reply waits too, unless this round or the last one
/// held a pipelined batch. A round of single requests is short (each
/// connection has at most one), and holding them cut the client's
/// wake-ups sixfold: 1.17x-1.31x for hashes, lists and sorted sets at
/// depth 1, 1.21x for a queue's one-at-a-time `BLPOP` consumers. A round
/// with pipelined batches is long, and a connection that waits for each
/// reply before its next request (a `BLPOP` consumer beside pipelining
/// producers) would wait a whole round per request: its replies go at
/// once, which keeps such consumers their share (2026-12-04, alternated
/// A/Bs in docs/benchmarks.md).
pub(crate) struct SendPolicy;

impl SendPolicy {
    /// The wait for the replies of `batch_len` requests on a worker in
    /// `round`, if they wait.
    pub(crate) fn hold(round: &Arc<Round>, batch_len: usize) -> Option<Hold> {
        if batch_len >= 2 {
            round.note_pipelined();
            return Some(round.clone().hold());
        }
        (!round.pipelined_lately()).then(|| round.clone().hold())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_replies_wait_only_in_rounds_without_pipelining() {
        let round = Arc::new(Round::default());
        assert!(SendPolicy::hold(&round, 1).is_some(), "no pipelining yet");
        assert!(SendPolicy::hold(&round, 16).is_some());
        assert!(SendPolicy::hold(&round, 1).is_none(), "a batch this round");
        round.end();
        assert!(SendPolicy::hold(&round, 1).is_none(), "a batch last round");
        assert!(SendPolicy::hold(&round, 2).is_some(), "batches always wait");
        round.end();
        round.end();
        assert!(SendPolicy::hold(&round, 1).is_some(), "two rounds without");
    }
}
