//! [`untouched`]: requests that leave their keys' access records as they
//! were (Redis's `CLIENT NO-TOUCH`): reads and expiry changes made while
//! the guard lives mark nothing accessed, so they neither reset `OBJECT
//! IDLETIME` nor shield the item from eviction. An explicit touch
//! (`Store::touch`: `TOUCH`, memcached's `touch`) still counts, and a
//! write still starts the item's record afresh, as in Redis.

use std::cell::Cell;

thread_local! {
    static UNTOUCHED: Cell<bool> = const { Cell::new(false) };
}

/// Leaves access records as they are on this thread until the guard is
/// dropped (guards nest).
#[must_use = "accesses are left unrecorded only while the guard lives"]
pub fn untouched() -> Untouched {
    Untouched {
        before: UNTOUCHED.replace(true),
    }
}

/// Guard of [`untouched`].
#[derive(Debug)]
pub struct Untouched {
    before: bool,
}

impl Drop for Untouched {
    fn drop(&mut self) {
        UNTOUCHED.set(self.before);
    }
}

/// Whether reads on this thread record their accesses now.
pub(crate) fn touching() -> bool {
    !UNTOUCHED.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_nest_and_restore() {
        assert!(touching());
        {
            let _outer = untouched();
            assert!(!touching());
            {
                let _inner = untouched();
                assert!(!touching());
            }
            assert!(!touching());
        }
        assert!(touching());
    }
}
