//! Random allocations, frees and root updates against a model, with power
//! cuts at random persists (strict and torn images) and reopens. After
//! every reopen: each completed allocation is still allocated to its
//! owner, each completed free is free, the one interrupted operation either
//! happened whole or not at all, no chunk is both free and owned, and no
//! orphaned piece of a run survives.

use std::collections::BTreeSet;

use proptest::prelude::*;
use strata_pmem::{ChunkRun, PersistentArena, PmemError, SimulatedPmem};

const CHUNK: u64 = 64 << 10;
const CHUNKS: u64 = 20;
const KIND: u64 = 0x30DE1;

#[derive(Clone, Debug)]
enum Op {
    Alloc {
        owner: u32,
        count: u64,
    },
    Free {
        pick: usize,
    },
    SetRoot {
        index: usize,
        value: u64,
    },
    /// A power cut after `after` persists of the next operation (`op`),
    /// then a reopen of the strict (`torn: None`) or a torn image.
    CutDuring {
        op: Box<Op>,
        after: u64,
        torn: Option<u64>,
    },
    /// A power cut between operations, then a reopen.
    Crash {
        torn: Option<u64>,
    },
}

fn plain_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..3u32, 1..5u64).prop_map(|(owner, count)| Op::Alloc { owner, count }),
        3 => any::<usize>().prop_map(|pick| Op::Free { pick }),
        1 => (0..4usize, any::<u64>()).prop_map(|(index, value)| Op::SetRoot { index, value }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let torn = prop::option::of(any::<u64>());
    prop_oneof![
        6 => plain_op(),
        2 => (plain_op(), 0..3u64, torn.clone())
            .prop_map(|(op, after, torn)| Op::CutDuring { op: Box::new(op), after, torn }),
        1 => torn.prop_map(|torn| Op::Crash { torn }),
    ]
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Model {
    runs: BTreeSet<ChunkRun>,
    roots: [u64; 4],
}

impl Model {
    /// Whether `count` contiguous chunks are free somewhere.
    fn has_gap(&self, count: u64) -> bool {
        let mut next = 0;
        for run in &self.runs {
            if run.first() - next >= count {
                return true;
            }
            next = run.first() + run.count();
        }
        CHUNKS - next >= count
    }
}

struct Harness {
    arena: PersistentArena,
    model: Model,
}

impl Harness {
    /// Applies `op` to the arena; returns the model it leads to if it
    /// completes (the arena's run, for an alloc).
    fn apply(&mut self, op: &Op) -> Model {
        let mut next = self.model.clone();
        match op {
            Op::Alloc { owner, count } => match self.arena.alloc(*owner, *count) {
                Ok(run) => {
                    assert!(self.model.runs.iter().all(|r| {
                        r.first() + r.count() <= run.first()
                            || run.first() + run.count() <= r.first()
                    }));
                    next.runs.insert(run);
                }
                Err(PmemError::Full { .. }) => assert!(!self.model.has_gap(*count)),
                Err(e) => panic!("alloc: {e}"),
            },
            Op::Free { pick } => {
                if let Some(run) = self
                    .model
                    .runs
                    .iter()
                    .nth(pick % self.model.runs.len().max(1))
                {
                    self.arena.free(run).unwrap();
                    assert!(self.arena.free(run).is_err(), "double free accepted");
                    next.runs.remove(run);
                }
            }
            Op::SetRoot { index, value } => {
                self.arena.set_root(*index, *value).unwrap();
                next.roots[*index] = *value;
            }
            Op::CutDuring { .. } | Op::Crash { .. } => unreachable!("not a plain op"),
        }
        next
    }

    fn reopen(&mut self, image: SimulatedPmem) -> Model {
        self.arena = PersistentArena::open_simulated(image, KIND).unwrap();
        self.arena.verify().unwrap();
        let runs: BTreeSet<ChunkRun> = self.arena.allocated().unwrap().into_iter().collect();
        let used: u64 = runs.iter().map(ChunkRun::count).sum();
        assert_eq!(
            self.arena.free_chunks() + used,
            CHUNKS,
            "chunk lost or doubly counted"
        );
        let mut roots = [0; 4];
        for (index, root) in roots.iter_mut().enumerate() {
            *root = self.arena.root(index).unwrap();
        }
        Model { runs, roots }
    }

    fn crash(&mut self, torn: Option<u64>) -> SimulatedPmem {
        match torn {
            None => self.arena.crash().unwrap(),
            Some(seed) => self.arena.crash_torn(seed).unwrap(),
        }
    }

    fn run(&mut self, op: &Op) {
        match op {
            Op::Crash { torn } => {
                let image = self.crash(*torn);
                let found = self.reopen(image);
                assert_eq!(found, self.model, "completed operations lost");
            }
            Op::CutDuring { op, after, torn } => {
                self.arena.simulation().unwrap().cut_power_after(*after);
                let completed = self.apply(op);
                let image = self.crash(*torn);
                let found = self.reopen(image);
                assert!(
                    found == self.model || found == completed,
                    "half an operation survived: {op:?}\nbefore {:?}\nafter  {completed:?}\nfound  {found:?}",
                    self.model
                );
                self.model = found;
            }
            op => self.model = self.apply(op),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn allocator_matches_the_model_across_crashes(ops in prop::collection::vec(op(), 1..30)) {
        let size = 4096 * 2 + CHUNKS * CHUNK;
        let arena = PersistentArena::simulated(size, CHUNK, KIND).unwrap();
        prop_assert_eq!(arena.chunk_count(), CHUNKS);
        let mut harness = Harness { arena, model: Model::default() };
        for op in &ops {
            harness.run(op);
        }
        let image = harness.crash(None);
        let found = harness.reopen(image);
        prop_assert_eq!(found, harness.model);
    }
}
