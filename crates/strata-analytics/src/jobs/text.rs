//! Text inputs: files cut into byte ranges, one set per partition, each
//! read as whole lines ([`LineChunks`]: a line belongs to the range its
//! first byte is in), and served to DataFusion as a table of words
//! (word count) or of lines (SQL over text) by [`TextSource`].

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringBuilder, StringViewBuilder};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::streaming::PartitionStream;

/// Bytes read from a file at a time.
const READ_SIZE: usize = 1 << 20;

/// A byte range of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRange {
    /// The file.
    pub path: PathBuf,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

/// Cuts `files` (path, size) into `parts` lists of ranges of about equal
/// bytes, in file order.
pub fn split(files: &[(PathBuf, u64)], parts: usize) -> Vec<Vec<FileRange>> {
    let parts = parts.max(1);
    let total: u64 = files.iter().map(|(_, size)| size).sum();
    let share = total.div_ceil(parts as u64).max(1);
    let mut out = vec![Vec::new(); parts];
    let (mut part, mut room) = (0, share);
    for (path, size) in files {
        let mut start = 0;
        while start < *size {
            let take = room.min(size - start);
            out[part].push(FileRange {
                path: path.clone(),
                start,
                end: start + take,
            });
            start += take;
            room -= take;
            if room == 0 && part + 1 < parts {
                part += 1;
                room = share;
            }
        }
    }
    out
}

/// The lines of a range, in chunks of whole lines (each chunk ends with
/// a newline, except maybe the file's last).
pub struct LineChunks {
    file: File,
    /// File offset of `buf[0]`.
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    eof: bool,
    done: bool,
    read: u64,
}

impl LineChunks {
    /// Opens `range`: skips the line that started before it.
    pub fn open(range: &FileRange) -> io::Result<LineChunks> {
        let mut file = File::open(&range.path)?;
        let mut chunks = LineChunks {
            pos: range.start,
            end: range.end,
            buf: Vec::with_capacity(READ_SIZE),
            eof: false,
            done: range.start >= range.end,
            read: 0,
            file: {
                file.seek(SeekFrom::Start(range.start.saturating_sub(1)))?;
                file
            },
        };
        if range.start > 0 && !chunks.done {
            chunks.pos = range.start - 1;
            // Drop bytes up to and including the first newline at or after
            // start - 1: that line is the previous range's.
            loop {
                if chunks.buf.is_empty() && !chunks.fill()? {
                    chunks.done = true;
                    break;
                }
                if let Some(i) = memchr(b'\n', &chunks.buf) {
                    chunks.buf.drain(..=i);
                    chunks.pos += i as u64 + 1;
                    break;
                }
                chunks.pos += chunks.buf.len() as u64;
                chunks.buf.clear();
            }
            if chunks.pos >= chunks.end {
                chunks.done = true;
            }
        }
        Ok(chunks)
    }

    /// Reads more into `buf`; false at the end of the file.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let old = self.buf.len();
        self.buf.resize(old + READ_SIZE, 0);
        let n = loop {
            match self.file.read(&mut self.buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.buf.truncate(old);
                    return Err(e);
                }
            }
        };
        self.buf.truncate(old + n);
        self.read += n as u64;
        self.eof = n == 0;
        Ok(n > 0)
    }

    /// Bytes read from the file so far.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// The next chunk of whole lines, `None` when the range is done.
    pub fn next_chunk(&mut self) -> io::Result<Option<Vec<u8>>> {
        while !self.done {
            if self.pos >= self.end {
                // The next line starts in the following range.
                self.done = true;
                break;
            }
            let buf_end = self.pos + self.buf.len() as u64;
            if buf_end >= self.end {
                // The line holding byte end - 1 is the range's last.
                let last = (self.end - 1 - self.pos) as usize;
                if let Some(i) = memchr(b'\n', &self.buf[last..]) {
                    let chunk = self.buf[..=last + i].to_vec();
                    self.done = true;
                    return Ok(Some(chunk));
                }
            } else if let Some(i) = memrchr(b'\n', &self.buf) {
                let rest = self.buf.split_off(i + 1);
                let chunk = std::mem::replace(&mut self.buf, rest);
                self.pos += chunk.len() as u64;
                return Ok(Some(chunk));
            }
            if !self.fill()? {
                self.done = true;
                let chunk = std::mem::take(&mut self.buf);
                return Ok((!chunk.is_empty()).then_some(chunk));
            }
        }
        Ok(None)
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

fn memrchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().rposition(|&b| b == needle)
}

/// Calls `word` for every word of `text`: maximal runs of alphanumeric
/// characters (Unicode), lowercased. Bytes that are not UTF-8 separate
/// words.
pub fn tokenize(text: &[u8], mut word: impl FnMut(&str)) {
    let text = String::from_utf8_lossy(text);
    let mut current = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            current.push(c.to_ascii_lowercase());
        } else if !c.is_ascii() && c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else if !current.is_empty() {
            word(&current);
            current.clear();
        }
    }
    if !current.is_empty() {
        word(&current);
    }
}

/// What a [`TextSource`] makes of its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextTable {
    /// One row per word: column `word`.
    Words,
    /// One row per line (without its line ending): column `line`.
    Lines,
}

impl TextTable {
    /// The table's schema.
    pub fn schema(self) -> SchemaRef {
        Arc::new(Schema::new(vec![match self {
            TextTable::Words => Field::new("word", DataType::Utf8View, false),
            TextTable::Lines => Field::new("line", DataType::Utf8, false),
        }]))
    }
}

/// One partition of a text table: its ranges, read on a blocking thread.
pub struct TextSource {
    table: TextTable,
    schema: SchemaRef,
    ranges: Vec<FileRange>,
    batch_rows: usize,
    /// Bytes read, shared by a job's partitions (its progress).
    progress: Arc<AtomicU64>,
}

impl TextSource {
    /// A partition reading `ranges`.
    pub fn new(
        table: TextTable,
        ranges: Vec<FileRange>,
        batch_rows: usize,
        progress: Arc<AtomicU64>,
    ) -> TextSource {
        TextSource {
            table,
            schema: table.schema(),
            ranges,
            batch_rows: batch_rows.max(1),
            progress,
        }
    }
}

impl fmt::Debug for TextSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TextSource({:?}, {} ranges)",
            self.table,
            self.ranges.len()
        )
    }
}

/// Builds batches of one column.
enum Column {
    Words(StringViewBuilder),
    Lines(StringBuilder),
}

impl Column {
    fn new(table: TextTable, rows: usize) -> Column {
        match table {
            TextTable::Words => Column::Words(StringViewBuilder::with_capacity(rows)),
            TextTable::Lines => Column::Lines(StringBuilder::with_capacity(rows, rows * 64)),
        }
    }

    fn push(&mut self, value: &str) {
        match self {
            Column::Words(b) => b.append_value(value),
            Column::Lines(b) => b.append_value(value),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Column::Words(b) => Arc::new(b.finish()),
            Column::Lines(b) => Arc::new(b.finish()),
        }
    }
}

impl PartitionStream for TextSource {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let mut builder = RecordBatchReceiverStreamBuilder::new(self.schema.clone(), 2);
        let tx = builder.tx();
        let (table, schema, ranges, batch_rows, progress) = (
            self.table,
            self.schema.clone(),
            self.ranges.clone(),
            self.batch_rows,
            self.progress.clone(),
        );
        builder.spawn_blocking(move || {
            let mut column = Column::new(table, batch_rows);
            let mut rows = 0;
            let send = |column: &mut Column, rows: &mut usize| -> bool {
                let batch = RecordBatch::try_new(schema.clone(), vec![column.finish()]);
                *rows = 0;
                tx.blocking_send(batch.map_err(Into::into)).is_ok()
            };
            for range in &ranges {
                let io = |e: io::Error| {
                    DataFusionError::IoError(io::Error::new(
                        e.kind(),
                        format!("reading {}: {e}", range.path.display()),
                    ))
                };
                let mut lines = LineChunks::open(range).map_err(io)?;
                let mut counted = 0;
                while let Some(chunk) = lines.next_chunk().map_err(io)? {
                    progress.fetch_add(lines.bytes_read() - counted, Ordering::Relaxed);
                    counted = lines.bytes_read();
                    let mut full = false;
                    let mut add = |value: &str| {
                        column.push(value);
                        rows += 1;
                        full |= rows >= batch_rows;
                    };
                    match table {
                        TextTable::Words => tokenize(&chunk, |w| {
                            add(w);
                        }),
                        TextTable::Lines => {
                            let text = String::from_utf8_lossy(&chunk);
                            for line in text.lines() {
                                add(line);
                            }
                        }
                    }
                    // Batches may run over `batch_rows` by one chunk's rows.
                    if full && !send(&mut column, &mut rows) {
                        return Ok(());
                    }
                }
            }
            if rows > 0 {
                send(&mut column, &mut rows);
            }
            Ok(())
        });
        builder.build()
    }
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
