//! A bounded pool for recovery: `threads` scoped threads take the next
//! item by an atomic counter until none is left; results come back in
//! item order, whatever thread made them.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f(0) .. f(items - 1)` on at most `threads` threads (the calling
/// thread alone when one is enough). A panicking `f` is re-raised here.
pub(crate) fn map<R: Send>(items: usize, threads: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.max(1));
    if threads == 1 {
        return (0..items).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= items {
                            return mine;
                        }
                        mine.push((i, f(i)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(mine) => mine,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::map;

    #[test]
    fn every_item_once_in_order_whatever_the_threads() {
        for threads in [1, 2, 3, 8] {
            for items in [0, 1, 5, 40] {
                let out = map(items, threads, |i| i * 10);
                assert_eq!(out, (0..items).map(|i| i * 10).collect::<Vec<_>>());
            }
        }
    }
}
