//! Per-user floors and ceilings of a shared cache ("so no user starves
//! another"): what a user may be given ([`UserLimits`]), why a set of them
//! is refused ([`LimitsError`]), and each shard's share of them
//! (`ShareLimits`). A leaf.
//!
//! Both count a user's records (their values' charge, `value_bytes` in
//! its counters), not its share of the tables and queues, which no user
//! can free by itself.
//! - The ceiling: after an insert returns, the user holds at most this
//!   many bytes. An insert over it evicts the user's own records first
//!   (oldest first, a record read since it came in going round once more);
//!   a record larger than the user's share of a shard is refused.
//! - The floor: the global eviction takes none of a user's records while
//!   the user holds at most this many bytes, as long as another user holds
//!   more than its own floor; when no user has records to give, the budget
//!   wins and floors are ignored.
//!
//! The cache is sharded by key hash, so each shard enforces its share:
//! floor and ceiling divided by the number of shards (rounded down, so the
//! shares of a ceiling never add up to more than the ceiling).

use std::error::Error;
use std::fmt;

/// A user's floor and ceiling in a shared cache, in bytes of its records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserLimits {
    /// Bytes below which the global eviction does not take the user's
    /// records (0: none).
    pub floor: u64,
    /// Bytes the user may hold at most (`None`: the whole budget).
    pub ceiling: Option<u64>,
}

/// Why [`SharedCache::with_limits`](super::SharedCache::with_limits)
/// refused a set of limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitsError {
    /// A user's floor is above its ceiling.
    FloorOverCeiling {
        /// The user.
        user: String,
        /// Its floor.
        floor: u64,
        /// Its ceiling.
        ceiling: u64,
    },
    /// A user's ceiling is above the budget.
    CeilingOverBudget {
        /// The user.
        user: String,
        /// Its ceiling.
        ceiling: u64,
        /// The shared budget.
        budget: u64,
    },
    /// The floors add up to more than the budget.
    FloorsOverBudget {
        /// The floors' sum.
        floors: u64,
        /// The shared budget.
        budget: u64,
    },
    /// A user is named twice.
    DuplicateUser(String),
    /// More users than one cache serves.
    TooManyUsers {
        /// Users named.
        users: usize,
        /// Most users a shared cache serves.
        most: usize,
    },
}

impl fmt::Display for LimitsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitsError::FloorOverCeiling {
                user,
                floor,
                ceiling,
            } => write!(
                f,
                "cache user {user}: floor ({floor} bytes) is above its ceiling ({ceiling} bytes)"
            ),
            LimitsError::CeilingOverBudget {
                user,
                ceiling,
                budget,
            } => write!(
                f,
                "cache user {user}: ceiling ({ceiling} bytes) is above the cache budget ({budget} bytes)"
            ),
            LimitsError::FloorsOverBudget { floors, budget } => write!(
                f,
                "the cache users' floors add up to {floors} bytes, more than the cache budget ({budget} bytes)"
            ),
            LimitsError::DuplicateUser(user) => write!(f, "cache user {user} is named twice"),
            LimitsError::TooManyUsers { users, most } => {
                write!(f, "{users} cache users named; a shared cache serves at most {most}")
            }
        }
    }
}

impl Error for LimitsError {}

/// Checks `limits` against `budget`: each floor at most its ceiling, each
/// ceiling at most the budget, the floors' sum at most the budget, names
/// distinct and at most `most` of them.
pub(super) fn validate(
    budget: u64,
    limits: &[(&str, UserLimits)],
    most: usize,
) -> Result<(), LimitsError> {
    if limits.len() > most {
        return Err(LimitsError::TooManyUsers {
            users: limits.len(),
            most,
        });
    }
    let mut floors = 0u64;
    for (i, (name, user)) in limits.iter().enumerate() {
        let user_name = || (*name).to_owned();
        if limits[..i].iter().any(|(other, _)| other == name) {
            return Err(LimitsError::DuplicateUser(user_name()));
        }
        if let Some(ceiling) = user.ceiling {
            if user.floor > ceiling {
                return Err(LimitsError::FloorOverCeiling {
                    user: user_name(),
                    floor: user.floor,
                    ceiling,
                });
            }
            if ceiling > budget {
                return Err(LimitsError::CeilingOverBudget {
                    user: user_name(),
                    ceiling,
                    budget,
                });
            }
        }
        floors = floors.saturating_add(user.floor);
    }
    if floors > budget {
        return Err(LimitsError::FloorsOverBudget { floors, budget });
    }
    Ok(())
}

/// One shard's share of a user's limits, in bytes of its records there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ShareLimits {
    floor: usize,
    /// `usize::MAX` when the user has no ceiling.
    ceiling: usize,
}

impl ShareLimits {
    /// No floor, no ceiling: every user's until limits are set.
    pub(super) const NONE: ShareLimits = ShareLimits {
        floor: 0,
        ceiling: usize::MAX,
    };

    /// A shard's share of `limits` in a cache of `shards` shards.
    pub(super) fn of(limits: UserLimits, shards: usize) -> ShareLimits {
        let share = |bytes: u64| usize::try_from(bytes / shards.max(1) as u64);
        ShareLimits {
            floor: share(limits.floor).unwrap_or(usize::MAX),
            ceiling: match limits.ceiling {
                Some(ceiling) => share(ceiling).unwrap_or(usize::MAX),
                None => usize::MAX,
            },
        }
    }

    /// True when a user holding `held` bytes here is at or below its floor:
    /// the global eviction spares its records (a user without a floor that
    /// holds records is never spared).
    pub(super) fn spares(self, held: usize) -> bool {
        held <= self.floor
    }

    /// True when the user has a ceiling.
    pub(super) fn capped(self) -> bool {
        self.ceiling != usize::MAX
    }

    /// True when `held` bytes are over the ceiling.
    pub(super) fn over(self, held: usize) -> bool {
        held > self.ceiling
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(floor: u64, ceiling: Option<u64>) -> UserLimits {
        UserLimits { floor, ceiling }
    }

    #[test]
    fn limits_that_cannot_hold_are_refused_with_the_reason() {
        let ok = [("a", limits(10, Some(60))), ("b", limits(90, None))];
        assert_eq!(validate(100, &ok, 7), Ok(()));
        let floors = [("a", limits(50, Some(60))), ("b", limits(51, None))];
        let err = validate(100, &floors, 7).unwrap_err();
        assert_eq!(
            err,
            LimitsError::FloorsOverBudget {
                floors: 101,
                budget: 100
            }
        );
        assert!(err.to_string().contains("floors add up to 101"), "{err}");
        let err = validate(100, &[("a", limits(0, Some(101)))], 7).unwrap_err();
        assert!(
            err.to_string().contains("ceiling (101 bytes) is above"),
            "{err}"
        );
        let err = validate(100, &[("a", limits(20, Some(10)))], 7).unwrap_err();
        assert!(matches!(err, LimitsError::FloorOverCeiling { .. }), "{err}");
        let twice = [("a", limits(0, None)), ("a", limits(0, None))];
        assert_eq!(
            validate(100, &twice, 7),
            Err(LimitsError::DuplicateUser("a".into()))
        );
        let many = [("a", limits(0, None)); 3];
        assert!(matches!(
            validate(100, &many, 2),
            Err(LimitsError::TooManyUsers { users: 3, most: 2 })
        ));
    }

    #[test]
    fn a_shard_gets_its_share_rounded_down() {
        let share = ShareLimits::of(limits(100, Some(1001)), 4);
        assert_eq!((share.floor, share.ceiling), (25, 250));
        assert!(share.spares(25) && !share.spares(26));
        assert!(share.capped() && share.over(251) && !share.over(250));
        let none = ShareLimits::of(UserLimits::default(), 4);
        assert_eq!(none, ShareLimits::NONE);
        assert!(!none.capped() && !none.spares(1));
    }
}
