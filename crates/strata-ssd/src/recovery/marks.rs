//! [`MarkUser`]: how a user other than the primary marks its entries live
//! when the store is reopened. The primary (KV) owns the [`Recovery`]: it
//! scans or adopts, marks its own entries, then runs every other user's
//! marks ([`OtherUsers::mark_all`]) before
//! [`finish`](Recovery::finish), which frees every block holding nothing
//! marked. A user the primary was not told about loses its entries.

use std::fmt;
use std::sync::Arc;

use super::state::Recovery;
use crate::error::SsdError;

/// Another user of the store: it marks the entries its catalogs name.
pub trait MarkUser: Send + Sync {
    /// The user's name, for reports.
    fn name(&self) -> String;

    /// Marks every entry the user keeps live in `recovery` (after the
    /// primary's scan or adoption, before `finish`). An error stops the
    /// store's opening: finishing without it would free the user's data.
    fn mark(&self, recovery: &Recovery) -> Result<(), SsdError>;
}

/// The other users the primary marks before finishing a recovery.
#[derive(Clone, Default)]
pub struct OtherUsers(Vec<Arc<dyn MarkUser>>);

impl OtherUsers {
    /// No other user.
    pub fn none() -> OtherUsers {
        OtherUsers::default()
    }

    /// These users too.
    pub fn with(mut self, user: Arc<dyn MarkUser>) -> OtherUsers {
        self.0.push(user);
        self
    }

    /// Runs every user's marks on `recovery`, in the order they were given.
    pub fn mark_all(&self, recovery: &Recovery) -> Result<(), SsdError> {
        self.0.iter().try_for_each(|user| user.mark(recovery))
    }
}

impl fmt::Debug for OtherUsers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|u| u.name()))
            .finish()
    }
}
