//! What the recommenders produce: options with their measured costs, the
//! excluded ones with why, and the choice among the rest. Shared by the KV and
//! search recommenders (a leaf below both).

use super::workload::Durability;

/// A figure with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The value.
    pub value: f64,
    /// How it was obtained (measured where, interpolated, derived).
    pub how: String,
}

impl Figure {
    /// A figure.
    pub fn new(value: f64, how: impl Into<String>) -> Self {
        Self {
            value,
            how: how.into(),
        }
    }
}

/// Restart after a crash.
#[derive(Debug, Clone, PartialEq)]
pub enum Restart {
    /// Measured: seconds to serve again, with this many keys.
    Measured {
        /// Seconds.
        secs: f64,
        /// Keys of the measurement.
        keys: f64,
    },
    /// Nothing is kept: it serves at once, empty.
    Empty,
    /// Not measured by the lab, and why.
    NotMeasured(String),
}

/// One configuration considered.
#[derive(Debug, Clone, PartialEq)]
pub struct Considered {
    /// The configuration, e.g. `index pmem, data ssd`.
    pub name: String,
    /// The server options that select it.
    pub flags: String,
    /// What a crash keeps.
    pub keeps: Durability,
    /// Throughput (KV: operations/s at the workload's mix; search: documents
    /// indexed/s).
    pub throughput: Option<Figure>,
    /// Latency (KV: p99 ms; search: mean dashboard ms).
    pub latency: Option<Figure>,
    /// Other figures shown (name, figure).
    pub extra: Vec<(String, Figure)>,
    /// Restart after a crash.
    pub restart: Restart,
    /// DRAM it needs for this workload, bytes.
    pub dram: Option<Figure>,
    /// Persistent memory it needs for this workload, bytes (`Some(0)` when it
    /// uses none).
    pub pmem: Option<Figure>,
    /// Why it cannot serve this workload, if it cannot.
    pub excluded: Option<String>,
}

/// The outcome for one service (KV or search).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Advice {
    /// Index into `options` of the recommendation.
    pub recommended: Option<usize>,
    /// Why it was chosen.
    pub because: String,
    /// Every configuration considered.
    pub options: Vec<Considered>,
    /// The runs the figures come from.
    pub sources: Vec<String>,
    /// Questions the results do not answer (no recommendation is made on them).
    pub not_covered: Vec<String>,
    /// Remarks on how far the figures carry.
    pub notes: Vec<String>,
}

impl Advice {
    /// The recommended option.
    pub fn choice(&self) -> Option<&Considered> {
        self.options.get(self.recommended?)
    }
}

/// What decides between options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Highest throughput.
    Throughput,
    /// Lowest latency.
    Latency,
    /// Fastest measured restart.
    Restart,
}

/// Options within this share of the best are taken as equal: the choice among
/// them goes to what keeps more across a crash, then to less DRAM.
pub const TIE: f64 = 0.10;

/// Chooses among the options not excluded: the best by `goal`, and among
/// those within [`TIE`] of it the one keeping the most, then needing the least
/// DRAM. Sets `recommended` and `because`; options without the goal's figure
/// are never chosen.
pub fn choose(advice: &mut Advice, goal: Goal) {
    let score = |o: &Considered| -> Option<f64> {
        match goal {
            Goal::Throughput => o.throughput.as_ref().map(|f| f.value),
            Goal::Latency => o.latency.as_ref().map(|f| -f.value),
            Goal::Restart => match o.restart {
                Restart::Measured { secs, .. } => Some(-secs),
                _ => None,
            },
        }
    };
    let eligible: Vec<(usize, f64)> = advice
        .options
        .iter()
        .enumerate()
        .filter(|(_, o)| o.excluded.is_none())
        .filter_map(|(i, o)| Some((i, score(o)?)))
        .collect();
    let Some(best) = eligible.iter().map(|e| e.1).reduce(f64::max) else {
        advice.because =
            "no configuration both fits the workload and has the figure that decides".into();
        return;
    };
    let near = |s: f64| {
        if best >= 0.0 {
            s >= best * (1.0 - TIE)
        } else {
            s >= best * (1.0 + TIE)
        }
    };
    let dram = |o: &Considered| o.dram.as_ref().map_or(f64::INFINITY, |f| f.value);
    let chosen = eligible
        .iter()
        .filter(|e| near(e.1))
        .max_by(|a, b| {
            let (oa, ob) = (&advice.options[a.0], &advice.options[b.0]);
            oa.keeps
                .cmp(&ob.keeps)
                .then(dram(ob).total_cmp(&dram(oa)))
                .then(a.1.total_cmp(&b.1))
        })
        .map(|e| e.0);
    advice.recommended = chosen;
    let ties = eligible.iter().filter(|e| near(e.1)).count();
    let what = match goal {
        Goal::Throughput => "the highest throughput at this mix",
        Goal::Latency => "the lowest latency",
        Goal::Restart => "the fastest measured restart",
    };
    advice.because = if ties > 1 {
        format!(
            "{what} among the configurations that fit; {ties} are within {:.0}% of the best, \
             and of those it keeps the most across a crash, then needs the least DRAM",
            TIE * 100.0
        )
    } else {
        format!("{what} among the configurations that fit")
    };
}
