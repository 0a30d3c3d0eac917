//! [`IoMode`]: whether an aligned file bypasses the page cache.

/// How an [`AlignedFile`](super::AlignedFile) (and so a block file) is
/// read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoMode {
    /// `O_DIRECT`: the engine alone decides what stays in DRAM. Refused
    /// (with an error saying so) where the filesystem does not support it.
    #[default]
    Direct,
    /// Through the page cache; for filesystems that refuse `O_DIRECT`. The
    /// engine should report the tier as not direct.
    Buffered,
}
