//! The queue workload's delivery check: which acknowledged pushes were popped, how many
//! times, and what else came out of the lists.
//!
//! Producers know exactly what the server acknowledged (each producer's sequence numbers
//! `0..pushed`, minus pushes answered with an error); consumers record every element they
//! popped. An acknowledged element popped zero times is lost, one popped twice or more is
//! duplicated (each extra delivery counts once).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::element::ElementId;

/// What one producer had acknowledged.
#[derive(Debug, Clone, Default)]
pub struct Pushed {
    /// Sequence numbers `0..sent` were sent and answered.
    pub sent: u64,
    /// Those answered with an error reply (not in a list).
    pub rejected: Vec<u64>,
}

/// What the consumers popped that the check counts apart from this run's elements.
#[derive(Debug, Clone, Copy, Default)]
pub struct Strays {
    /// Well-formed elements of another run.
    pub foreign: u64,
    /// Altered or unparseable elements.
    pub corrupt: u64,
}

/// The delivery check of a queue run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueCheck {
    /// Producer connections (LPUSH).
    pub producers: usize,
    /// Consumer connections (BLPOP).
    pub consumers: usize,
    /// Lists pushed onto.
    pub queues: usize,
    /// Pushes acknowledged over the whole run (warm-up and drain included).
    pub pushed: u64,
    /// Distinct acknowledged elements popped.
    pub delivered: u64,
    /// Acknowledged elements never popped.
    pub lost: u64,
    /// Extra deliveries of elements already popped.
    pub duplicated: u64,
    /// Popped elements whose bytes were not the ones pushed.
    pub corrupt: u64,
    /// Popped elements of this run that no producer had acknowledged (never sent, or
    /// answered with an error).
    pub unacknowledged: u64,
    /// Popped elements of another run (left in the lists before this one).
    pub foreign: u64,
    /// Elements still in the lists after the consumers left (LLEN).
    pub left_in_queues: u64,
    /// Elements popped per second of measurement.
    pub delivered_per_sec: f64,
    /// Seconds from the end of measurement until the consumers had drained the lists.
    pub drain_secs: f64,
}

impl QueueCheck {
    /// Counts deliveries of `popped` against what `pushed` acknowledged; the rates and
    /// queue shape are filled in by the caller.
    pub fn count(pushed: &[Pushed], popped: &[ElementId], strays: Strays) -> Self {
        let mut times: Vec<Vec<u8>> = pushed
            .iter()
            .map(|p| vec![0u8; usize::try_from(p.sent).unwrap_or(usize::MAX)])
            .collect();
        for (p, producer) in pushed.iter().enumerate() {
            for &seq in &producer.rejected {
                if let Some(slot) = times[p].get_mut(seq as usize) {
                    *slot = u8::MAX; // not expected
                }
            }
        }
        let (mut delivered, mut duplicated, mut unacknowledged) = (0, 0, 0);
        for id in popped {
            let slot = times
                .get_mut(id.producer as usize)
                .and_then(|t| t.get_mut(usize::try_from(id.seq).ok()?));
            match slot {
                Some(n) if *n == u8::MAX => unacknowledged += 1,
                Some(n) if *n == 0 => {
                    *n = 1;
                    delivered += 1;
                }
                Some(n) => {
                    *n = n.saturating_add(1).min(u8::MAX - 1);
                    duplicated += 1;
                }
                None => unacknowledged += 1,
            }
        }
        let rejected: u64 = pushed.iter().map(|p| p.rejected.len() as u64).sum();
        let acknowledged = pushed.iter().map(|p| p.sent).sum::<u64>() - rejected;
        Self {
            producers: pushed.len(),
            consumers: 0,
            queues: 0,
            pushed: acknowledged,
            delivered,
            lost: acknowledged - delivered,
            duplicated,
            corrupt: strays.corrupt,
            unacknowledged,
            foreign: strays.foreign,
            left_in_queues: 0,
            delivered_per_sec: 0.0,
            drain_secs: 0.0,
        }
    }

    /// Why the check failed, if it did: anything lost, duplicated, corrupt or unexpected.
    pub fn failure(&self) -> Option<String> {
        let bad = self.lost + self.duplicated + self.corrupt + self.unacknowledged;
        (bad > 0).then(|| {
            format!(
                "queue delivery: {} lost, {} duplicated, {} corrupt, {} unacknowledged of {} pushed",
                self.lost, self.duplicated, self.corrupt, self.unacknowledged, self.pushed
            )
        })
    }

    /// The report's queue section.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "queue: {} producers, {} consumers, {} lists; {:.1} elements delivered/s; drained in {:.2} s",
            self.producers, self.consumers, self.queues, self.delivered_per_sec, self.drain_secs
        );
        let _ = writeln!(
            out,
            "delivery check: {} pushed, {} delivered, {} lost, {} duplicated, {} corrupt, {} unacknowledged, {} foreign, {} left in lists",
            self.pushed,
            self.delivered,
            self.lost,
            self.duplicated,
            self.corrupt,
            self.unacknowledged,
            self.foreign,
            self.left_in_queues
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(producer: u32, seq: u64) -> ElementId {
        ElementId { producer, seq }
    }

    #[test]
    fn counts_lost_duplicated_and_unacknowledged() {
        let pushed = [
            Pushed {
                sent: 3,
                rejected: vec![1],
            },
            Pushed {
                sent: 2,
                rejected: vec![],
            },
        ];
        let popped = [id(0, 0), id(0, 0), id(0, 1), id(1, 1), id(1, 7), id(9, 0)];
        let check = QueueCheck::count(
            &pushed,
            &popped,
            Strays {
                foreign: 2,
                corrupt: 0,
            },
        );
        assert_eq!(check.pushed, 4);
        assert_eq!((check.delivered, check.lost), (2, 2));
        assert_eq!((check.duplicated, check.unacknowledged), (1, 3));
        assert_eq!(check.foreign, 2);
        assert!(check.failure().is_some());
        let clean = QueueCheck::count(&pushed[1..], &[id(0, 0), id(0, 1)], Strays::default());
        assert_eq!((clean.delivered, clean.lost, clean.duplicated), (2, 0, 0));
        assert_eq!(clean.failure(), None);
    }
}
