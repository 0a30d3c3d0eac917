//! [`Breaker`]: which child breaker a reservation goes to.
//!
//! A leaf of `breaker`: the settings, the breakers and the accounts all
//! name a child, and this names none of them.

/// A child breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breaker {
    /// Per-request structures (searches, documents, replies).
    Request,
    /// HTTP request bodies in flight.
    InFlightRequests,
}

impl Breaker {
    /// Every child, in the order `_nodes/stats` lists them.
    pub(crate) const ALL: [Breaker; 2] = [Breaker::Request, Breaker::InFlightRequests];

    /// Elasticsearch's name of the breaker.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Breaker::Request => "request",
            Breaker::InFlightRequests => "in_flight_requests",
        }
    }

    /// The breaker's index among the children.
    pub(super) fn slot(self) -> usize {
        self as usize
    }
}
