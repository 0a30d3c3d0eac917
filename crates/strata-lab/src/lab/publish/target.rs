//! What a published target is: where its figures are read in a run's
//! `results.json` ([`Source`], [`Expr`]), how they are judged ([`Rule`]) and
//! which row of the page it names ([`Target`]). A leaf: the list of targets
//! (`targets`) and the publishing itself import it.

/// Where a figure is read in `results.json`.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A table cell: (table title, row label, column).
    Cell(&'static str, &'static str, &'static str),
    /// The median over rounds of a raw measurement: (config, step, figure).
    Measured(&'static str, &'static str, &'static str),
}

/// A value compared with the threshold.
#[derive(Debug, Clone, Copy)]
pub enum Expr {
    /// One figure.
    Value(Source),
    /// One figure over another.
    Ratio(Source, Source),
}

/// How a target is judged.
#[derive(Debug, Clone, Copy)]
pub enum Rule {
    /// Every figure at least the threshold: "met", else "missed".
    AtLeast(f64),
    /// Every figure at most the threshold.
    AtMost(f64),
    /// Each figure within its own inclusive (lowest, highest) bounds, in the
    /// order of [`Target::figures`].
    Bounds(&'static [(f64, f64)]),
    /// Figures reported, no threshold: status "reported".
    Reported,
    /// Issue 33's row: the quick modes of all five experiments together under
    /// this many seconds, and every table with a verdict (quick runs only).
    QuickSuite(f64),
}

/// One row of the page the lab measures.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The page's "issue" cell.
    pub issue: &'static str,
    /// The page's "target" cell, byte for byte.
    pub text: &'static str,
    /// The experiment whose results measure it (empty for [`Rule::QuickSuite`]).
    pub experiment: &'static str,
    /// Named figures: (label in the figure cell, value).
    pub figures: &'static [(&'static str, Expr)],
    /// Format of each figure: `true` for a ratio (`1.23x`), `false` for a plain number.
    pub times: bool,
    /// Unit appended to plain numbers (e.g. ` s`, ` B`).
    pub unit: &'static str,
    /// The threshold.
    pub rule: Rule,
    /// A run parameter that must be at least this value (e.g. `keys` for a
    /// target stated at 10,000,000 keys).
    pub requires: Option<(&'static str, f64)>,
}
