//! The slow log lines: `tracing` events on [`TARGET`](super::TARGET) with
//! Elasticsearch's fields (`took` as a time value, `took_millis`,
//! `total_hits` as "N hits", `search_type`, `total_shards`, `source`; for
//! indexing `id` and the source cut to `index.indexing.slowlog.source`
//! characters).

use std::time::Duration;

use tracing::Level;

/// How long a search's phases took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchTook {
    /// The query phase: matching, ranking, counting, aggregating.
    pub query: Duration,
    /// The fetch phase: loading and serializing the page's hits.
    pub fetch: Duration,
}

/// One search phase over one index that reached a threshold.
#[derive(Debug)]
pub struct SearchEvent<'a> {
    /// The index.
    pub index: &'a str,
    /// `query` or `fetch`.
    pub phase: &'static str,
    /// How long the phase took.
    pub took: Duration,
    /// Hits of the search.
    pub total_hits: u64,
    /// Shards of the index.
    pub total_shards: usize,
    /// The request body, as JSON text.
    pub source: &'a str,
}

/// One indexing operation that reached a threshold.
#[derive(Debug)]
pub struct IndexEvent<'a> {
    /// The index.
    pub index: &'a str,
    /// The index's uuid (Elasticsearch's message names `[index/uuid]`).
    pub uuid: &'a str,
    /// The document id.
    pub id: &'a str,
    /// How long indexing took.
    pub took: Duration,
    /// The source as shown (already cut).
    pub source: &'a str,
}

/// Elasticsearch's time value form of `took` (`12.3ms`, `1.2s`).
pub fn time_value(took: Duration) -> String {
    let nanos = took.as_nanos() as f64;
    let (value, unit) = if nanos >= 1e9 {
        (nanos / 1e9, "s")
    } else if nanos >= 1e6 {
        (nanos / 1e6, "ms")
    } else if nanos >= 1e3 {
        (nanos / 1e3, "micros")
    } else {
        (nanos, "nanos")
    };
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{}{unit}", rounded as u64)
    } else {
        format!("{rounded}{unit}")
    }
}

/// Emits `$fields` at `$level` (a runtime [`Level`]; `tracing` wants a
/// constant per call site).
macro_rules! at_level {
    ($level:expr, $($fields:tt)*) => {
        match $level {
            Level::ERROR | Level::WARN => tracing::warn!(target: "strata::slowlog", $($fields)*),
            Level::INFO => tracing::info!(target: "strata::slowlog", $($fields)*),
            Level::DEBUG => tracing::debug!(target: "strata::slowlog", $($fields)*),
            _ => tracing::trace!(target: "strata::slowlog", $($fields)*),
        }
    };
}

/// Logs a slow search phase.
pub fn search(level: Level, e: &SearchEvent<'_>) {
    at_level!(
        level,
        slowlog = "search",
        index = e.index,
        phase = e.phase,
        took = %time_value(e.took),
        took_millis = e.took.as_millis() as u64,
        total_hits = %format_args!("{} hits", e.total_hits),
        search_type = "QUERY_THEN_FETCH",
        total_shards = e.total_shards,
        source = e.source,
        "[{}] {} phase took {}", e.index, e.phase, time_value(e.took)
    );
}

/// Logs a slow indexing operation.
pub fn index(level: Level, e: &IndexEvent<'_>) {
    at_level!(
        level,
        slowlog = "index",
        index = e.index,
        took = %time_value(e.took),
        took_millis = e.took.as_millis() as u64,
        id = e.id,
        source = e.source,
        "[{}/{}] indexing took {}", e.index, e.uuid, time_value(e.took)
    );
}

/// The source as an indexing line shows it: at most `chars` characters,
/// on one line when `reformat` (newlines and the spaces after them
/// dropped, as a compact JSON rendering would).
pub fn shown_source(source: &[u8], chars: usize, reformat: bool) -> String {
    if chars == 0 {
        return String::new();
    }
    let text = String::from_utf8_lossy(source);
    let one_line: String = if reformat {
        let mut out = String::with_capacity(text.len().min(chars.saturating_mul(4)));
        let mut after_newline = false;
        for c in text.chars() {
            match c {
                '\n' | '\r' => after_newline = true,
                ' ' | '\t' if after_newline => {}
                c => {
                    after_newline = false;
                    out.push(c);
                }
            }
            if out.len() > chars.saturating_mul(4) {
                break;
            }
        }
        out
    } else {
        text.into_owned()
    };
    one_line.chars().take(chars).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_values() {
        assert_eq!(time_value(Duration::from_millis(1500)), "1.5s");
        assert_eq!(time_value(Duration::from_millis(12)), "12ms");
        assert_eq!(time_value(Duration::from_micros(12_345)), "12.3ms");
        assert_eq!(time_value(Duration::from_nanos(800)), "800nanos");
    }

    #[test]
    fn sources_are_cut_and_reformatted() {
        let src = b"{\n  \"a\": 1,\n  \"b\": \"x y\"\n}";
        assert_eq!(shown_source(src, 1000, true), "{\"a\": 1,\"b\": \"x y\"}");
        assert_eq!(shown_source(src, 5, true), "{\"a\":");
        assert_eq!(shown_source(src, 0, true), "");
        assert_eq!(shown_source(src, 1000, false), String::from_utf8_lossy(src));
        assert_eq!(shown_source("ééé".as_bytes(), 2, false), "éé");
    }
}
