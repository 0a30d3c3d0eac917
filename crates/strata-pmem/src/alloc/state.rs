//! The chunk table's state word: one u64 per chunk, stored and persisted
//! atomically, so a crash never tears it.
//!
//! ```text
//! bits 63..60  tag     0x0 free, 0xA head of a run, 0xC continuation
//! bits 59..32  number  head: chunks in the run; continuation: distance
//!                      back to the head (1 .. run length - 1)
//! bits 31..0   owner   the caller's owner id (free: all zero)
//! ```
//!
//! A free chunk is the word 0; any other tag, or a head of zero chunks, or
//! a continuation of distance zero, is invalid (corruption).

const TAG_SHIFT: u32 = 60;
const NUMBER_SHIFT: u32 = 32;
const NUMBER_MASK: u64 = (1 << 28) - 1;
const TAG_HEAD: u64 = 0xA;
const TAG_CONTINUATION: u64 = 0xC;

/// A decoded state word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChunkState {
    /// Not allocated.
    Free,
    /// First chunk of a run of `count` chunks belonging to `owner`; its
    /// word is the run's commit record.
    Head { owner: u32, count: u64 },
    /// Chunk `back` places after the head of a run of `owner`.
    Continuation { owner: u32, back: u64 },
    /// A word no correct sequence of writes produces.
    Invalid(u64),
}

impl ChunkState {
    /// The word for this state. `count` and `back` must be in
    /// `1..=MAX_CHUNKS` (the allocator guarantees it).
    pub(crate) fn encode(self) -> u64 {
        let word = |tag: u64, number: u64, owner: u32| {
            debug_assert!((1..=NUMBER_MASK).contains(&number));
            tag << TAG_SHIFT | (number & NUMBER_MASK) << NUMBER_SHIFT | u64::from(owner)
        };
        match self {
            ChunkState::Free => 0,
            ChunkState::Head { owner, count } => word(TAG_HEAD, count, owner),
            ChunkState::Continuation { owner, back } => word(TAG_CONTINUATION, back, owner),
            ChunkState::Invalid(word) => word,
        }
    }

    /// The state a word stands for.
    pub(crate) fn decode(word: u64) -> ChunkState {
        if word == 0 {
            return ChunkState::Free;
        }
        let number = word >> NUMBER_SHIFT & NUMBER_MASK;
        let owner = word as u32;
        match word >> TAG_SHIFT {
            TAG_HEAD if number > 0 => ChunkState::Head {
                owner,
                count: number,
            },
            TAG_CONTINUATION if number > 0 => ChunkState::Continuation {
                owner,
                back: number,
            },
            _ => ChunkState::Invalid(word),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for state in [
            ChunkState::Free,
            ChunkState::Head { owner: 0, count: 1 },
            ChunkState::Head {
                owner: u32::MAX,
                count: NUMBER_MASK,
            },
            ChunkState::Continuation { owner: 7, back: 3 },
        ] {
            assert_eq!(ChunkState::decode(state.encode()), state);
        }
    }

    #[test]
    fn stray_words_are_invalid() {
        for word in [1, 0xA << 60, 0xC << 60 | 5, 0x5 << 60 | 1 << 32, u64::MAX] {
            assert_eq!(ChunkState::decode(word), ChunkState::Invalid(word));
        }
    }
}
