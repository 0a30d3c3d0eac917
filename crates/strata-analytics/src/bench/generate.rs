//! The experiment's data, deterministic from a seed: text with a Zipfian
//! vocabulary for word count ([`write_text`]) and labelled points for
//! logistic regression ([`write_points`]), of a size given in bytes.
//!
//! The same seed and size give the same bytes on every machine: the
//! generator uses its own small PRNG ([`SplitMix64`]) and formats numbers
//! with a fixed number of decimals.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Words in the text's vocabulary unless a run asks for another size
/// (`--vocabulary`): word count's groups then take about 90 MiB whatever
/// the input's size, as in a text whose vocabulary stopped growing.
pub const VOCABULARY: usize = 200_000;

/// The Zipf exponent of the text's word frequencies (natural language is
/// close to 1).
pub const ZIPF_EXPONENT: f64 = 1.0;

/// Features of each labelled point.
pub const FEATURES: usize = 10;

/// A 64-bit PRNG (SplitMix64): tiny, fast, and fixed, so generated data
/// does not change with a dependency's version.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// Seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.next_f64();
        let v = self.next_f64();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// The word of rank `rank` (0 is the most frequent): the bijective
/// base-26 spelling of `rank + 1`, so every rank has its own word and the
/// frequent words are short, as in a natural language.
pub fn word(rank: usize) -> String {
    let mut n = rank + 1;
    let mut letters = Vec::new();
    while n > 0 {
        n -= 1;
        letters.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    letters.reverse();
    String::from_utf8(letters).expect("ASCII letters")
}

/// Draws ranks from a Zipf distribution over `n` ranks by inverting its
/// cumulative distribution (a binary search in a table of `n` floats).
pub struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    /// Ranks `0..n` with probability proportional to `1 / (rank + 1)^s`.
    pub fn new(n: usize, s: f64) -> Zipf {
        let mut total = 0.0;
        let mut cumulative = Vec::with_capacity(n);
        for rank in 0..n {
            total += 1.0 / ((rank + 1) as f64).powf(s);
            cumulative.push(total);
        }
        cumulative.iter_mut().for_each(|c| *c /= total);
        Zipf { cumulative }
    }

    /// One rank.
    pub fn sample(&self, rng: &mut SplitMix64) -> usize {
        let u = rng.next_f64();
        self.cumulative
            .partition_point(|&c| c <= u)
            .min(self.cumulative.len() - 1)
    }
}

/// Writes `size` bytes or a little more (whole lines) of text to `path`:
/// lines of 6 to 17 words drawn from a Zipfian vocabulary of `vocabulary`
/// words (at least 1), the first capitalised, a full stop at the end, now
/// and then a comma. Returns the bytes written.
pub fn write_text(path: &Path, size: u64, seed: u64, vocabulary: usize) -> io::Result<u64> {
    let vocabulary = vocabulary.max(1);
    let words: Vec<String> = (0..vocabulary).map(word).collect();
    let zipf = Zipf::new(vocabulary, ZIPF_EXPONENT);
    let mut rng = SplitMix64::new(seed);
    let mut out = Counted::new(path)?;
    let mut line = String::with_capacity(256);
    while out.written < size {
        line.clear();
        let count = 6 + rng.below(12);
        for i in 0..count {
            let w = &words[zipf.sample(&mut rng)];
            if i == 0 {
                let mut chars = w.chars();
                let first = chars.next().expect("words are not empty");
                line.push(first.to_ascii_uppercase());
                line.push_str(chars.as_str());
            } else {
                line.push(' ');
                line.push_str(w);
            }
            if i + 1 < count && rng.below(16) == 0 {
                line.push(',');
            }
        }
        line.push_str(".\n");
        out.write(line.as_bytes())?;
    }
    out.finish()
}

/// The weights labels are drawn from: alternating signs, shrinking.
pub fn true_weights() -> Vec<f64> {
    (0..FEATURES)
        .map(|j| if j % 2 == 0 { 1.0 } else { -1.0 } * 2.0 / (j + 1) as f64)
        .collect()
}

/// Writes `size` bytes or a little more of labelled points as CSV to
/// `path`: a header `label,x1,...,x10`, then rows of a 0/1 label and ten
/// standard normal features with 5 decimals; the label is 1 with the
/// logistic probability of the features under [`true_weights`]. Returns
/// the bytes written.
pub fn write_points(path: &Path, size: u64, seed: u64) -> io::Result<u64> {
    let weights = true_weights();
    let mut rng = SplitMix64::new(seed);
    let mut out = Counted::new(path)?;
    let header: Vec<String> = std::iter::once("label".to_string())
        .chain((1..=FEATURES).map(|j| format!("x{j}")))
        .collect();
    out.write(format!("{}\n", header.join(",")).as_bytes())?;
    let mut line = String::with_capacity(128);
    let mut x = [0.0; FEATURES];
    while out.written < size {
        line.clear();
        x.iter_mut().for_each(|v| *v = rng.normal());
        let z: f64 = x.iter().zip(&weights).map(|(a, b)| a * b).sum();
        let label = u8::from(rng.next_f64() < 1.0 / (1.0 + (-z).exp()));
        line.push_str(if label == 1 { "1" } else { "0" });
        for v in x {
            use std::fmt::Write as _;
            let _ = write!(line, ",{v:.5}");
        }
        line.push('\n');
        out.write(line.as_bytes())?;
    }
    out.finish()
}

/// A buffered file that counts what it was given.
struct Counted {
    file: BufWriter<File>,
    written: u64,
}

impl Counted {
    fn new(path: &Path) -> io::Result<Counted> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        Ok(Counted {
            file: BufWriter::with_capacity(1 << 20, File::create(path)?),
            written: 0,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.written += bytes.len() as u64;
        self.file.write_all(bytes)
    }

    fn finish(mut self) -> io::Result<u64> {
        self.file.flush()?;
        Ok(self.written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_distinct_and_frequent_ones_short() {
        assert_eq!(
            [word(0), word(25), word(26), word(27)],
            ["a", "z", "aa", "ab"]
        );
        let all: std::collections::HashSet<String> = (0..10_000).map(word).collect();
        assert_eq!(all.len(), 10_000);
    }

    #[test]
    fn zipf_ranks_follow_their_weights() {
        let zipf = Zipf::new(1000, 1.0);
        let mut rng = SplitMix64::new(7);
        let mut counts = vec![0u32; 1000];
        for _ in 0..200_000 {
            counts[zipf.sample(&mut rng)] += 1;
        }
        // Rank 0 is about twice rank 1 and ten times rank 9.
        let ratio = f64::from(counts[0]) / f64::from(counts[1]);
        assert!((1.8..2.2).contains(&ratio), "{ratio}");
        let ratio = f64::from(counts[0]) / f64::from(counts[9]);
        assert!((8.5..11.5).contains(&ratio), "{ratio}");
    }

    #[test]
    fn the_same_seed_gives_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
        for (kind, writer) in [
            (
                "text",
                (|p: &Path, n, seed| write_text(p, n, seed, VOCABULARY))
                    as fn(&Path, u64, u64) -> io::Result<u64>,
            ),
            ("points", write_points),
        ] {
            let a = writer(&dir.path().join(format!("{kind}-a")), 100_000, 42).unwrap();
            let b = writer(&dir.path().join(format!("{kind}-b")), 100_000, 42).unwrap();
            let c = writer(&dir.path().join(format!("{kind}-c")), 100_000, 43).unwrap();
            assert!((100_000..100_300).contains(&a), "{a}");
            assert_eq!(a, b);
            assert_eq!(read(&format!("{kind}-a")), read(&format!("{kind}-b")));
            assert_ne!(read(&format!("{kind}-a")), read(&format!("{kind}-c")));
            let _ = c;
        }
        let text = String::from_utf8(read("text-a")).unwrap();
        assert!(text.lines().all(|l| l.ends_with('.')));
        let points = String::from_utf8(read("points-a")).unwrap();
        let mut lines = points.lines();
        assert_eq!(
            lines.next().unwrap(),
            "label,x1,x2,x3,x4,x5,x6,x7,x8,x9,x10"
        );
        assert!(lines.all(|l| l.split(',').count() == 11));
    }

    #[test]
    fn text_draws_only_from_its_vocabulary() {
        let dir = tempfile::tempdir().unwrap();
        let distinct = |vocabulary: usize| {
            let path = dir.path().join(format!("text-{vocabulary}"));
            write_text(&path, 200_000, 3, vocabulary).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            let words: std::collections::HashSet<String> = text
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| !w.is_empty())
                .map(str::to_ascii_lowercase)
                .collect();
            words.len()
        };
        assert!(distinct(50) <= 50);
        // 200 KB of text is about 35,000 words: a larger vocabulary shows.
        let (small, large) = (distinct(1_000), distinct(1_000_000));
        assert!(small <= 1_000 && large > 5 * small, "{small} {large}");
    }
}
