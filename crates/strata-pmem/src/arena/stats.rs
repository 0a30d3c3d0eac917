//! [`ArenaStats`]: what the arena reports to `INFO` / `stats`.

use super::PersistentArena;
use crate::mode::PersistMode;

/// A snapshot of an arena's mode and space, for stats and start-up logs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArenaStats {
    /// The file (`<simulated>` for the simulation).
    pub file: String,
    /// How writes are made durable.
    pub persist_mode: PersistMode,
    /// True unless the memory is real persistent memory: stats must say so.
    pub emulated: bool,
    /// Why it is emulated, when it is a mapped file.
    pub emulation_reason: Option<String>,
    /// This session's generation.
    pub generation: u64,
    /// Whether the previous session closed cleanly.
    pub was_clean: bool,
    /// Total bytes (the file length).
    pub size_bytes: u64,
    /// Bytes per chunk.
    pub chunk_size: u64,
    /// Chunks in the arena.
    pub chunk_count: u64,
    /// Chunks free.
    pub free_chunks: u64,
    /// Bytes in all chunks.
    pub capacity_bytes: u64,
    /// Bytes in allocated chunks.
    pub used_bytes: u64,
}

impl PersistentArena {
    /// The arena's stats now.
    pub fn stats(&self) -> ArenaStats {
        let free_chunks = self.free_chunks();
        ArenaStats {
            file: self.file_name().to_owned(),
            persist_mode: self.persist_mode(),
            emulated: self.is_emulated(),
            emulation_reason: self.emulation_reason().map(str::to_owned),
            generation: self.generation,
            was_clean: self.was_clean,
            size_bytes: self.geometry.size,
            chunk_size: self.geometry.chunk_size,
            chunk_count: self.geometry.chunk_count,
            free_chunks,
            capacity_bytes: self.capacity_bytes(),
            used_bytes: (self.geometry.chunk_count - free_chunks) * self.geometry.chunk_size,
        }
    }
}
