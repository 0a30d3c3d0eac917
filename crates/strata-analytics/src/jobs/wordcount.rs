//! `strata job wordcount`: the seed's word count. The input's words (one
//! partition per core, [`TextTable::Words`]) are grouped and counted by
//! DataFusion's hash aggregation, which spills to the SSD tier when the
//! budget's pool refuses it memory; the counts stream out once, into the
//! top N, the totals and, if asked, a CSV file of every count.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::Int64Type;
use futures::StreamExt;
use serde::Serialize;

use super::args::WordcountArgs;
use super::input::Input;
use super::progress::{follow, Unit};
use super::run::JobRun;
use super::text::TextTable;
use crate::error::AnalyticsError;

/// Rows per batch of words.
const BATCH_ROWS: usize = 8192;

/// A word and its count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WordCount {
    /// The word.
    pub word: String,
    /// Its occurrences.
    pub count: u64,
}

/// What a word count finds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WordcountResult {
    /// The most frequent words, most frequent first (ties by word).
    pub top: Vec<WordCount>,
    /// Distinct words.
    pub distinct_words: u64,
    /// Words in all.
    pub total_words: u64,
}

/// Runs the word count of `input`.
pub async fn wordcount(
    run: &mut JobRun,
    input: &Input,
    args: &WordcountArgs,
) -> Result<WordcountResult, AnalyticsError> {
    let engine_error = |e| AnalyticsError::from_engine(e, &input.path);
    let read = Arc::new(AtomicU64::new(0));
    let table = input.text_table(
        TextTable::Words,
        run.engine.partitions,
        BATCH_ROWS,
        read.clone(),
    )?;
    let ctx = run.engine.ctx.clone();
    ctx.register_table("words", Arc::new(table))
        .map_err(engine_error)?;
    let frame = ctx
        .sql("SELECT word, count(*) AS count FROM words GROUP BY word")
        .await
        .map_err(engine_error)?;
    let bar = run.stage("count", Unit::Bytes(input.bytes));
    follow(&bar, read);
    let mut counts = frame.execute_stream().await.map_err(engine_error)?;
    let mut output = match &args.output {
        Some(path) => Some(BufWriter::new(File::create(path).map_err(|e| {
            AnalyticsError::io(format!("creating {}", path.display()), e)
        })?)),
        None => None,
    };
    let write_error =
        |e: std::io::Error| AnalyticsError::io("writing the word counts".to_string(), e);
    if let Some(out) = &mut output {
        writeln!(out, "word,count").map_err(write_error)?;
    }
    let mut top = TopWords::new(args.top);
    let (mut distinct, mut total) = (0u64, 0u64);
    let mut emitting = false;
    while let Some(batch) = counts.next().await {
        let batch = batch.map_err(engine_error)?;
        if !emitting {
            // The aggregation emits only after reading all of its input.
            emitting = true;
            let bar = run.stage("emit", Unit::Rows);
            bar.set_message("counts");
        }
        let words = batch.column(0).as_string_view();
        let numbers = batch.column(1).as_primitive::<Int64Type>();
        for row in 0..batch.num_rows() {
            let (word, count) = (words.value(row), numbers.value(row) as u64);
            distinct += 1;
            total += count;
            top.offer(word, count);
            if let Some(out) = &mut output {
                writeln!(out, "{word},{count}").map_err(write_error)?;
            }
        }
    }
    if let Some(mut out) = output {
        out.flush().map_err(write_error)?;
    }
    run.end_stage();
    Ok(WordcountResult {
        top: top.into_sorted(),
        distinct_words: distinct,
        total_words: total,
    })
}

/// The `n` most frequent words seen so far: a min-heap on (count, word
/// descending), so the entry to drop is on top.
pub struct TopWords {
    n: usize,
    heap: BinaryHeap<Reverse<(u64, Reverse<String>)>>,
}

impl TopWords {
    /// Keeps `n` words.
    pub fn new(n: usize) -> TopWords {
        TopWords {
            n,
            heap: BinaryHeap::with_capacity(n + 1),
        }
    }

    /// Considers `word` with `count`.
    pub fn offer(&mut self, word: &str, count: u64) {
        if self.n == 0 {
            return;
        }
        if self.heap.len() == self.n {
            let Reverse((least, Reverse(least_word))) = self.heap.peek().expect("n > 0 entries");
            if (count, Reverse(word)) <= (*least, Reverse(least_word.as_str())) {
                return;
            }
            self.heap.pop();
        }
        self.heap.push(Reverse((count, Reverse(word.to_owned()))));
    }

    /// Most frequent first; equal counts by word.
    pub fn into_sorted(self) -> Vec<WordCount> {
        let mut words: Vec<WordCount> = self
            .heap
            .into_iter()
            .map(|Reverse((count, Reverse(word)))| WordCount { word, count })
            .collect();
        words.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.word.cmp(&b.word)));
        words
    }
}

/// The result for a terminal.
pub fn render(result: &WordcountResult) -> String {
    let mut out = format!(
        "{} words, {} distinct; the {} most frequent:\n",
        result.total_words,
        result.distinct_words,
        result.top.len()
    );
    let width = result
        .top
        .iter()
        .map(|w| w.word.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    for entry in &result.top {
        out.push_str(&format!("{:<width$}  {}\n", entry.word, entry.count));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_words_keep_the_most_frequent_with_ties_by_word() {
        let mut top = TopWords::new(3);
        for (word, count) in [("d", 1), ("b", 5), ("c", 5), ("a", 5), ("e", 9), ("f", 2)] {
            top.offer(word, count);
        }
        let got: Vec<(String, u64)> = top
            .into_sorted()
            .into_iter()
            .map(|w| (w.word, w.count))
            .collect();
        assert_eq!(got, [("e".into(), 9), ("a".into(), 5), ("b".into(), 5)]);
        let mut none = TopWords::new(0);
        none.offer("x", 1);
        assert!(none.into_sorted().is_empty());
    }
}
