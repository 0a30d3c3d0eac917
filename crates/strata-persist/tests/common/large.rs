//! What the large-collection tests share: the schedule of edits,
//! checkpoints and restarts (clean or by a power cut) that every large
//! type goes through, and the check that no chunk is orphaned or missing.

use rand::rngs::SmallRng;
use rand::SeedableRng;

use super::World;

/// Asserts that every chunk has its head and every head all its chunks.
pub fn assert_chunks_whole(w: &World) {
    let census = w.ks.chunk_census();
    assert_eq!((census.orphans, census.missing), (0, 0), "{census:?}");
}

/// Six rounds over the keys `{prefix}:0` to `{prefix}:4`: forty edits a
/// round (`edit(world, state, key, slot, rng)`, `slot` the key's number;
/// slot 4's collection stays small and comes and goes), acknowledged;
/// every second round a checkpoint and ten more edits of slot 0, which
/// recovery then reads from the log after it; then a clean restart (every
/// third round) or a power cut, and `check`. At the end the keyspace holds
/// more than twenty chunks, so the collections did grow large.
pub fn six_rounds<S>(
    w: &mut World,
    state: &mut S,
    prefix: &str,
    mut edit: impl FnMut(&World, &mut S, &[u8], u32, &mut SmallRng),
    check: impl Fn(&World, &S),
) {
    let mut rng = SmallRng::seed_from_u64(32);
    for round in 0..6u32 {
        for i in 0..40 {
            let key = format!("{prefix}:{}", i % 5).into_bytes();
            edit(w, state, &key, i % 5, &mut rng);
        }
        w.ack();
        if round % 2 == 1 {
            w.p().checkpoint().unwrap();
            let key = format!("{prefix}:0").into_bytes();
            for _ in 0..10 {
                edit(w, state, &key, 0, &mut rng);
            }
            w.ack();
        }
        match round % 3 {
            0 => w.restart_clean(),
            _ => w.power_cut(None),
        }
        check(w, state);
    }
    assert!(w.ks.chunk_census().chunks > 20);
}
