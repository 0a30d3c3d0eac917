//! A job's input: a file or a directory of files, its format (from the
//! extension unless given), checked before the engine starts so that a
//! missing or empty input is a clear error, and registered as a table.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use datafusion::catalog::streaming::StreamingTable;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::prelude::{CsvReadOptions, ParquetReadOptions, SessionContext};
use serde::Serialize;

use super::text::{split, TextSource, TextTable};
use crate::error::AnalyticsError;

/// The format of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// From the extension: `.csv` and `.tsv` are CSV, `.parquet` is
    /// Parquet, anything else is text.
    #[default]
    Auto,
    /// Comma-separated values (with a header line unless `--no-header`).
    Csv,
    /// Tab-separated values.
    Tsv,
    /// Apache Parquet.
    Parquet,
    /// Lines of text.
    Text,
}

/// A checked input.
#[derive(Debug, Clone, Serialize)]
pub struct Input {
    /// As given.
    pub path: PathBuf,
    /// The format, resolved.
    pub format: InputFormat,
    /// The files and their sizes (one for a file; a directory's regular,
    /// non-hidden files, sorted).
    #[serde(skip)]
    pub files: Vec<(PathBuf, u64)>,
    /// Total bytes.
    pub bytes: u64,
    /// CSV/TSV: the first line names the columns.
    pub header: bool,
}

impl Input {
    /// Checks that `path` exists and holds at least one non-empty file,
    /// and resolves the format.
    pub fn open(path: &Path, format: InputFormat, header: bool) -> Result<Input, AnalyticsError> {
        let problem = |reason: String| AnalyticsError::Input {
            path: path.to_path_buf(),
            reason,
        };
        let metadata = std::fs::metadata(path).map_err(|e| problem(e.to_string()))?;
        let mut files = Vec::new();
        if metadata.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|e| problem(e.to_string()))?;
            for entry in entries {
                let entry = entry.map_err(|e| problem(e.to_string()))?;
                let hidden = entry.file_name().to_string_lossy().starts_with(['.', '_']);
                let meta = entry.metadata().map_err(|e| problem(e.to_string()))?;
                if meta.is_file() && !hidden {
                    files.push((entry.path(), meta.len()));
                }
            }
            files.sort();
        } else if metadata.is_file() {
            files.push((path.to_path_buf(), metadata.len()));
        } else {
            return Err(problem("neither a file nor a directory".into()));
        }
        // Readable now, not half-way through the job.
        for (file, _) in &files {
            std::fs::File::open(file).map_err(|e| problem(format!("{}: {e}", file.display())))?;
        }
        let bytes: u64 = files.iter().map(|(_, size)| size).sum();
        if bytes == 0 {
            return Err(problem(match files.is_empty() {
                true => "the directory holds no files".into(),
                false => "empty".into(),
            }));
        }
        let format = match format {
            InputFormat::Auto => {
                let first = &files[0].0;
                let ext = first.extension().and_then(|e| e.to_str()).unwrap_or("");
                match ext.to_ascii_lowercase().as_str() {
                    "csv" => InputFormat::Csv,
                    "tsv" => InputFormat::Tsv,
                    "parquet" => InputFormat::Parquet,
                    _ => InputFormat::Text,
                }
            }
            given => given,
        };
        Ok(Input {
            path: path.to_path_buf(),
            format,
            files,
            bytes,
            header,
        })
    }

    /// Registers the input as table `name`: CSV and Parquet through
    /// DataFusion's readers, text as a table of `line`s. Text reading
    /// counts its bytes into `progress`.
    pub async fn register(
        &self,
        ctx: &SessionContext,
        name: &str,
        partitions: usize,
        progress: Arc<AtomicU64>,
    ) -> Result<(), AnalyticsError> {
        let path = self.path.to_string_lossy();
        let extension = self.files[0]
            .0
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let registered = match self.format {
            InputFormat::Csv | InputFormat::Tsv => {
                let delimiter = if self.format == InputFormat::Tsv {
                    b'\t'
                } else {
                    b','
                };
                let options = CsvReadOptions::new()
                    .has_header(self.header)
                    .delimiter(delimiter)
                    .file_extension(&extension);
                ctx.register_csv(name, &*path, options).await
            }
            InputFormat::Parquet => {
                let options = ParquetReadOptions::default().file_extension(&extension);
                ctx.register_parquet(name, &*path, options).await
            }
            InputFormat::Text | InputFormat::Auto => {
                let table = self.text_table(TextTable::Lines, partitions, 8192, progress)?;
                ctx.register_table(name, Arc::new(table)).map(|_| ())
            }
        };
        registered.map_err(|e| AnalyticsError::from_engine(e, &self.path))
    }

    /// The input's text as a table of words or lines, `partitions` ways.
    pub fn text_table(
        &self,
        table: TextTable,
        partitions: usize,
        batch_rows: usize,
        progress: Arc<AtomicU64>,
    ) -> Result<StreamingTable, AnalyticsError> {
        let sources = split(&self.files, partitions)
            .into_iter()
            .map(|ranges| {
                Arc::new(TextSource::new(table, ranges, batch_rows, progress.clone()))
                    as Arc<dyn PartitionStream>
            })
            .collect();
        StreamingTable::try_new(table.schema(), sources)
            .map_err(|e| AnalyticsError::Engine(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_checked_and_their_format_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Input::open(&dir.path().join("nope.csv"), InputFormat::Auto, true);
        assert!(missing.unwrap_err().to_string().contains("nope.csv"));
        let empty = dir.path().join("empty.txt");
        std::fs::write(&empty, "").unwrap();
        let error = Input::open(&empty, InputFormat::Auto, true).unwrap_err();
        assert!(error.to_string().ends_with("empty"), "{error}");
        let sub = dir.path().join("d");
        std::fs::create_dir(&sub).unwrap();
        let error = Input::open(&sub, InputFormat::Auto, true).unwrap_err();
        assert!(error.to_string().contains("no files"), "{error}");
        std::fs::write(sub.join("b.csv"), "x\n1\n").unwrap();
        std::fs::write(sub.join("a.csv"), "x\n2\n").unwrap();
        std::fs::write(sub.join(".hidden"), "junk").unwrap();
        let input = Input::open(&sub, InputFormat::Auto, true).unwrap();
        assert_eq!(input.format, InputFormat::Csv);
        assert_eq!(input.files.len(), 2);
        assert!(input.files[0].0.ends_with("a.csv"));
        assert_eq!(input.bytes, 8);
        std::fs::write(dir.path().join("t.log"), "hello").unwrap();
        let text = Input::open(&dir.path().join("t.log"), InputFormat::Auto, true).unwrap();
        assert_eq!(text.format, InputFormat::Text);
    }
}
