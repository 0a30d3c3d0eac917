//! Packed collections rewritten in place (`strata-kv`'s `shard/in_place.rs`:
//! a whole value replaced by one as long overwrites its DRAM record) through
//! the command log and checkpoints: recovery from the log alone, from a
//! checkpoint plus the log after it, and after a power cut gives back the
//! newest value of every key, with its kind and expiry, and of strings
//! how they were last written (`StringForm`: edited in place, Redis's `raw`
//! encoding; a number's text, `embstr`; or whole).

use crate::common;

use std::collections::BTreeMap;

use common::World;
use strata_kv::{Mutation, NewItem, Store, StringForm, ValueKind};
use strata_persist::Durability;

/// key -> (kind and string form, value, expiry).
type Kinds = BTreeMap<Vec<u8>, ((ValueKind, StringForm), Vec<u8>, Option<u64>)>;

fn kinds(w: &World) -> Kinds {
    let mut found = Kinds::new();
    let mut cursor = 0;
    loop {
        cursor = w.ks.store().scan(cursor, 100, &mut |item| {
            found.insert(
                item.key.to_vec(),
                ((item.kind, item.form), item.value.to_vec(), item.expires_at),
            );
        });
        if cursor == 0 {
            return found;
        }
    }
}

/// Rewrites every key with values of one length (in place after the
/// first round), a few with a longer one (appended).
fn changes(w: &World, round: u8) {
    let mut store = w.ks.store();
    let expiry = w.ks.now_ms() + 3_600_000;
    for k in 0..30u8 {
        let kind = [ValueKind::Hash, ValueKind::SortedSet, ValueKind::List][usize::from(k % 3)];
        let len = 200 + usize::from(k % 7 == 0 && round % 2 == 1);
        let value = vec![round.wrapping_mul(31).wrapping_add(k); len];
        let expires_at = (k % 5 == 0).then_some(expiry);
        store
            .edit_large(&[b'c', k], |edit| edit.put_whole(kind, &value, expires_at))
            .unwrap()
            .unwrap();
    }
    // Strings of one length, edited in place, written as text or whole by
    // turns.
    for k in 0..10u8 {
        let item = NewItem {
            value: vec![round ^ k; 20].into(),
            flags: u32::from(k),
            expires_at: (k % 4 == 0).then_some(expiry),
        };
        let put = match (k + round) % 3 {
            0 => Mutation::PutString(StringForm::Edited, item),
            1 => Mutation::PutString(StringForm::Text, item),
            _ => Mutation::Put(item),
        };
        store.update(&[b's', k], |_| (put, ())).unwrap();
    }
    w.ack();
}

#[test]
fn values_rewritten_in_place_survive_log_replay_checkpoints_and_power_cuts() {
    let mut w = World::new(Durability::Sync);
    for round in 0..6u8 {
        changes(&w, round);
        if round % 2 == 1 {
            w.p().checkpoint().unwrap();
            changes(&w, round + 100);
        }
        let before = kinds(&w);
        assert_eq!(before.len(), 40);
        // Ten strings over three forms: each form on three or four.
        for form in [StringForm::Edited, StringForm::Text, StringForm::Whole] {
            let strings = before
                .values()
                .filter(|((kind, f), ..)| *kind == ValueKind::String && *f == form);
            assert!(
                (3..=4).contains(&strings.count()),
                "{form:?}, round {round}"
            );
        }
        match round % 3 {
            0 => w.restart_clean(),
            _ => w.power_cut(None),
        }
        assert_eq!(kinds(&w), before, "round {round}");
    }
}
