//! [`ServeSlot`]: where a push leaves the element it hands straight to a
//! blocked `BLPOP`/`BRPOP`, as Redis serves a blocked client inside the
//! push. A leaf of `blocking`.
//!
//! A connection has one slot. Its blocking pop opens it when it blocks;
//! a push that finds the key empty and this connection first in line
//! fills it (the element never enters the list) and wakes it; the
//! request's next attempt closes it, taking the element if one came, and
//! otherwise runs as usual. The slot's lock orders a push against that
//! attempt: a push that comes after the close finds it closed and pushes
//! the element into the list instead, so an element is either served
//! here or left in the list, never both or neither.

use parking_lot::Mutex;

/// An element a push handed to this connection's blocked pop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// The key it was pushed to (the reply names it).
    pub key: Box<[u8]>,
    /// The element.
    pub element: Box<[u8]>,
    /// Whether the blocked pop takes from the left end (`BLPOP`): the
    /// pop's event is `lpop`, and an element given back goes there.
    pub from_left: bool,
    /// The pushing connection's last logged write: the answer waits until
    /// the log is durable through it (`sync` mode), so a client never sees
    /// an element before what its producer wrote first, as in Redis, where
    /// replies go out after the log is synced.
    pub after_lsn: u64,
}

#[derive(Debug, Default)]
enum State {
    /// No blocked pop takes elements here.
    #[default]
    Closed,
    /// A blocked pop waits, taking from the left end (`BLPOP`) or not.
    Open { from_left: bool },
    /// A push handed it an element, not yet answered.
    Served(Served),
}

/// One connection's slot for elements handed to its blocked pop.
#[derive(Debug, Default)]
pub struct ServeSlot {
    state: Mutex<State>,
}

impl ServeSlot {
    /// The connection's pop blocks and takes an element handed to it.
    pub fn open(&self, from_left: bool) {
        *self.state.lock() = State::Open { from_left };
    }

    /// A push hands `element` of `key` over (answered once the log is
    /// durable through `after_lsn`): `Some(from_left)` of the
    /// waiting pop when the slot was open (the pop then answers with it),
    /// `None` when closed (the attempt that closed it runs without it).
    pub fn fill(&self, key: &[u8], element: &[u8], after_lsn: u64) -> Option<bool> {
        let mut state = self.state.lock();
        let State::Open { from_left } = *state else {
            return None;
        };
        *state = State::Served(Served {
            key: key.into(),
            element: element.into(),
            from_left,
            after_lsn,
        });
        Some(from_left)
    }

    /// Closes the slot: the element handed over, if one was. Once closed,
    /// no push hands anything here.
    pub fn take(&self) -> Option<Served> {
        match std::mem::take(&mut *self.state.lock()) {
            State::Served(served) => Some(served),
            State::Closed | State::Open { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_open_slot_is_filled_and_taking_closes_it() {
        let slot = ServeSlot::default();
        assert_eq!(slot.fill(b"q", b"a", 0), None, "closed");
        slot.open(true);
        assert_eq!(slot.fill(b"q", b"a", 0), Some(true));
        assert_eq!(slot.fill(b"q", b"b", 0), None, "already served");
        let served = slot.take().unwrap();
        assert_eq!((&*served.key, &*served.element), (&b"q"[..], &b"a"[..]));
        assert_eq!(slot.take(), None);
        slot.open(false);
        assert_eq!(slot.take(), None, "opened, never filled");
        assert_eq!(slot.fill(b"q", b"c", 0), None, "closed by the take");
    }
}
