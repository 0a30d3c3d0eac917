//! A report table: this machine's figures per configuration and column, the
//! seed's own figures beside them where the seed has a comparable row, and the
//! verdict paragraph on the seed's conclusion.
//!
//! Every cell is either a measured value or an explicit skip with its reason:
//! a table is complete when no cell is missing, which the lab's tests check.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// One cell of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// A measured figure (a median over the rounds).
    Value(f64),
    /// Not measured, and why (a missing peer, an unsupported placement).
    Skipped(String),
}

impl Cell {
    /// The value, if measured.
    pub fn value(&self) -> Option<f64> {
        match self {
            Cell::Value(v) => Some(*v),
            Cell::Skipped(_) => None,
        }
    }

    /// A value, or a skip when there is none.
    pub fn from_option(value: Option<f64>, reason: &str) -> Self {
        value.map_or_else(|| Cell::Skipped(reason.to_owned()), Cell::Value)
    }
}

/// One row: a configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The configuration, e.g. `index pmem, data ssd`.
    pub label: String,
    /// One cell per column.
    pub cells: Vec<Cell>,
    /// The seed's figures for the same configuration and columns, if it has them
    /// (`None` in a column the seed did not report).
    pub seed: Option<Vec<Option<f64>>>,
}

/// A table of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Heading.
    pub title: String,
    /// What the numbers are, e.g. `operations/s`.
    pub unit: String,
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows in order.
    pub rows: Vec<Row>,
    /// Whether the seed's conclusion holds here, computed from the figures.
    pub verdict: String,
}

impl Table {
    /// An empty table with `columns`.
    pub fn new(title: &str, unit: &str, columns: &[&str]) -> Self {
        Self {
            title: title.into(),
            unit: unit.into(),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: Vec::new(),
            verdict: String::new(),
        }
    }

    /// Appends a row (its cells must match the columns).
    pub fn push(&mut self, label: &str, cells: Vec<Cell>, seed: Option<Vec<Option<f64>>>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(Row {
            label: label.into(),
            cells,
            seed,
        });
    }

    /// The cell at row `label`, column `column`, if measured.
    pub fn get(&self, label: &str, column: &str) -> Option<f64> {
        let c = self.columns.iter().position(|x| x == column)?;
        self.rows
            .iter()
            .find(|r| r.label == label)?
            .cells
            .get(c)?
            .value()
    }

    /// The table in markdown: figures, then (if any row has seed figures) the
    /// seed's figures and this machine's ratio to them, then the verdict.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "### {}\n\n({})\n", self.title, self.unit);
        let header = |out: &mut String, first: &str| {
            let _ = writeln!(out, "| {first} | {} |", self.columns.join(" | "));
            let _ = writeln!(out, "|---|{}", "---:|".repeat(self.columns.len()));
        };
        header(&mut out, "configuration");
        for row in &self.rows {
            let cells: Vec<String> = row
                .cells
                .iter()
                .map(|c| match c {
                    Cell::Value(v) => number(*v),
                    Cell::Skipped(why) => format!("skipped: {why}"),
                })
                .collect();
            let _ = writeln!(out, "| {} | {} |", row.label, cells.join(" | "));
        }
        if self.rows.iter().any(|r| r.seed.is_some()) {
            let _ = writeln!(
                out,
                "\nThe seed's figures, and this machine's as a ratio of them:\n"
            );
            header(&mut out, "configuration (seed)");
            for row in &self.rows {
                let Some(seed) = &row.seed else { continue };
                let cells: Vec<String> = seed
                    .iter()
                    .zip(&row.cells)
                    .map(|(s, c)| match (s, c.value()) {
                        (Some(s), Some(v)) if *s != 0.0 => {
                            format!("{} ({:.3}x)", number(*s), v / s)
                        }
                        (Some(s), _) => number(*s),
                        (None, _) => "not in the seed".into(),
                    })
                    .collect();
                let _ = writeln!(out, "| {} | {} |", row.label, cells.join(" | "));
            }
        }
        let _ = writeln!(out, "\n{}\n", self.verdict);
        out
    }
}

/// A figure for a table: thousands separated above 1,000, three significant digits below.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v.abs() >= 1000.0 {
        let digits = format!("{:.0}", v.abs());
        let mut grouped = String::new();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(ch);
        }
        return if v < 0.0 {
            format!("-{grouped}")
        } else {
            grouped
        };
    }
    if v == 0.0 {
        return "0".into();
    }
    let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{v:.decimals$}")
}

/// `a / b` when both are measured and `b` is not zero.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 => Some(a / b),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(number(2_100_000.0), "2,100,000");
        assert_eq!(number(1234.4), "1,234");
        assert_eq!(number(0.0123), "0.0123");
        assert_eq!(number(12.345), "12.3");
        assert_eq!(number(0.0), "0");
    }

    #[test]
    fn markdown_has_every_cell_and_the_seed_ratio() {
        let mut t = Table::new("T", "ops/s", &["a", "b"]);
        t.push(
            "x",
            vec![Cell::Value(50.0), Cell::Skipped("no peer".into())],
            Some(vec![Some(100.0), Some(10.0)]),
        );
        t.verdict = "holds".into();
        let md = t.markdown();
        assert!(md.contains("| x | 50.0 | skipped: no peer |"), "{md}");
        assert!(md.contains("| x | 100 (0.500x) | 10.0 |"), "{md}");
        assert_eq!(t.get("x", "a"), Some(50.0));
        assert_eq!(t.get("x", "b"), None);
    }
}
