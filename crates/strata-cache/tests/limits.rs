//! Per-user floors and ceilings of a shared cache (`policy`): a model test
//! over random workloads of three users with random limits, and the edge
//! cases one at a time.
//!
//! The floor is kept per shard (each shard keeps its share), so the model
//! checks it exactly on a one-shard cache (a budget under 2 MiB); the
//! budget and the ceilings are checked on several shards as well.

use bytes::Bytes;
use proptest::prelude::*;
use strata_cache::{CacheStats, LimitsError, SharedCache, UserCache, UserLimits};

type Records = UserCache<u64, (u64, u64)>;

const NAMES: [&str; 3] = ["kv_records", "search_blocks", "spill"];

fn value(len: usize) -> Bytes {
    Bytes::from(vec![7u8; len])
}

fn limits(floor: u64, ceiling: Option<u64>) -> UserLimits {
    UserLimits { floor, ceiling }
}

/// A cache with the three users' limits, and a handle per user.
fn cache(budget: u64, given: [UserLimits; 3]) -> (SharedCache, Vec<Records>) {
    let named: Vec<(&str, UserLimits)> = NAMES.into_iter().zip(given).collect();
    let shared = SharedCache::with_limits(budget, &named).unwrap();
    let users = NAMES
        .iter()
        .map(|name| UserCache::shared(&shared, name).unwrap())
        .collect();
    (shared, users)
}

#[derive(Debug, Clone)]
enum Op {
    Insert { user: usize, key: u64, len: usize },
    Get { user: usize, key: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..3usize, 0..400u64, 1..6000usize)
            .prop_map(|(user, key, len)| Op::Insert { user, key, len }),
        1 => (0..3usize, 0..400u64).prop_map(|(user, key)| Op::Get { user, key }),
    ]
}

/// A user's limits: a floor up to a third of the budget, an optional
/// ceiling at or above it.
fn user_limits(budget: u64) -> impl Strategy<Value = UserLimits> {
    (0..=budget / 3, proptest::option::of(0..=budget))
        .prop_map(move |(floor, ceiling)| limits(floor, ceiling.map(|c| c.max(floor).min(budget))))
}

fn workload() -> impl Strategy<Value = (u64, [UserLimits; 3], Vec<Op>)> {
    prop_oneof![Just(256u64 << 10), Just(4u64 << 20)].prop_flat_map(|budget| {
        (
            Just(budget),
            [
                user_limits(budget),
                user_limits(budget),
                user_limits(budget),
            ],
            proptest::collection::vec(op(), 1..1500),
        )
    })
}

fn held(users: &[Records]) -> Vec<CacheStats> {
    users.iter().map(UserCache::stats).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// After every insert: the cache within its budget, the inserting
    /// user within its ceiling, and (one shard) no other user at or below
    /// its floor lost a record while some user but it is above its own.
    #[test]
    fn budget_ceilings_and_floors_hold((budget, given, ops) in workload()) {
        let (shared, users) = cache(budget, given);
        let one_shard = budget < 2 << 20;
        for (step, op) in ops.into_iter().enumerate() {
            let Op::Insert { user, key, len } = op else {
                if let Op::Get { user, key } = op {
                    users[user].get(&key, &(step as u64 % 3, key));
                }
                continue;
            };
            let before = held(&users);
            users[user].insert(key, (step as u64 % 3, key), value(len));
            let after = held(&users);
            prop_assert!(shared.stats().bytes <= budget, "over the budget");
            if let Some(ceiling) = given[user].ceiling {
                prop_assert!(after[user].value_bytes <= ceiling, "{:?}", after[user]);
            }
            if !one_shard {
                continue;
            }
            for spared in (0..3).filter(|&u| u != user) {
                let at_floor = before[spared].value_bytes <= given[spared].floor;
                let another_gives = (0..3)
                    .filter(|&u| u != spared)
                    .any(|u| after[u].value_bytes > given[u].floor);
                if at_floor && another_gives {
                    prop_assert_eq!(after[spared].entries, before[spared].entries);
                    prop_assert_eq!(after[spared].value_bytes, before[spared].value_bytes);
                }
            }
        }
    }
}

#[test]
fn limits_that_cannot_hold_are_refused_at_construction() {
    let budget = 1 << 20;
    let floors = [
        ("a", limits(600 << 10, None)),
        ("b", limits(600 << 10, None)),
    ];
    let err = SharedCache::with_limits(budget, &floors).unwrap_err();
    assert!(matches!(err, LimitsError::FloorsOverBudget { .. }));
    assert!(
        err.to_string().contains("more than the cache budget"),
        "{err}"
    );
    let ceiling = [("a", limits(0, Some(budget + 1)))];
    let err = SharedCache::with_limits(budget, &ceiling).unwrap_err();
    assert!(
        matches!(err, LimitsError::CeilingOverBudget { .. }),
        "{err}"
    );
    let inverted = [("a", limits(2000, Some(1000)))];
    assert!(SharedCache::with_limits(budget, &inverted).is_err());
    let many: Vec<(&str, UserLimits)> = ["a", "b", "c", "d", "e", "f", "g", "h"]
        .into_iter()
        .map(|n| (n, UserLimits::default()))
        .collect();
    assert!(matches!(
        SharedCache::with_limits(budget, &many),
        Err(LimitsError::TooManyUsers { users: 8, most: 7 })
    ));
    assert!(SharedCache::with_limits(budget, &many[..7]).is_ok());
}

#[test]
fn an_insert_over_the_ceiling_evicts_the_users_own_records_or_is_refused() {
    let budget = 1 << 20;
    let (shared, users) = cache(
        budget,
        [
            limits(0, Some(64 << 10)),
            UserLimits::default(),
            UserLimits::default(),
        ],
    );
    for key in 0..50 {
        assert!(users[1].insert(key, (0, key), value(1000)));
    }
    for key in 0..500 {
        assert!(users[0].insert(key, (0, key), value(1000)));
        assert!(users[0].stats().value_bytes <= 64 << 10);
    }
    let capped = users[0].stats();
    assert!(capped.evictions >= 400, "{capped:?}");
    assert_eq!(users[1].stats().entries, 50, "the others keep theirs");
    assert_eq!(users[1].stats().evictions, 0);
    // The newest of the capped user's records are the ones kept.
    assert!(users[0].get(&499, &(0, 499)).is_some());
    assert!(users[0].get(&0, &(0, 0)).is_none());
    // Larger than the ceiling: refused, and an older version dropped.
    assert!(!users[0].insert(499, (1, 499), value(65 << 10)));
    assert!(users[0].get_again(&499, &(0, 499)).is_none());
    let reported = &shared.users()[0].1;
    assert_eq!((reported.floor, reported.ceiling), (0, Some(64 << 10)));
}

#[test]
fn a_user_at_its_floor_keeps_its_records_until_no_other_user_gives() {
    let budget = 512 << 10;
    let floor = 128 << 10;
    let (shared, users) = cache(
        budget,
        [
            limits(floor, None),
            UserLimits::default(),
            UserLimits::default(),
        ],
    );
    // The floored user fills to about its floor, its records never read.
    let mut kept = 0;
    while users[0].stats().value_bytes + 2048 <= floor {
        assert!(users[0].insert(kept, (0, kept), value(1500)));
        kept += 1;
    }
    // Another user streams ten budgets through the cache.
    for key in 0..4000 {
        users[1].insert(key, (0, key), value(1500));
        assert!(shared.stats().bytes <= budget);
    }
    let floored = users[0].stats();
    assert_eq!((floored.entries, floored.evictions), (kept, 0));
    assert!(users[1].stats().evictions > 3000);
    for key in 0..kept {
        assert!(users[0].get(&key, &(0, key)).is_some(), "record {key} lost");
    }
    // The other user's records gone, the floored user alone over the
    // budget: the budget wins.
    users[1].remove_if(|_| true);
    for key in kept..kept + 1000 {
        users[0].insert(key, (0, key), value(1500));
        assert!(shared.stats().bytes <= budget);
    }
    assert!(users[0].stats().evictions > 0);
}

#[test]
fn a_cache_without_limits_reports_none() {
    let shared = SharedCache::new(1 << 20);
    let user: Records = UserCache::shared(&shared, "kv_records").unwrap();
    user.insert(1, (0, 1), value(10));
    let stats = user.stats();
    assert_eq!((stats.floor, stats.ceiling), (0, None));
    assert_eq!(
        shared.limits(shared.user("kv_records").unwrap()),
        UserLimits::default()
    );
}
