//! The human report of a `bench eventdata` run, printed on stdout.

use std::fmt::Write as _;

use super::{CountCheck, EventdataResult, KindStats, QueryStats};
use crate::eventdata::stats::{ErrorTally, RateSecond};
use crate::eventdata::timestamp::iso;
use crate::kv::LatencySummary;

const LATENCY_HEADER: &str = "      p50      p90      p99     p99.9      max";

fn latency(l: &LatencySummary) -> String {
    format!(
        "{:>9.1}{:>9.1}{:>9.1}{:>10.1}{:>9.1}",
        l.p50, l.p90, l.p99, l.p999, l.max
    )
}

fn errors(out: &mut String, what: &str, e: &ErrorTally) {
    // Writing to a String cannot fail.
    let _ = match &e.first {
        Some(first) => writeln!(out, "{what}: {} (first: {first})", e.count),
        None => writeln!(out, "{what}: {}", e.count),
    };
}

fn count(out: &mut String, c: &CountCheck) {
    let _ = match (c.actual, &c.error) {
        (Some(n), _) if n == c.expected => writeln!(out, "_count: {n} as expected"),
        (Some(n), _) => writeln!(out, "_count: {n}, EXPECTED {} (MISMATCH)", c.expected),
        (None, e) => writeln!(out, "_count: unreadable ({})", e.as_deref().unwrap_or("?")),
    };
}

fn timeline(out: &mut String, rows: &[RateSecond]) {
    if rows.is_empty() {
        return;
    }
    let rates: Vec<String> = rows
        .iter()
        .map(|r| format!("{:.0}", r.docs_per_sec))
        .collect();
    let _ = writeln!(out, "docs/s per second: {}", rates.join(" "));
}

fn queries(out: &mut String, rows: &[QueryStats], kinds: &[KindStats]) {
    let _ = writeln!(
        out,
        "{:<15}{:<14}{:>6}{:>7}{LATENCY_HEADER}    first  slowest   (ms per dashboard msearch; slowest: run number from 0)",
        "dashboard", "window", "runs", "errors"
    );
    for q in rows {
        let first = q.first_run_ms.map_or("-".into(), |ms| format!("{ms:.1}"));
        let slowest = q.slowest_run.map_or("-".into(), |n| n.to_string());
        let _ = writeln!(
            out,
            "{:<15}{:<14}{:>6}{:>7}{}{:>9}{:>9}",
            q.dashboard,
            q.window,
            q.runs,
            q.errors.count,
            latency(&q.latency_ms),
            first,
            slowest
        );
    }
    for k in kinds {
        let kind = format!("{:?}", k.kind).to_lowercase();
        let _ = writeln!(
            out,
            "{:<15}{:<14}{:>6}{:>7}{}",
            "all",
            kind,
            k.runs,
            "",
            latency(&k.latency_ms)
        );
    }
}

/// The report: configuration, then each phase that ran, then notes.
pub fn render(r: &EventdataResult) -> String {
    let c = &r.config;
    let mut out = String::new();
    let server = match (&r.server.name, &r.server.version) {
        (Some(name), Some(version)) => format!("{name} {version}"),
        (_, Some(version)) => version.clone(),
        _ => "unknown server".to_owned(),
    };
    let _ = writeln!(
        out,
        "bench eventdata: {} ({server}), index {} ({} shards, refresh {}, durability {}), seed {}",
        c.url,
        c.index,
        c.shards,
        c.refresh_interval,
        c.durability.name(),
        c.seed
    );
    let _ = writeln!(
        out,
        "setup: {}{}, {} documents before",
        if r.setup.deleted { "deleted, " } else { "" },
        if r.setup.created {
            "created"
        } else {
            "existing index"
        },
        r.setup.docs_before
    );
    if let Some(i) = &r.index {
        let _ = writeln!(
            out,
            "\nindex: {} clients x {} docs/bulk: {} of {} documents in {:.2} s = {:.0} docs/s ({} bulks)",
            c.clients, c.bulk_size, i.docs_indexed, i.docs_sent, i.elapsed_secs, i.docs_per_sec, i.bulks
        );
        let _ = writeln!(out, "{:<42}{LATENCY_HEADER}", "bulk latency (ms)");
        let _ = writeln!(out, "{:<42}{}", "", latency(&i.bulk_latency_ms));
        errors(&mut out, "documents not indexed", &i.errors);
        count(&mut out, &i.count);
        let store = i
            .store_size_bytes
            .map_or("n/a".into(), |b| format!("{:.1} MiB", b as f64 / 1048576.0));
        let segments = i.segments.map_or("n/a".into(), |s| s.to_string());
        let _ = writeln!(out, "store: {store}, segments: {segments}");
        timeline(&mut out, &i.timeline);
    }
    if let Some(q) = &r.query {
        let _ = writeln!(
            out,
            "\nquery: data from {} to {}, {} iterations, {:.1} s",
            iso(q.oldest_ms),
            iso(q.newest_ms),
            c.query_iterations,
            q.elapsed_secs
        );
        queries(&mut out, &q.queries, &q.by_kind);
        errors(&mut out, "failed searches", &q.errors);
    }
    if let Some(m) = &r.mixed {
        let _ = writeln!(
            out,
            "\nmixed: target {:.0} docs/s, achieved {:.0} docs/s ({} documents in {:.1} s) while querying",
            m.target_docs_per_sec, m.achieved_docs_per_sec, m.docs_indexed, m.elapsed_secs
        );
        let _ = writeln!(out, "{:<42}{LATENCY_HEADER}", "bulk latency (ms)");
        let _ = writeln!(out, "{:<42}{}", "", latency(&m.bulk_latency_ms));
        errors(&mut out, "documents not indexed", &m.index_errors);
        queries(&mut out, &m.queries, &m.by_kind);
        errors(&mut out, "failed searches", &m.query_errors);
        count(&mut out, &m.count);
        timeline(&mut out, &m.timeline);
    }
    if !r.notes.is_empty() {
        let _ = writeln!(out, "\nnotes:");
        for note in &r.notes {
            let _ = writeln!(out, "- {note}");
        }
    }
    out
}
