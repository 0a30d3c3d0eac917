//! [`NoWait`]: two-phase locking where a conflicting request aborts at
//! once (no waiting, so no deadlock).
//!
//! Each record's lock word holds an exclusive bit ([`EXCLUSIVE`]) or a
//! count of shared holders. Reads take a shared lock, writes an exclusive
//! one (upgrading a sole shared holder); locks are held until the commit
//! has installed its writes or the abort. Under the lock a record cannot
//! change, so reads need no validation.

use std::sync::atomic::Ordering;

use crate::cc::policy::ConcurrencyControl;
use crate::error::AbortCause;
use crate::tid::{ABSENT, LOCK};
use crate::txn::access::{Access, Held};

/// The exclusive bit of a lock word.
pub(crate) const EXCLUSIVE: u64 = 1 << 63;

/// Two-phase locking, NO_WAIT variant.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoWait;

impl ConcurrencyControl for NoWait {
    const NAME: &'static str = "no_wait";

    fn new_record_words() -> (u64, u64) {
        (ABSENT, EXCLUSIVE)
    }

    #[inline]
    fn read(access: &mut Access, out: Option<&mut [u8]>) -> Result<u64, AbortCause> {
        let rec = access.rec;
        if access.held == Held::None {
            let lock = &rec.head().lock;
            let mut cur = lock.load(Ordering::Relaxed);
            loop {
                if cur & EXCLUSIVE != 0 {
                    return Err(AbortCause::LockConflict);
                }
                match lock.compare_exchange_weak(cur, cur + 1, Ordering::Acquire, Ordering::Relaxed)
                {
                    Ok(_) => break,
                    Err(now) => cur = now,
                }
            }
            access.held = Held::Shared;
        }
        let word = rec.tid().load(Ordering::Acquire) & !LOCK;
        if let Some(out) = out {
            rec.read_row(out);
        }
        if !access.read {
            access.read = true;
            access.observed = word;
        }
        Ok(word)
    }

    #[inline]
    fn intend_write(access: &mut Access) -> Result<(), AbortCause> {
        let lock = &access.rec.head().lock;
        let from = match access.held {
            Held::Exclusive => return Ok(()),
            Held::Shared => 1,
            Held::None => 0,
        };
        lock.compare_exchange(from, EXCLUSIVE, Ordering::Acquire, Ordering::Relaxed)
            .map_err(|_| AbortCause::LockConflict)?;
        access.held = Held::Exclusive;
        if !access.read {
            access.read = true;
            access.observed = access.rec.tid().load(Ordering::Acquire) & !LOCK;
        }
        Ok(())
    }

    fn claim_insert(access: &mut Access) -> Result<(), AbortCause> {
        NoWait::intend_write(access)
    }

    fn lock_writes(_: &mut [Access], _: &mut Vec<u32>) -> Result<(), AbortCause> {
        Ok(())
    }

    fn validate(_: &[Access]) -> Result<(), AbortCause> {
        Ok(())
    }

    fn installed_word(tid: u64, absent: bool) -> u64 {
        if absent {
            tid | ABSENT
        } else {
            tid
        }
    }

    fn release(accesses: &mut [Access], _committed: bool) {
        for access in accesses {
            let lock = &access.rec.head().lock;
            match access.held {
                Held::None => {}
                Held::Shared => {
                    lock.fetch_sub(1, Ordering::Release);
                }
                Held::Exclusive => lock.store(0, Ordering::Release),
            }
            access.held = Held::None;
        }
    }
}
