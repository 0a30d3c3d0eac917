//! `LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]` (Redis
//! 7.2's `lcsCommand`): the longest common subsequence of two strings, its
//! length, or the matched ranges, found with Redis's dynamic programming
//! table and walked back the way Redis walks it, so every answer is
//! Redis's.
//!
//! In Redis's order: both keys are read (a missing one is empty, one of
//! another type refuses the command) before the options are parsed; `LEN`
//! with `IDX` refuses; a string of `u32::MAX - 1` bytes or more refuses;
//! and a table of more than `proto-max-bulk-len` bytes (four per cell,
//! `(len1 + 1) * (len2 + 1)` cells) refuses, so memory stays bounded by
//! that setting (512 MiB at most); the table is allocated fallibly. `LEN`
//! alone needs only two rows of it, and is computed so.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::number::parse_i64;
use crate::reply::{RespError, SortError};
use crate::writer::ReplyWriter;

/// The two strings, read together (both keys' shards held).
struct Pair<'k>(&'k [u8], &'k [u8]);

impl Atomic for Pair<'_> {
    type Output = Result<(Vec<u8>, Vec<u8>), RespError>;

    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let mut read = |key: &[u8]| {
            store.get(key, |item| {
                (item.kind == ValueKind::String).then(|| item.value.to_vec())
            })
        };
        match (read(self.0), read(self.1)) {
            (Some(None), _) | (_, Some(None)) => Err(SortError::LcsNotStrings.into()),
            (a, b) => Ok((
                a.flatten().unwrap_or_default(),
                b.flatten().unwrap_or_default(),
            )),
        }
    }
}

/// The options after the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Options {
    len: bool,
    idx: bool,
    with_match_len: bool,
    /// At least 0 (a negative one counts as 0).
    min_match_len: i64,
}

fn parse(args: &Args<'_>) -> Result<Options, RespError> {
    let is = |word: &[u8], name: &[u8]| {
        let end = word.iter().position(|&b| b == 0).unwrap_or(word.len());
        word[..end].eq_ignore_ascii_case(name)
    };
    let mut options = Options::default();
    let mut j = 3;
    while j < args.len() {
        let word = args.get(j);
        let more = args.len() - 1 - j;
        if is(word, b"idx") {
            options.idx = true;
        } else if is(word, b"len") {
            options.len = true;
        } else if is(word, b"withmatchlen") {
            options.with_match_len = true;
        } else if is(word, b"minmatchlen") && more > 0 {
            let n = parse_i64(args.get(j + 1)).ok_or(RespError::NotInteger)?;
            options.min_match_len = n.max(0);
            j += 1;
        } else {
            return Err(RespError::Syntax);
        }
        j += 1;
    }
    if options.len && options.idx {
        return Err(SortError::LcsLenAndIdx.into());
    }
    Ok(options)
}

/// Refuses strings too long or a table larger than `max_table` bytes (or
/// than memory can hold), as Redis checks before allocating it; the number
/// of cells otherwise.
fn table_cells(a: &[u8], b: &[u8], max_table: usize) -> Result<usize, SortError> {
    let limit = u64::from(u32::MAX - 1);
    if a.len() as u64 >= limit || b.len() as u64 >= limit {
        return Err(SortError::LcsTooLong);
    }
    let cells = (a.len() as u64 + 1) * (b.len() as u64 + 1);
    let bytes = cells.checked_mul(4).ok_or(SortError::LcsNoMemory)?;
    if bytes > max_table as u64 {
        return Err(SortError::LcsOverBulkLimit);
    }
    usize::try_from(cells).map_err(|_| SortError::LcsNoMemory)
}

/// The length of the longest common subsequence, two rows at a time.
fn length(a: &[u8], b: &[u8]) -> u32 {
    let mut prev = vec![0u32; b.len() + 1];
    let mut row = vec![0u32; b.len() + 1];
    for &x in a {
        for (j, &y) in b.iter().enumerate() {
            row[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(row[j])
            };
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

/// Redis's table: cell `(i, j)` at `j + i * (b.len() + 1)` holds the
/// length of the longest common subsequence of `a[..i]` and `b[..j]`.
fn table(a: &[u8], b: &[u8], cells: usize) -> Result<Vec<u32>, SortError> {
    let width = b.len() + 1;
    let mut t: Vec<u32> = Vec::new();
    t.try_reserve_exact(cells)
        .map_err(|_| SortError::LcsNoMemory)?;
    t.resize(cells, 0);
    for (i, &x) in a.iter().enumerate() {
        let (done, rest) = t.split_at_mut((i + 1) * width);
        let prev = &done[i * width..];
        let row = &mut rest[..width];
        for (j, &y) in b.iter().enumerate() {
            row[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(row[j])
            };
        }
    }
    Ok(t)
}

/// One matched range: `a[a.0..=a.1]` equals `b[b.0..=b.1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Match {
    a: (usize, usize),
    b: (usize, usize),
    len: usize,
}

/// Walks the table back from its last cell as Redis does: the common
/// subsequence, and the ranges of at least `min_len` (0: all) from the
/// last to the first.
fn walk(a: &[u8], b: &[u8], t: &[u32], min_len: i64) -> (Vec<u8>, Vec<Match>) {
    let width = b.len() + 1;
    let at = |i: usize, j: usize| t.get(j + i * width).copied().unwrap_or(0);
    let total = at(a.len(), b.len()) as usize;
    let mut result = vec![0u8; total];
    let mut matches = Vec::new();
    // `a_start == a.len()`: no range open.
    let (mut a_start, mut a_end, mut b_start, mut b_end) = (a.len(), 0, 0, 0);
    let (mut i, mut j, mut idx) = (a.len(), b.len(), total);
    while i > 0 && j > 0 {
        let mut emit = false;
        if a[i - 1] == b[j - 1] {
            if let Some(slot) = idx.checked_sub(1).and_then(|k| result.get_mut(k)) {
                *slot = a[i - 1];
            }
            if a_start == a.len() {
                (a_start, a_end, b_start, b_end) = (i - 1, i - 1, j - 1, j - 1);
            } else if a_start == i && b_start == j {
                a_start -= 1;
                b_start -= 1;
            } else {
                emit = true;
            }
            emit |= a_start == 0 || b_start == 0;
            idx = idx.saturating_sub(1);
            i -= 1;
            j -= 1;
        } else {
            if at(i - 1, j) > at(i, j - 1) {
                i -= 1;
            } else {
                j -= 1;
            }
            emit = a_start != a.len();
        }
        if emit {
            let len = a_end.wrapping_sub(a_start).wrapping_add(1);
            if min_len == 0 || len as i64 >= min_len {
                matches.push(Match {
                    a: (a_start, a_end),
                    b: (b_start, b_end),
                    len,
                });
            }
            a_start = a.len();
        }
    }
    (result, matches)
}

/// Runs `LCS`.
pub fn lcs<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (k1, k2) = (args.get(1), args.get(2));
    let (a, b) = atomically(ctx, &[k1, k2], Pair(k1, k2))?;
    let options = parse(&args)?;
    let cells = table_cells(&a, &b, ctx.shared.max_bulk())?;
    if options.len {
        out.integer(i64::from(length(&a, &b)));
        return Ok(());
    }
    let t = table(&a, &b, cells)?;
    let (result, matches) = walk(&a, &b, &t, options.min_match_len);
    drop(t);
    if !options.idx {
        out.bulk(&result);
        return Ok(());
    }
    out.map(2);
    out.bulk(b"matches");
    out.array(matches.len());
    for m in &matches {
        out.array(2 + usize::from(options.with_match_len));
        for (start, end) in [m.a, m.b] {
            out.array(2);
            out.integer(start as i64);
            out.integer(end as i64);
        }
        if options.with_match_len {
            out.integer(m.len as i64);
        }
    }
    out.bulk(b"len");
    out.integer(result.len() as i64);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcs_of(a: &str, b: &str, min_len: i64) -> (String, Vec<Match>) {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        let cells = table_cells(a, b, usize::MAX).expect("fits");
        let t = table(a, b, cells).expect("allocates");
        let (s, m) = walk(a, b, &t, min_len);
        assert_eq!(
            length(a, b) as usize,
            s.len(),
            "two rows agree with the table"
        );
        (String::from_utf8(s).expect("utf-8"), m)
    }

    fn m(a: (usize, usize), b: (usize, usize)) -> Match {
        Match {
            a,
            b,
            len: a.1 - a.0 + 1,
        }
    }

    #[test]
    fn redis_documentation_example() {
        let (s, matches) = lcs_of("ohmytext", "mynewtext", 0);
        assert_eq!(s, "mytext");
        assert_eq!(matches, vec![m((4, 7), (5, 8)), m((2, 3), (0, 1))]);
        let (_, matches) = lcs_of("ohmytext", "mynewtext", 4);
        assert_eq!(matches, vec![m((4, 7), (5, 8))]);
    }

    /// Redis's own test (`tests/unit/type/string.tcl`).
    #[test]
    fn redis_rna_test() {
        let rna1 = "CACCTTCCCAGGTAACAAACCAACCAACTTTCGATCTCTTGTAGATCTGTTCTCTAAACGAACTTTAAAATCTGTGTGGCTGTCACTCGGCTGCATGCTTAGTGCACTCACGCAGTATAATTAATAACTAATTACTGTCGTTGACAGGACACGAGTAACTCGTCTATCTTCTGCAGGCTGCTTACGGTTTCGTCCGTGTTGCAGCCGATCATCAGCACATCTAGGTTTCGTCCGGGTGTG";
        let rna2 = "ATTAAAGGTTTATACCTTCCCAGGTAACAAACCAACCAACTTTCGATCTCTTGTAGATCTGTTCTCTAAACGAACTTTAAAATCTGTGTGGCTGTCACTCGGCTGCATGCTTAGTGCACTCACGCAGTATAATTAATAACTAATTACTGTCGTTGACAGGACACGAGTAACTCGTCTATCTTCTGCAGGCTGCTTACGGTTTCGTCCGTGTTGCAGCCGATCATCAGCACATCTAGGTTT";
        let want = "ACCTTCCCAGGTAACAAACCAACCAACTTTCGATCTCTTGTAGATCTGTTCTCTAAACGAACTTTAAAATCTGTGTGGCTGTCACTCGGCTGCATGCTTAGTGCACTCACGCAGTATAATTAATAACTAATTACTGTCGTTGACAGGACACGAGTAACTCGTCTATCTTCTGCAGGCTGCTTACGGTTTCGTCCGTGTTGCAGCCGATCATCAGCACATCTAGGTTT";
        let (s, matches) = lcs_of(rna1, rna2, 0);
        assert_eq!(s, want);
        let expected = vec![
            m((238, 238), (239, 239)),
            m((236, 236), (238, 238)),
            m((229, 230), (236, 237)),
            m((224, 224), (235, 235)),
            m((1, 222), (13, 234)),
        ];
        assert_eq!(matches, expected);
        assert_eq!(matches[4].len, 222);
        let (_, long) = lcs_of(rna1, rna2, 5);
        assert_eq!(long, vec![m((1, 222), (13, 234))]);
    }

    #[test]
    fn empty_and_disjoint() {
        assert_eq!(lcs_of("", "abc", 0), (String::new(), vec![]));
        assert_eq!(lcs_of("abc", "", 0), (String::new(), vec![]));
        assert_eq!(lcs_of("abc", "xyz", 0), (String::new(), vec![]));
        let (s, matches) = lcs_of("abc", "abc", 0);
        assert_eq!(s, "abc");
        assert_eq!(matches, vec![m((0, 2), (0, 2))]);
    }

    #[test]
    fn the_table_is_bounded_before_it_is_made() {
        let a = vec![b'a'; 1023];
        assert_eq!(table_cells(&a, &a, 4 << 20), Ok(1 << 20));
        assert_eq!(
            table_cells(&a, &a, (4 << 20) - 1),
            Err(SortError::LcsOverBulkLimit)
        );
        assert_eq!(table_cells(b"", b"", 4), Ok(1));
        assert_eq!(table_cells(b"", b"", 3), Err(SortError::LcsOverBulkLimit));
    }

    fn parsed(line: &str) -> Result<Options, RespError> {
        let words: Vec<&[u8]> = line.split(' ').map(str::as_bytes).collect();
        let buf = words.concat();
        let mut ranges = Vec::new();
        let mut at = 0;
        for w in &words {
            ranges.push((at, at + w.len()));
            at += w.len();
        }
        parse(&Args::new(&buf, &ranges))
    }

    #[test]
    fn options() {
        let o = parsed("lcs a b idx withmatchlen minmatchlen -3 MinMatchLen 4").expect("ok");
        assert!(o.idx && o.with_match_len && !o.len);
        assert_eq!(o.min_match_len, 4);
        assert_eq!(
            parsed("lcs a b minmatchlen -3").map(|o| o.min_match_len),
            Ok(0)
        );
        assert_eq!(parsed("lcs a b minmatchlen"), Err(RespError::Syntax));
        assert_eq!(parsed("lcs a b minmatchlen x"), Err(RespError::NotInteger));
        assert_eq!(parsed("lcs a b bogus"), Err(RespError::Syntax));
        assert_eq!(
            parsed("lcs a b len idx"),
            Err(SortError::LcsLenAndIdx.into())
        );
        assert_eq!(
            parsed("lcs a b len bogus idx"),
            Err(RespError::Syntax),
            "a bad option is seen before the combination"
        );
    }
}
