//! [`Silo`]: optimistic concurrency control as in the Silo paper (Tu et
//! al., SOSP 2013).
//!
//! - Reads are optimistic: load the TID word, copy the row, load the word
//!   again; a locked record is waited for briefly (a commit is installing
//!   it), then the attempt aborts. A record locked *and absent* is an
//!   insert in flight, read as absent (validation catches its commit).
//! - Commit: lock the write set in address order (a bounded spin per
//!   record, then abort: deadlock is impossible either way), read the
//!   epoch (by the transaction layer), then validate that every record
//!   read still has the TID word it was read with and is not locked by
//!   another transaction. The install stores the new TID word, which also
//!   unlocks.
//! - Records inserted by the transaction are created locked and absent,
//!   so they are already held at commit. A write to a record another
//!   transaction holds locked aborts at once (see `intend_write`).

use std::sync::atomic::{fence, Ordering};

use crate::cc::policy::ConcurrencyControl;
use crate::error::AbortCause;
use crate::tid::{ABSENT, LOCK};
use crate::txn::access::{Access, Held};

/// How many times a locked record is re-checked before giving up.
const SPINS: u32 = 2000;

/// Optimistic concurrency control with TID validation and epochs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silo;

impl ConcurrencyControl for Silo {
    const NAME: &'static str = "silo";

    fn new_record_words() -> (u64, u64) {
        (ABSENT | LOCK, 0)
    }

    #[inline]
    fn read(access: &mut Access, mut out: Option<&mut [u8]>) -> Result<u64, AbortCause> {
        let rec = access.rec;
        let tid = rec.tid();
        let mut spins = 0;
        let word = loop {
            let before = tid.load(Ordering::Acquire);
            if before & LOCK != 0 && access.held != Held::Exclusive {
                if before & ABSENT != 0 {
                    break before & !LOCK;
                }
                spins += 1;
                if spins > SPINS {
                    return Err(AbortCause::LockConflict);
                }
                std::hint::spin_loop();
                continue;
            }
            if let Some(out) = out.as_deref_mut() {
                rec.read_row(out);
            }
            fence(Ordering::Acquire);
            if tid.load(Ordering::Relaxed) == before {
                break before & !LOCK;
            }
        };
        if !access.read {
            access.read = true;
            access.observed = word;
        } else if word != access.observed {
            return Err(AbortCause::Validation);
        }
        Ok(word)
    }

    /// A record another transaction holds locked is refused at once: its
    /// TID is about to change, so this transaction could only fail
    /// validation; and if it is an insert in flight (absent and locked),
    /// claiming it would race that insert's index entries (its abort
    /// removes the entry this one would share).
    fn intend_write(access: &mut Access) -> Result<(), AbortCause> {
        if !access.read {
            Silo::read(access, None)?;
        }
        if access.held != Held::Exclusive && access.rec.tid().load(Ordering::Acquire) & LOCK != 0 {
            return Err(AbortCause::LockConflict);
        }
        Ok(())
    }

    /// Takes the lock bit now, from exactly the word read: a record that
    /// changed or is held is a conflict (no waiting, so no deadlock with
    /// commits locking in address order).
    fn claim_insert(access: &mut Access) -> Result<(), AbortCause> {
        if access.held == Held::Exclusive {
            return Ok(());
        }
        let seen = access.observed;
        access
            .rec
            .tid()
            .compare_exchange(seen, seen | LOCK, Ordering::Acquire, Ordering::Relaxed)
            .map_err(|_| AbortCause::LockConflict)?;
        access.held = Held::Exclusive;
        Ok(())
    }

    fn lock_writes(accesses: &mut [Access], order: &mut Vec<u32>) -> Result<(), AbortCause> {
        order.clear();
        order.extend((0..accesses.len() as u32).filter(|&i| {
            accesses[i as usize].write.is_some() && accesses[i as usize].held == Held::None
        }));
        order.sort_unstable_by_key(|&i| accesses[i as usize].rec.addr());
        for &i in order.iter() {
            let access = &mut accesses[i as usize];
            let tid = access.rec.tid();
            let mut spins = 0;
            loop {
                let cur = tid.load(Ordering::Relaxed);
                if cur & LOCK == 0
                    && tid
                        .compare_exchange_weak(
                            cur,
                            cur | LOCK,
                            Ordering::Acquire,
                            Ordering::Relaxed,
                        )
                        .is_ok()
                {
                    break;
                }
                spins += 1;
                if spins > SPINS {
                    return Err(AbortCause::LockConflict);
                }
                std::hint::spin_loop();
            }
            access.held = Held::Exclusive;
        }
        // The installs' row stores must not move before the lock.
        fence(Ordering::Release);
        Ok(())
    }

    fn validate(accesses: &[Access]) -> Result<(), AbortCause> {
        for access in accesses.iter().filter(|a| a.read) {
            let now = access.rec.tid().load(Ordering::Acquire);
            if now & !LOCK != access.observed {
                return Err(AbortCause::Validation);
            }
            if now & LOCK != 0 && access.held != Held::Exclusive {
                return Err(AbortCause::Validation);
            }
        }
        Ok(())
    }

    fn installed_word(tid: u64, absent: bool) -> u64 {
        if absent {
            tid | ABSENT
        } else {
            tid
        }
    }

    fn release(accesses: &mut [Access], committed: bool) {
        for access in accesses {
            if access.held == Held::Exclusive && !committed {
                // Nothing was installed: put back the word as it was.
                let tid = access.rec.tid();
                let cur = tid.load(Ordering::Relaxed);
                tid.store(cur & !LOCK, Ordering::Release);
            }
            access.held = Held::None;
        }
    }
}
