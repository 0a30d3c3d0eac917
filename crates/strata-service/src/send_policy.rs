//! [`SendPolicy`]: when the driver holds a connection's replies back so
//! that the sends of one round of ready connections go out together.

/// When a connection's replies wait for the other connections with input
/// ready before they are sent.
///
/// A pipelined batch's replies are sent after every other ready connection
/// has been processed (as Redis writes all replies in `beforeSleep`): the
/// sends come in one burst and wake the client once, instead of once per
/// connection, which on a virtual machine costs the sender an
/// inter-processor wake-up each (`_raw_spin_unlock_irqrestore` under
/// `sock_def_readable`, 11% of the server's CPU under pipelined `HSET`).
/// Measured: pipelined `HSET`/`HGET` 1.45x, strings at depth 16 0.77x-0.97x
/// of Redis to 0.99x-1.14x. The hold costs the worker one more poll of its
/// I/O driver per round (tokio wakes yielded tasks after polling it, so a
/// held reply also waits for the next round's newly ready connections). At
/// depth 1 that wait is the whole cost: holding single requests too
/// (2026-12-04) halved what one-at-a-time `BLPOP` consumers took from
/// pipelined producers and gained nothing for strings on a quiet machine,
/// so a connection that sent one request is answered at once.
pub(crate) struct SendPolicy;

impl SendPolicy {
    /// Requests in a batch from which its replies are held back.
    const HOLD_FROM: usize = 2;

    pub(crate) fn holds_back(batch_len: usize) -> bool {
        batch_len >= Self::HOLD_FROM
    }
}
