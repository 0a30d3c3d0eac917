//! Protocol counters shared by every memcached session, named as memcached
//! names them in `stats`.
//!
//! Each counter is the engine's striped [`Counter`], so sessions on
//! different cores never contend; reading sums the stripes (a momentary
//! snapshot, not a linearizable one, as in memcached).

pub use strata_kv::stats::Counter;

macro_rules! protocol_stats {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// memcached's protocol counters.
        #[derive(Debug, Default)]
        pub struct ProtocolStats {
            $($(#[$doc])* pub $name: Counter,)*
        }

        impl ProtocolStats {
            /// Every counter with its `stats` name, in memcached's order.
            pub fn snapshot(&self) -> Vec<(&'static str, u64)> {
                vec![$((stringify!($name), self.$name.get()),)*]
            }

            /// Zeroes every counter (`stats reset`).
            pub fn reset(&self) {
                $(self.$name.reset();)*
            }
        }
    };
}

protocol_stats! {
    /// Keys requested by retrieval commands (`get`, `gets`, `mg`).
    cmd_get,
    /// Storage requests.
    cmd_set,
    /// `flush_all` requests.
    cmd_flush,
    /// Keys touched (`touch`, `gat`, `gats`, `mg T`).
    cmd_touch,
    /// Meta commands.
    cmd_meta,
    /// Keys found by retrievals.
    get_hits,
    /// Keys not found by retrievals.
    get_misses,
    /// Retrievals that found an expired item (not told apart by the engine; 0).
    get_expired,
    /// Retrievals that found a flushed item (not told apart by the engine; 0).
    get_flushed,
    /// Deletes of missing keys.
    delete_misses,
    /// Deletes that removed an item.
    delete_hits,
    /// `incr` on missing keys.
    incr_misses,
    /// Successful `incr`.
    incr_hits,
    /// `decr` on missing keys.
    decr_misses,
    /// Successful `decr`.
    decr_hits,
    /// `cas` on missing keys.
    cas_misses,
    /// Successful `cas`.
    cas_hits,
    /// `cas` refused because the item changed.
    cas_badval,
    /// Keys touched that existed.
    touch_hits,
    /// Keys touched that did not exist.
    touch_misses,
    /// Storage refused as larger than the item size limit.
    store_too_large,
    /// Storage refused for lack of memory.
    store_no_memory,
    /// Logins checked against the auth file.
    auth_cmds,
    /// Logins refused.
    auth_errors,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn counts_across_threads_and_resets() {
        let stats = Arc::new(ProtocolStats::default());
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let stats = stats.clone();
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        stats.cmd_get.incr();
                    }
                    stats.get_hits.add(5);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let snap = stats.snapshot();
        assert_eq!(snap[0], ("cmd_get", 4000));
        assert!(snap.contains(&("get_hits", 20)));
        stats.reset();
        assert_eq!(stats.cmd_get.get(), 0);
    }
}
