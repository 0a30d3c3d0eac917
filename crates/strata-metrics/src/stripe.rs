//! The stripe a thread writes: assigned round-robin at a thread's first
//! use and kept for its life, so threads on different cores write
//! different cache lines and readers sum the stripes.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Stripes of every striped structure. Worker and blocking-pool threads
/// beyond this share stripes (correct, only slower).
pub(crate) const STRIPES: usize = 8;

/// This thread's stripe, below [`STRIPES`].
pub(crate) fn current() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static STRIPE: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    STRIPE.with(|s| {
        let mut stripe = s.get();
        if stripe == usize::MAX {
            stripe = NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES;
            s.set(stripe);
        }
        stripe
    })
}
