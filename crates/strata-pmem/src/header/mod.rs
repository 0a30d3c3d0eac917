//! The arena header: formatting a new arena, validating one at open, the
//! clean-shutdown flag and generation, and the root table.
//!
//! Crash rules: at creation every field is written and persisted before the
//! magic, which is one 8-byte word stored and persisted last, so a crash
//! leaves either no arena or a whole one. The clean flag, the generation and
//! each root are single 8-byte words (failure-atomic, so they need no
//! checksum); the multi-word immutable fields carry a CRC32C instead.

pub(crate) mod layout;

use crate::backing::Backing;
use crate::error::{PmemError, Result};
use layout::{Geometry, CLEAN_MARK, CLEAN_OFF, GENERATION_OFF, HEADER_LEN, IMMUTABLE_LEN};
use layout::{MAGIC, ROOTS_OFF, ROOT_SLOTS};

use std::sync::atomic::Ordering;

/// What opening the header found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Header {
    pub(crate) geometry: Geometry,
    /// This open's generation (the stored one plus one).
    pub(crate) generation: u64,
    /// Whether the previous session ended with `mark_clean`.
    pub(crate) was_clean: bool,
}

impl Header {
    /// Writes a new, empty arena of `geometry` over `backing` (whose old
    /// contents are ignored): header and chunk table zeroed and persisted,
    /// then the fields, then the magic. The caller guarantees that nothing
    /// else uses `backing` meanwhile.
    pub(crate) fn format(backing: &Backing, geometry: &Geometry) -> Result<()> {
        if backing.len() != geometry.size {
            return Err(PmemError::config(format!(
                "{}: {} bytes where the arena needs {}",
                backing.file_name(),
                backing.len(),
                geometry.size
            )));
        }
        backing.zero(0, geometry.data_offset)?;
        backing.persist(0, geometry.data_offset)?;
        let fields = geometry.encode();
        backing.write(8, &fields[8..])?;
        backing
            .atomic_u64(CLEAN_OFF)?
            .store(CLEAN_MARK, Ordering::Relaxed);
        backing
            .atomic_u64(GENERATION_OFF)?
            .store(0, Ordering::Relaxed);
        backing.persist(0, GENERATION_OFF + 8)?;
        backing.publish_u64(0, u64::from_le_bytes(MAGIC))
    }

    /// Validates the header of `backing` for an arena of `kind`, then
    /// starts a session: the clean flag is cleared and the generation
    /// incremented, both persisted, before this returns (so a crash from
    /// here on is seen as unclean by the next open).
    pub(crate) fn open(backing: &Backing, kind: u64) -> Result<Header> {
        let file = backing.file_name();
        if backing.len() < HEADER_LEN {
            return Err(PmemError::corrupt(
                file,
                format!(
                    "{} bytes is shorter than the {HEADER_LEN}-byte header",
                    backing.len()
                ),
            ));
        }
        let mut fields = [0u8; IMMUTABLE_LEN];
        backing.read(0, &mut fields)?;
        let geometry = Geometry::decode(&fields, file)?;
        if geometry.size != backing.len() {
            return Err(PmemError::SizeMismatch {
                file: file.to_owned(),
                header: geometry.size,
                actual: backing.len(),
            });
        }
        if geometry.kind != kind {
            return Err(PmemError::KindMismatch {
                file: file.to_owned(),
                expected: kind,
                found: geometry.kind,
            });
        }
        let clean = backing.atomic_u64(CLEAN_OFF)?;
        let generation = backing.atomic_u64(GENERATION_OFF)?;
        let was_clean = clean.load(Ordering::Acquire) == CLEAN_MARK;
        let next = generation.load(Ordering::Acquire).wrapping_add(1);
        // Same cache line: either order of reaching the media is harmless
        // (an unchanged arena is still clean; an old generation is unused).
        clean.store(0, Ordering::Release);
        generation.store(next, Ordering::Release);
        backing.persist(CLEAN_OFF, GENERATION_OFF + 8 - CLEAN_OFF)?;
        Ok(Header {
            geometry,
            generation: next,
            was_clean,
        })
    }

    /// Records a clean shutdown. The caller guarantees every change it
    /// wants kept is persisted and that no more writes follow.
    pub(crate) fn mark_clean(backing: &Backing) -> Result<()> {
        backing.publish_u64(CLEAN_OFF, CLEAN_MARK)
    }

    /// The value in root slot `index`.
    pub(crate) fn root(backing: &Backing, index: usize) -> Result<u64> {
        Ok(backing
            .atomic_u64(root_offset(index)?)?
            .load(Ordering::Acquire))
    }

    /// Stores `value` in root slot `index` (`Release`) and persists it.
    pub(crate) fn set_root(backing: &Backing, index: usize, value: u64) -> Result<()> {
        backing.publish_u64(root_offset(index)?, value)
    }
}

fn root_offset(index: usize) -> Result<u64> {
    if index >= ROOT_SLOTS {
        return Err(PmemError::RootOutOfRange {
            index,
            slots: ROOT_SLOTS,
        });
    }
    Ok(ROOTS_OFF + index as u64 * 8)
}
