//! Unit tests of `text.rs`.

use super::*;
use proptest::prelude::*;

fn lines_of(path: &std::path::Path, size: u64, parts: usize) -> Vec<String> {
    let mut out = Vec::new();
    for ranges in split(&[(path.to_path_buf(), size)], parts) {
        for range in ranges {
            let mut chunks = LineChunks::open(&range).unwrap();
            while let Some(chunk) = chunks.next_chunk().unwrap() {
                let text = String::from_utf8(chunk).unwrap();
                out.extend(text.lines().map(str::to_owned));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn every_line_is_read_once_however_the_file_is_cut(
        lines in proptest::collection::vec("[a-z ]{0,30}", 0..60),
        trailing_newline: bool,
        parts in 1usize..7,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        let mut text = lines.join("\n");
        if trailing_newline && !lines.is_empty() {
            text.push('\n');
        }
        std::fs::write(&path, &text).unwrap();
        let expected: Vec<String> = text.lines().map(str::to_owned).collect();
        prop_assert_eq!(lines_of(&path, text.len() as u64, parts), expected);
    }
}

#[test]
fn ranges_split_bytes_evenly_across_files() {
    let files = [(PathBuf::from("a"), 10), (PathBuf::from("b"), 5)];
    let parts = split(&files, 2);
    let sizes: Vec<u64> = parts
        .iter()
        .map(|p| p.iter().map(|r| r.end - r.start).sum())
        .collect();
    assert_eq!(sizes, vec![8, 7]);
    assert_eq!(
        parts[1][0],
        FileRange {
            path: "a".into(),
            start: 8,
            end: 10
        }
    );
}

#[test]
fn words_are_alphanumeric_runs_lowercased() {
    let mut words = Vec::new();
    tokenize(
        "The cat's 2nd HAT, Ünïcode-Straße!\n\tend".as_bytes(),
        |w| words.push(w.to_owned()),
    );
    assert_eq!(
        words,
        ["the", "cat", "s", "2nd", "hat", "ünïcode", "straße", "end"]
    );
}
