//! The client whose command runs on a thread: the engine reports a change
//! on the thread that made it, and `NOLOOP` needs to know whose it was.

use std::cell::Cell;

thread_local! {
    /// The client whose command runs on this thread now (0: none), for
    /// `NOLOOP`: the engine reports a change on the thread that made it.
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// Marks `client` as the one running commands on this thread until the
/// guard drops.
pub fn running(client: u64) -> Running {
    let before = CURRENT.with(|c| c.replace(client));
    Running { before }
}

/// The client running commands on this thread now (0: none).
pub fn current() -> u64 {
    CURRENT.with(Cell::get)
}

/// Restores the previous running client when dropped.
#[derive(Debug)]
pub struct Running {
    before: u64,
}

impl Drop for Running {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.before));
    }
}
