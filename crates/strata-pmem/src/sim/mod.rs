//! [`SimulatedPmem`]: persistent memory in ordinary memory that remembers
//! what was made durable, so a test can cut the power and check what a
//! restart finds (the persistent-memory twin of strata-device's
//! `MemDirectory::crash`).
//!
//! Model: the current contents (what loads see) and a durable image (what
//! the media holds). `persist` copies the covering 64-byte cache lines into
//! the durable image. A crash keeps the durable image ([`crash`]); real
//! persistent memory may also have evicted any other dirty line at any
//! moment, and only 8-byte aligned stores are failure-atomic, so
//! [`crash_torn`] lets every word not yet persisted independently be old
//! or new. A power cut can be armed at an exact persist
//! ([`cut_power_after`]), which is how tests crash at every step of an
//! operation. Never used for real data.
//!
//! [`crash`]: SimulatedPmem::crash
//! [`crash_torn`]: SimulatedPmem::crash_torn
//! [`cut_power_after`]: SimulatedPmem::cut_power_after

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::error::{PmemError, Result};
use crate::words::{self, CACHE_LINE};

/// Simulated persistent memory with crash images. Thread-safe; the same
/// concurrency contract as [`PmemMap`](crate::PmemMap).
pub struct SimulatedPmem {
    current: Box<[AtomicU64]>,
    state: Mutex<SimState>,
}

struct SimState {
    /// What the media holds, word for word.
    durable: Vec<u64>,
    /// Persist calls so far (on this image).
    persists: u64,
    /// Power fails when a persist starts after this many.
    cut_after: Option<u64>,
    /// Current and durable contents at the moment of the power cut.
    frozen: Option<(Vec<u64>, Vec<u64>)>,
}

impl SimulatedPmem {
    /// `len` zero bytes, all durable. `len` must be a positive multiple of 64.
    pub fn new(len: u64) -> Result<SimulatedPmem> {
        if len == 0 || len % CACHE_LINE != 0 {
            return Err(PmemError::config(format!(
                "simulated size {len} must be a positive multiple of {CACHE_LINE}"
            )));
        }
        let words = usize::try_from(len / 8)
            .map_err(|_| PmemError::config(format!("{len} bytes do not fit in memory")))?;
        Ok(SimulatedPmem::from_words(vec![0; words]))
    }

    fn from_words(image: Vec<u64>) -> SimulatedPmem {
        SimulatedPmem {
            current: image.iter().map(|w| AtomicU64::new(*w)).collect(),
            state: Mutex::new(SimState {
                durable: image,
                persists: 0,
                cut_after: None,
                frozen: None,
            }),
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.current.len() as u64 * 8
    }

    /// Always false: a simulation has at least 64 bytes.
    pub fn is_empty(&self) -> bool {
        self.current.is_empty()
    }

    /// Copies `buf.len()` bytes at `offset` into `buf`.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        words::read(&self.current, offset, buf)
    }

    /// Copies `data` to `offset`; not durable until [`persist`](Self::persist).
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        words::write(&self.current, offset, data)
    }

    /// The 8-byte word at `offset` (a multiple of 8).
    pub fn atomic_u64(&self, offset: u64) -> Result<&AtomicU64> {
        words::atomic(&self.current, offset)
    }

    /// Copies the cache lines covering `len` bytes at `offset` into the
    /// durable image (unless the power was cut). Never fails in range.
    pub fn persist(&self, offset: u64, len: u64) -> Result<()> {
        words::check_range(offset, len, self.len())?;
        let mut state = self.state.lock();
        if state.frozen.is_none() && state.cut_after.is_some_and(|n| state.persists >= n) {
            state.frozen = Some((self.current_words(), state.durable.clone()));
        }
        state.persists += 1;
        if len > 0 {
            let lines = words::covering_lines(offset, len, self.len());
            for i in (lines.start / 8) as usize..(lines.end / 8) as usize {
                state.durable[i] = self.current[i].load(Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// The current contents as words.
    pub(crate) fn words(&self) -> &[AtomicU64] {
        &self.current
    }

    pub(crate) fn zero(&self, offset: u64, len: u64) -> Result<()> {
        words::zero(&self.current, offset, len)
    }

    /// A full fence (persist is already synchronous here).
    pub fn fence(&self) {
        std::sync::atomic::fence(Ordering::SeqCst);
    }

    /// Persist calls made on this image so far (an empty persist counts).
    pub fn persist_count(&self) -> u64 {
        self.state.lock().persists
    }

    /// Arms a power cut: it happens when a persist call starts after
    /// `persists` more have completed (0: at the start of the next one).
    /// From then on [`crash`](Self::crash) and
    /// [`crash_torn`](Self::crash_torn) see the memory as it was at that
    /// instant; the running code is not told and carries on.
    pub fn cut_power_after(&self, persists: u64) {
        let mut state = self.state.lock();
        state.cut_after = Some(state.persists + persists);
        state.frozen = None;
    }

    /// Whether an armed power cut has happened.
    pub fn power_was_cut(&self) -> bool {
        self.state.lock().frozen.is_some()
    }

    /// What a power cut leaves, as a new independent simulation whose
    /// contents are all durable: the durable image only. `self` is unchanged.
    pub fn crash(&self) -> SimulatedPmem {
        let state = self.state.lock();
        let durable = match &state.frozen {
            Some((_, durable)) => durable.clone(),
            None => state.durable.clone(),
        };
        SimulatedPmem::from_words(durable)
    }

    /// Like [`crash`](Self::crash), but every 8-byte word written and not
    /// persisted is independently old (durable) or new (current), as cache
    /// evictions on real persistent memory may leave it. The same `seed` on
    /// the same history gives the same result.
    pub fn crash_torn(&self, seed: u64) -> SimulatedPmem {
        let mut rng = SmallRng::seed_from_u64(seed);
        let state = self.state.lock();
        let live;
        let (current, durable) = match &state.frozen {
            Some((current, durable)) => (current, durable),
            None => {
                live = self.current_words();
                (&live, &state.durable)
            }
        };
        let image = current
            .iter()
            .zip(durable)
            .map(|(new, old)| {
                if new != old && rng.gen::<bool>() {
                    *new
                } else {
                    *old
                }
            })
            .collect();
        SimulatedPmem::from_words(image)
    }

    fn current_words(&self) -> Vec<u64> {
        self.current
            .iter()
            .map(|w| w.load(Ordering::Relaxed))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_keeps_only_persisted_lines() {
        let sim = SimulatedPmem::new(256).unwrap();
        sim.write(0, &[1; 8]).unwrap();
        sim.write(70, &[2; 4]).unwrap();
        sim.write(200, &[3; 8]).unwrap();
        sim.persist(72, 1).unwrap(); // line 64..128: covers the write at 70
        let after = sim.crash();
        let mut buf = [0u8; 256];
        after.read(0, &mut buf).unwrap();
        assert_eq!(&buf[0..8], &[0; 8]);
        assert_eq!(&buf[70..74], &[2; 4]);
        assert_eq!(&buf[200..208], &[0; 8]);
    }

    #[test]
    fn crash_torn_mixes_whole_words_only() {
        let sim = SimulatedPmem::new(4096).unwrap();
        sim.write(0, &[0xFF; 4096]).unwrap();
        let (mut old_words, mut new_words) = (0, 0);
        for seed in 0..4 {
            let after = sim.crash_torn(seed);
            for word in 0..512 {
                match after.atomic_u64(word * 8).unwrap().load(Ordering::Relaxed) {
                    0 => old_words += 1,
                    u64::MAX => new_words += 1,
                    torn => panic!("word {word} torn: {torn:#x}"),
                }
            }
        }
        assert!(old_words > 0 && new_words > 0);
    }

    #[test]
    fn power_cut_freezes_the_image_before_the_armed_persist() {
        let sim = SimulatedPmem::new(256).unwrap();
        sim.cut_power_after(1);
        sim.write(0, &[1; 8]).unwrap();
        sim.persist(0, 8).unwrap(); // completes
        sim.write(64, &[2; 8]).unwrap();
        sim.persist(64, 8).unwrap(); // power already gone
        assert!(sim.power_was_cut());
        let after = sim.crash();
        let mut buf = [0u8; 8];
        after.read(0, &mut buf).unwrap();
        assert_eq!(buf, [1; 8]);
        after.read(64, &mut buf).unwrap();
        assert_eq!(buf, [0; 8]);
        // The in-flight write may or may not have reached the media.
        let seen: Vec<u64> = (0..8)
            .map(|seed| {
                sim.crash_torn(seed)
                    .atomic_u64(64)
                    .unwrap()
                    .load(Ordering::Relaxed)
            })
            .collect();
        assert!(seen
            .iter()
            .all(|w| *w == 0 || *w == u64::from_ne_bytes([2; 8])));
    }
}
