//! The text `strata advise` prints: the workload, each recommendation with the
//! figures behind it, every alternative with its cost against the choice,
//! and what the results do not cover.

use std::fmt::Write as _;

use strata_units::human;

use super::answer::Recommendation;
use super::choice::{Advice, Considered, Restart};
use super::workload::{Skew, Workload};

/// The whole answer as text.
pub fn render(rec: &Recommendation) -> String {
    let mut out = String::new();
    workload(&mut out, &rec.workload);
    section(&mut out, "KV store: placement and persistence", &rec.kv);
    match &rec.search {
        Some(advice) => section(&mut out, "Search indices: tier", advice),
        None => {
            let _ = writeln!(
                out,
                "\n## Search indices: tier\n\nNot asked: give --search-index-size to get a tier."
            );
        }
    }
    if !rec.unreadable.is_empty() {
        let _ = writeln!(out, "\nResult files not read:");
        for u in &rec.unreadable {
            let _ = writeln!(out, "- {u}");
        }
    }
    out
}

fn workload(out: &mut String, w: &Workload) {
    let _ = writeln!(
        out,
        "# strata advise\n\nWorkload: {:.0}% reads, {} keys of {} B values ({} of keys and values), \
         {} keys, DRAM budget {}, persistent memory {}, durability: {:?}, restart time {}{}.",
        w.read_fraction * 100.0,
        w.keys,
        w.value_size,
        human(w.data_bytes()),
        match w.skew {
            Skew::Uniform => "uniform",
            Skew::Zipfian => "Zipfian",
        },
        human(w.dram_budget),
        if w.pmem_budget == 0 {
            "none".to_owned()
        } else {
            human(w.pmem_budget)
        },
        w.durability,
        match w.restart {
            super::workload::RestartWeight::Decides => "decides",
            super::workload::RestartWeight::Irrelevant => "does not matter",
        },
        w.search_index_bytes
            .map(|b| format!(", search indices {}", human(b)))
            .unwrap_or_default()
    );
}

fn section(out: &mut String, title: &str, advice: &Advice) {
    let _ = writeln!(out, "\n## {title}\n");
    for s in &advice.sources {
        let _ = writeln!(out, "From {s}");
    }
    if !advice.sources.is_empty() {
        out.push('\n');
    }
    match advice.choice() {
        Some(c) => {
            let _ = writeln!(
                out,
                "Recommended: {}  (strata serve {})\nWhy: {}.",
                c.name, c.flags, advice.because
            );
            describe(out, c, "  ");
        }
        None if advice.options.is_empty() => {
            let _ = writeln!(out, "No recommendation: the results do not cover it.");
        }
        None => {
            let _ = writeln!(out, "No recommendation: {}.", advice.because);
        }
    }
    let choice = advice.choice();
    let others: Vec<&Considered> = advice
        .options
        .iter()
        .filter(|o| choice.is_none_or(|c| c.name != o.name))
        .collect();
    if !others.is_empty() {
        let _ = writeln!(out, "\nAlternatives:");
        for o in others {
            let _ = write!(out, "- {}", o.name);
            match &o.excluded {
                Some(why) => {
                    let _ = writeln!(out, ": does not fit: {why}");
                }
                None => {
                    let _ = writeln!(out, "{}", cost(o, choice));
                }
            }
            describe(out, o, "    ");
        }
    }
    if !advice.not_covered.is_empty() {
        let _ = writeln!(out, "\nNot covered by the results (no guess made):");
        for n in &advice.not_covered {
            let _ = writeln!(out, "- {n}");
        }
    }
    if !advice.notes.is_empty() {
        let _ = writeln!(out, "\nNotes:");
        for n in &advice.notes {
            let _ = writeln!(out, "- {n}");
        }
    }
}

/// The alternative's cost against the choice: throughput and latency ratios.
fn cost(o: &Considered, choice: Option<&Considered>) -> String {
    let Some(c) = choice else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let (Some(a), Some(b)) = (&o.throughput, &c.throughput) {
        parts.push(format!("{:.2}x the throughput", a.value / b.value));
    }
    if let (Some(a), Some(b)) = (&o.latency, &c.latency) {
        parts.push(format!("{:.2}x the latency", a.value / b.value));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(": {} of the recommendation", parts.join(", "))
    }
}

fn describe(out: &mut String, o: &Considered, indent: &str) {
    let mut line = |name: &str, text: String| {
        let _ = writeln!(out, "{indent}{name}: {text}");
    };
    line("keeps", o.keeps.describe().to_owned());
    line(
        "throughput",
        o.throughput.as_ref().map_or("not measured".into(), |f| {
            format!("{:.0} /s ({})", f.value, f.how)
        }),
    );
    line(
        "latency",
        o.latency.as_ref().map_or("not measured".into(), |f| {
            format!("{:.3} ms ({})", f.value, f.how)
        }),
    );
    for (name, f) in &o.extra {
        line(name, format!("{:.3} ({})", f.value, f.how));
    }
    line(
        "restart",
        match &o.restart {
            Restart::Measured { secs, keys } => {
                format!("{secs:.2} s measured with {keys:.0} keys")
            }
            Restart::Empty => "at once, empty (nothing kept)".into(),
            Restart::NotMeasured(why) => format!("not measured ({why})"),
        },
    );
    line(
        "DRAM",
        o.dram.as_ref().map_or("not measured".into(), |f| {
            format!("{} ({})", human(f.value as u64), f.how)
        }),
    );
    if let Some(p) = o.pmem.as_ref().filter(|p| p.value > 0.0) {
        line(
            "persistent memory",
            format!("{} ({})", human(p.value as u64), p.how),
        );
    }
}
