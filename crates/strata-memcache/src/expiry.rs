//! memcached expiration times and the engine's absolute milliseconds.
//!
//! memcached's rules: `0` never expires; a negative value is already
//! expired; up to 30 days (2,592,000 s) is relative to now; anything larger
//! is an absolute Unix time, already expired if in the past. Time comes from
//! the keyspace clock, so tests move it with a manual clock.

/// Largest relative expiration time; larger values are Unix times.
pub const MAX_RELATIVE_SECS: i64 = 60 * 60 * 24 * 30;

/// An engine expiry that is already due at `now_ms` (the engine stores
/// nothing, and removes any existing item, for an expiry at or before now).
pub fn already_expired(now_ms: u64) -> u64 {
    now_ms.max(1)
}

/// Converts a memcached expiration time into the engine's absolute expiry in
/// Unix milliseconds (`None` = never).
pub fn expires_at(exptime: i32, now_ms: u64) -> Option<u64> {
    let exptime = i64::from(exptime);
    if exptime == 0 {
        None
    } else if exptime < 0 {
        Some(already_expired(now_ms))
    } else if exptime > MAX_RELATIVE_SECS {
        let at = (exptime as u64).saturating_mul(1000);
        Some(if at <= now_ms {
            already_expired(now_ms)
        } else {
            at
        })
    } else {
        Some(now_ms.saturating_add(exptime as u64 * 1000))
    }
}

/// The delay before a `flush_all <exptime>` takes effect, in milliseconds;
/// 0 means now. memcached reads the delay like an expiration time, so large
/// values are Unix times and non-positive ones mean "now".
pub fn flush_delay_ms(exptime: i32, now_ms: u64) -> u64 {
    if exptime <= 0 {
        return 0;
    }
    match expires_at(exptime, now_ms) {
        Some(at) if at > now_ms => at - now_ms,
        _ => 0,
    }
}

/// Remaining time to live in whole seconds, rounded up, as meta commands
/// report it: `-1` for an item that never expires.
pub fn ttl_secs(expires_at: Option<u64>, now_ms: u64) -> i64 {
    match expires_at {
        None => -1,
        Some(at) => {
            let left = at.saturating_sub(now_ms);
            i64::try_from(left.div_ceil(1000)).unwrap_or(i64::MAX)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_700_000_000_000;

    #[test]
    fn zero_never_expires() {
        assert_eq!(expires_at(0, NOW), None);
    }

    #[test]
    fn negative_is_already_expired() {
        assert_eq!(expires_at(-1, NOW), Some(NOW));
        assert_eq!(expires_at(i32::MIN, NOW), Some(NOW));
        assert_eq!(expires_at(-1, 0), Some(1));
    }

    #[test]
    fn up_to_thirty_days_is_relative() {
        assert_eq!(expires_at(1, NOW), Some(NOW + 1000));
        assert_eq!(expires_at(2_592_000, NOW), Some(NOW + 2_592_000_000));
    }

    #[test]
    fn beyond_thirty_days_is_absolute() {
        assert_eq!(expires_at(2_592_001, NOW), Some(NOW), "1970 is in the past");
        let future = (NOW / 1000 + 100) as i32;
        assert_eq!(expires_at(future, NOW), Some((NOW / 1000 + 100) * 1000));
        let past = (NOW / 1000 - 100) as i32;
        assert_eq!(expires_at(past, NOW), Some(NOW));
    }

    #[test]
    fn flush_delays() {
        assert_eq!(flush_delay_ms(0, NOW), 0);
        assert_eq!(flush_delay_ms(-5, NOW), 0);
        assert_eq!(flush_delay_ms(10, NOW), 10_000);
        assert_eq!(flush_delay_ms((NOW / 1000 + 7) as i32, NOW), 7_000);
        assert_eq!(flush_delay_ms((NOW / 1000 - 7) as i32, NOW), 0);
    }

    #[test]
    fn ttl_rounds_up() {
        assert_eq!(ttl_secs(None, NOW), -1);
        assert_eq!(ttl_secs(Some(NOW + 30_000), NOW), 30);
        assert_eq!(ttl_secs(Some(NOW + 29_001), NOW), 30);
        assert_eq!(ttl_secs(Some(NOW), NOW), 0);
        assert_eq!(ttl_secs(Some(NOW - 5), NOW), 0);
    }
}
