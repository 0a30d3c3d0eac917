//! [`DirectoryTree`]: directories by path, for an engine that keeps its
//! files in several directories (search: the node's own files, one
//! directory per index, each index's translog). Everything it writes goes
//! through the [`Directory`](crate::Directory) the tree hands out, so a test that gives the
//! engine a [`MemTree`] or a [`FaultyTree`] reaches every one of its files
//! with one power cut or one set of faults.

mod contract;
mod faulty;
mod fs;
mod mem;

pub use contract::DirectoryTree;
pub use faulty::FaultyTree;
pub use fs::FsTree;
pub use mem::MemTree;
