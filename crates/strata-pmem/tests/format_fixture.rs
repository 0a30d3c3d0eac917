//! The persistent arena's format is versioned and must stay readable: an
//! arena written by format version 1 (header: magic, version, geometry,
//! kind, checksum, generation and clean flag; the root slots; the chunk
//! map with allocated, multi-chunk and freed runs; chunk contents) is kept
//! in `tests/fixtures/v1/arena.sparse`, and must open with every root,
//! run and byte as written. `strata-kv`'s fixture covers the keyspace
//! directory on top of it.
//!
//! The image is stored sparse: its length (u64 LE), then each non-zero
//! 4 KiB page as a u32 LE page number and the page.
//!
//! Regenerate (only when deliberately changing the format, together with a
//! new version number): `STRATA_WRITE_FIXTURES=1 cargo test -p strata-pmem --test integration --
//! --ignored format_fixture::write_v1_fixture`.

use std::path::PathBuf;

use strata_pmem::{PersistentArena, PmemError, SimulatedPmem, FORMAT_VERSION, MAGIC, ROOT_SLOTS};

const CHUNK: u64 = 64 << 10;
const CHUNKS: u64 = 12;
const KIND: u64 = 0x5354_5241_5441; // "STRATA"
const PAGE: usize = 4096;

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1/arena.sparse")
}

/// The runs the fixture holds once written: (owner, chunks), in
/// allocation order, the third freed again.
const RUNS: [(u32, u64); 5] = [(1, 1), (2, 3), (3, 2), (1, 2), (7, 1)];
const FREED: usize = 2;

/// The bytes written at the start of run `i` (and at its last byte).
fn pattern(i: usize) -> Vec<u8> {
    (0..1000u32)
        .map(|b| (b as usize * 31 + i * 7) as u8)
        .collect()
}

fn root_value(slot: usize) -> u64 {
    0x0101_0101_0101_0101u64.wrapping_mul(slot as u64 + 1) ^ 0xA5
}

fn sparse(image: &SimulatedPmem) -> Vec<u8> {
    let mut out = image.len().to_le_bytes().to_vec();
    let mut page = vec![0u8; PAGE];
    for n in 0..image.len() as usize / PAGE {
        image.read((n * PAGE) as u64, &mut page).unwrap();
        if page.iter().any(|&b| b != 0) {
            out.extend_from_slice(&(n as u32).to_le_bytes());
            out.extend_from_slice(&page);
        }
    }
    out
}

fn dense(bytes: &[u8]) -> SimulatedPmem {
    let len = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    let image = SimulatedPmem::new(len).unwrap();
    assert_eq!((bytes.len() - 8) % (4 + PAGE), 0, "sparse image damaged");
    for record in bytes[8..].chunks(4 + PAGE) {
        let n = u64::from(u32::from_le_bytes(record[..4].try_into().unwrap()));
        image.write(n * PAGE as u64, &record[4..]).unwrap();
    }
    image.persist(0, len).unwrap();
    image
}

fn fixture() -> SimulatedPmem {
    dense(&std::fs::read(fixture_path()).expect("fixture present"))
}

#[test]
fn v1_header_bytes_are_as_written() {
    let image = fixture();
    let mut head = [0u8; 12];
    image.read(0, &mut head).unwrap();
    assert_eq!(&head[..8], MAGIC.as_slice(), "magic");
    assert_eq!(
        u32::from_le_bytes(head[8..12].try_into().unwrap()),
        1,
        "version"
    );
    assert_eq!(
        FORMAT_VERSION, 1,
        "a new version needs a new fixture next to this one"
    );
}

#[test]
fn v1_fixture_opens_with_its_roots_runs_and_bytes() {
    let arena = PersistentArena::open_simulated(fixture(), KIND).unwrap();
    assert_eq!(arena.kind(), KIND);
    assert_eq!(arena.chunk_size(), CHUNK);
    assert_eq!(arena.chunk_count(), CHUNKS);
    // Written as a clean shutdown in generation 1; this open is the next.
    assert!(arena.was_clean());
    assert_eq!(arena.generation(), 2);
    arena.verify().unwrap();
    for slot in 0..ROOT_SLOTS {
        assert_eq!(arena.root(slot).unwrap(), root_value(slot), "root {slot}");
    }

    let mut allocated = arena.allocated().unwrap();
    allocated.sort_by_key(|run| run.first());
    let mut expected: Vec<(u32, u64)> = RUNS
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != FREED)
        .map(|(_, &run)| run)
        .collect();
    expected.sort_unstable();
    let mut found: Vec<(u32, u64)> = allocated.iter().map(|r| (r.owner(), r.count())).collect();
    found.sort_unstable();
    assert_eq!(found, expected);
    let used: u64 = expected.iter().map(|&(_, n)| n).sum();
    assert_eq!(arena.free_chunks(), CHUNKS - used);

    for (i, &(owner, count)) in RUNS.iter().enumerate() {
        if i == FREED {
            continue;
        }
        let runs = arena.owned_by(owner).unwrap();
        let run = runs
            .iter()
            .find(|run| {
                let mut probe = vec![0u8; 1000];
                arena.read(run, 0, &mut probe).unwrap();
                run.count() == count && probe == pattern(i)
            })
            .unwrap_or_else(|| panic!("run {i} (owner {owner}) lost or changed"));
        let mut last = [0u8; 1];
        arena.read(run, run.len() - 1, &mut last).unwrap();
        assert_eq!(last[0], pattern(i)[0] ^ 0xFF, "run {i}'s last byte");
    }

    // The freed chunks are reusable, and the arena takes new writes.
    let fresh = arena.alloc(9, 1).unwrap();
    arena.write(&fresh, 0, b"after").unwrap();
    arena.persist(&fresh, 0, 5).unwrap();
}

#[test]
fn v1_fixture_refuses_another_kind() {
    match PersistentArena::open_simulated(fixture(), KIND + 1) {
        Err(PmemError::KindMismatch { .. }) => {}
        Err(other) => panic!("expected a wrong-kind refusal, got {other}"),
        Ok(_) => panic!("opened an arena of another kind"),
    }
}

#[test]
#[ignore = "regenerates the fixture (with STRATA_WRITE_FIXTURES=1)"]
fn write_v1_fixture() {
    // `--include-ignored` (`scripts/test --full`) runs this too: without
    // the variable it must not rewrite the file the other tests read (it
    // raced them, and would hide a format change by rewriting its fixture).
    if std::env::var_os("STRATA_WRITE_FIXTURES").is_none() {
        return;
    }
    let arena = PersistentArena::simulated(2 * PAGE as u64 + CHUNKS * CHUNK, CHUNK, KIND).unwrap();
    assert_eq!(arena.chunk_count(), CHUNKS);
    for slot in 0..ROOT_SLOTS {
        arena.set_root(slot, root_value(slot)).unwrap();
    }
    let mut runs = Vec::new();
    for (i, &(owner, count)) in RUNS.iter().enumerate() {
        let run = arena.alloc(owner, count).unwrap();
        arena.write(&run, 0, &pattern(i)).unwrap();
        arena
            .write(&run, run.len() - 1, &[pattern(i)[0] ^ 0xFF])
            .unwrap();
        arena.persist(&run, 0, run.len()).unwrap();
        runs.push(run);
    }
    arena.free(&runs[FREED]).unwrap();
    arena.mark_clean_shutdown().unwrap();
    let image = arena.crash().unwrap();
    let path = fixture_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, sparse(&image)).unwrap();
}
