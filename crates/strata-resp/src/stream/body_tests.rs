//! A model test of [`Body`]: random appends, single and run deletes,
//! trims, ranges both ways with random bounds and limits and point reads,
//! checked against a plain vector of entries. Runs delete whole nodes in
//! the middle, so walks over emptied nodes are exercised. Now and then the
//! body is written out as chunks and read back chunked, as a large
//! stream's is between commands.

use std::cell::{Cell, RefCell};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::stream::trim::{Strategy, Trim, DEFAULT_LIMIT};

/// Chunks in memory, counting the reads.
#[derive(Default)]
struct Chunks {
    map: RefCell<HashMap<u32, Vec<u8>>>,
    reads: Cell<usize>,
}

impl ChunkSource for Chunks {
    fn current(&self) -> Result<Option<strata_kv::Current>, strata_kv::KvError> {
        Ok(None)
    }
    fn chunk(&self, number: u32) -> Result<Option<Vec<u8>>, strata_kv::KvError> {
        self.reads.set(self.reads.get() + 1);
        Ok(self.map.borrow().get(&number).cloned())
    }
}

/// `body` written as a large stream's is (changed nodes, the last one
/// padded; the first node's count in the head) and taken back chunked.
fn reload<'a>(mut body: Body<'_>, source: &'a Chunks) -> Body<'a> {
    if !body.is_chunked() {
        body.renumber_all();
    }
    let front = body.front_len().unwrap();
    for (number, mut bytes, last) in body.changed_chunks() {
        if last {
            bytes.resize(bytes.len().max(NODE_PAD), 0);
        }
        source.map.borrow_mut().insert(number, bytes);
    }
    let (ring, len, first_id) = (body.ring(), body.len, body.first_id);
    Body::chunked(source, ring, body.tail_used, len, first_id, front)
}

fn ids(entries: &[Entry]) -> Vec<StreamId> {
    entries.iter().map(|e| e.id).collect()
}

fn random_id(rng: &mut SmallRng, top: u64) -> StreamId {
    StreamId::new(rng.gen_range(0..=top + 1), rng.gen_range(0..3))
}

#[test]
fn a_body_answers_as_a_vector_of_its_entries() {
    for seed in 0..20u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let source = Chunks::default();
        let mut body = Body::packed(Vec::new(), 0);
        let mut model: Vec<Entry> = Vec::new();
        let mut top = 1u64;
        for step in 0..3000 {
            if seed % 2 == 1 && rng.gen_range(0..20) == 0 {
                body = reload(body, &source);
            }
            match rng.gen_range(0..100) {
                0..=54 => {
                    top += 1;
                    let id = StreamId::new(top, 0);
                    let fields = vec![b"f".to_vec(), top.to_string().into_bytes()];
                    body.append(id, fields.clone()).unwrap();
                    model.push(Entry { id, fields });
                }
                55..=64 => {
                    let id = random_id(&mut rng, top);
                    let had = model.iter().position(|e| e.id == id);
                    assert_eq!(body.delete(id).unwrap(), had.is_some(), "{seed}/{step}");
                    if let Some(at) = had {
                        model.remove(at);
                    }
                }
                65..=69 if !model.is_empty() => {
                    let from = rng.gen_range(0..model.len());
                    let to = (from + rng.gen_range(1..250)).min(model.len());
                    for e in model.drain(from..to) {
                        assert!(body.delete(e.id).unwrap());
                    }
                }
                70..=71 => {
                    let strategy = if rng.gen_bool(0.5) {
                        Strategy::MaxLen(rng.gen_range(0..2000))
                    } else {
                        Strategy::MinId(random_id(&mut rng, top))
                    };
                    let approx = rng.gen_bool(0.5);
                    let limit = if approx { rng.gen_range(0..300) } else { 0 };
                    let trim = Trim {
                        strategy,
                        approx,
                        limit,
                    };
                    let removed = body.trim(&trim).unwrap() as usize;
                    let exact = match strategy {
                        Strategy::MaxLen(max) => model.len().saturating_sub(max as usize),
                        Strategy::MinId(min) => model.iter().take_while(|e| e.id < min).count(),
                    };
                    if !approx {
                        assert_eq!(removed, exact, "{seed}/{step}: exact trim");
                    } else {
                        assert!(removed <= exact, "{seed}/{step}: approximate trims less");
                    }
                    model.drain(..removed);
                }
                _ => {
                    let (a, b) = (random_id(&mut rng, top), random_id(&mut rng, top));
                    let (start, end) = (a.min(b), a.max(b));
                    let limit = if rng.gen_bool(0.5) {
                        usize::MAX
                    } else {
                        rng.gen_range(1..50)
                    };
                    let reverse = rng.gen_bool(0.5);
                    let got = body.range(start, end, limit, reverse).unwrap();
                    let within = model.iter().filter(|e| e.id >= start && e.id <= end);
                    let want: Vec<Entry> = if reverse {
                        within.rev().take(limit).cloned().collect()
                    } else {
                        within.take(limit).cloned().collect()
                    };
                    assert_eq!(
                        ids(&got),
                        ids(&want),
                        "{seed}/{step}: {start}..{end} {reverse}"
                    );
                    assert_eq!(got, want);
                    let one = random_id(&mut rng, top);
                    let found = model.iter().find(|e| e.id == one).cloned();
                    assert_eq!(body.entry(one).unwrap(), found);
                    assert_eq!(body.contains(one).unwrap(), found.is_some());
                }
            }
            assert_eq!(body.len, model.len() as u64, "{seed}/{step}");
            let first = model.first().map_or(StreamId::MIN, |e| e.id);
            assert_eq!(body.first_id, first, "{seed}/{step}");
        }
    }
}

#[test]
fn a_reverse_range_ending_past_an_emptied_node_starts_after_it() {
    let mut body = Body::packed(Vec::new(), 0);
    for ms in 1..=350 {
        body.append(StreamId::new(ms, 0), Vec::new()).unwrap();
    }
    for ms in 101..=200 {
        assert!(body.delete(StreamId::new(ms, 0)).unwrap());
    }
    let got = body
        .range(StreamId::new(99, 0), StreamId::new(202, u64::MAX), 3, true)
        .unwrap();
    let want = [202, 201, 100].map(|ms| StreamId::new(ms, 0));
    assert_eq!(ids(&got), want);
}

fn stream_of(n: u64) -> Body<'static> {
    let mut s = Body::packed(Vec::new(), 0);
    for i in 1..=n {
        s.append(StreamId::new(i, 0), vec![b"f".to_vec(), b"v".to_vec()])
            .unwrap();
    }
    s
}

fn trim(strategy: Strategy, approx: bool, limit: u64) -> Trim {
    Trim {
        strategy,
        approx,
        limit,
    }
}

#[test]
fn exact_trims_keep_exactly_what_is_asked() {
    let mut s = stream_of(250);
    assert_eq!(s.trim(&trim(Strategy::MaxLen(120), false, 0)).unwrap(), 130);
    assert_eq!(s.len, 120);
    assert_eq!(s.first_id, StreamId::new(131, 0));
    assert_eq!(s.node_count(), 2);
    let min = StreamId::new(200, 0);
    assert_eq!(s.trim(&trim(Strategy::MinId(min), false, 0)).unwrap(), 69);
    assert_eq!(s.first_id, min);
}

#[test]
fn approximate_trims_remove_whole_nodes_within_the_limit() {
    let mut s = stream_of(250);
    assert_eq!(s.trim(&trim(Strategy::MaxLen(120), true, 0)).unwrap(), 100);
    assert_eq!(s.len, 150);
    let mut s = stream_of(250);
    assert_eq!(s.trim(&trim(Strategy::MaxLen(0), true, 150)).unwrap(), 100);
    let mut s = stream_of(250);
    let min = StreamId::new(150, 0);
    assert_eq!(
        s.trim(&trim(Strategy::MinId(min), true, DEFAULT_LIMIT))
            .unwrap(),
        100
    );
    let mut s = stream_of(50);
    assert_eq!(
        s.trim(&trim(Strategy::MaxLen(10), true, DEFAULT_LIMIT))
            .unwrap(),
        0
    );
}

#[test]
fn an_approximate_trim_decides_on_the_front_count_the_head_recorded() {
    let source = Chunks::default();
    let mut body = reload(stream_of(1050), &source);
    assert_eq!(body.node_count(), 11);
    body.append(StreamId::new(2000, 0), Vec::new()).unwrap();
    let reads = source.reads.get();
    let cap = |max| trim(Strategy::MaxLen(max), true, DEFAULT_LIMIT);
    // 1051 entries, 100 in the first node: nothing whole to drop, and the
    // first node is not read to learn it.
    assert_eq!(body.trim(&cap(1000)).unwrap(), 0);
    assert_eq!(source.reads.get(), reads);
    // The first node goes on its recorded count; the next one is read for
    // the new first id, and its count goes to the head.
    assert_eq!(body.trim(&cap(900)).unwrap(), 100);
    assert_eq!(source.reads.get(), reads + 1);
    assert_eq!(body.first_id, StreamId::new(101, 0));
    let mut body = reload(body, &source);
    assert_eq!(body.front_hint, Some(100));
    assert_eq!(
        body.range(StreamId::MIN, StreamId::MAX, usize::MAX, false)
            .unwrap()
            .len(),
        951
    );
}
