//! `_cat/indices`, `_cat/health`, `_cat/nodes`: aligned text tables, or a
//! JSON array of string-valued objects with `format=json`. Parameters:
//! `v` (header row), `h` (columns to show, by name), `bytes` (`b`, `kb`,
//! `mb`, `gb` for size columns; human form otherwise), `s` (sort by columns,
//! each `name[:asc|:desc]`; numbers and sizes compare by value), `format`.

use serde_json::{json, Map, Value};

use super::stats::{health_of, human_bytes, IndexStats};
use super::targets::resolve;
use crate::error::{EsError, Result};
use crate::host;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// A table: column names and rows of cells (`None`: unknown).
pub(crate) struct Table {
    pub(crate) columns: &'static [&'static str],
    pub(crate) rows: Vec<Vec<Option<String>>>,
}

impl Table {
    pub(crate) fn render(mut self, req: &EsRequest) -> Result<Reply> {
        if let Some(spec) = req.param("s") {
            self.sort(spec)?;
        }
        let chosen: Vec<usize> = match req.param("h") {
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|h| !h.is_empty())
                .map(|h| {
                    self.columns.iter().position(|c| *c == h).ok_or_else(|| {
                        EsError::IllegalArgument(format!("header name [{h}] does not exist"))
                    })
                })
                .collect::<Result<_>>()?,
            None => (0..self.columns.len()).collect(),
        };
        match req.param("format") {
            Some("json") => {
                let rows: Vec<Value> = self
                    .rows
                    .iter()
                    .map(|row| {
                        let mut obj = Map::new();
                        for &c in &chosen {
                            obj.insert(self.columns[c].to_string(), json!(row[c]));
                        }
                        Value::Object(obj)
                    })
                    .collect();
                Ok(Reply::ok(Value::Array(rows)))
            }
            None | Some("text" | "txt") => {
                Ok(Reply::text(self.text(&chosen, req.flag("v", false)?)))
            }
            Some(other) => Err(EsError::IllegalArgument(format!(
                "format [{other}] is not supported by this server"
            ))),
        }
    }

    /// Sorts the rows by `spec`: comma-separated `column[:asc|:desc]`.
    fn sort(&mut self, spec: &str) -> Result<()> {
        let mut keys = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, descending) = match part.split_once(':') {
                None => (part, false),
                Some((name, "asc")) => (name, false),
                Some((name, "desc")) => (name, true),
                Some((_, other)) => {
                    return Err(EsError::IllegalArgument(format!(
                        "unsupported sort order [{other}] in [{part}]: use asc or desc"
                    )))
                }
            };
            let column = self
                .columns
                .iter()
                .position(|c| *c == name)
                .ok_or_else(|| {
                    EsError::IllegalArgument(format!("header name [{name}] does not exist"))
                })?;
            keys.push((column, descending));
        }
        self.rows.sort_by(|a, b| {
            keys.iter()
                .map(|&(c, descending)| {
                    let order = compare_cells(a[c].as_deref(), b[c].as_deref());
                    if descending {
                        order.reverse()
                    } else {
                        order
                    }
                })
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        Ok(())
    }

    fn text(&self, chosen: &[usize], header: bool) -> String {
        let mut lines: Vec<Vec<&str>> = Vec::new();
        if header {
            lines.push(chosen.iter().map(|&c| self.columns[c]).collect());
        }
        for row in &self.rows {
            lines.push(
                chosen
                    .iter()
                    .map(|&c| row[c].as_deref().unwrap_or(""))
                    .collect(),
            );
        }
        let widths: Vec<usize> = (0..chosen.len())
            .map(|i| lines.iter().map(|l| l[i].len()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for line in lines {
            let cells: Vec<String> = line
                .iter()
                .enumerate()
                .map(|(i, cell)| format!("{cell:<width$}", width = widths[i]))
                .collect();
            out.push_str(cells.join(" ").trim_end());
            out.push('\n');
        }
        out
    }
}

/// Orders two cells: by value when both are numbers or sizes (`12`,
/// `1.5mb`), else as text; unknown cells first.
fn compare_cells(a: Option<&str>, b: Option<&str>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(a), Some(b)) => match (cell_value(a), cell_value(b)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            _ => a.cmp(b),
        },
        (a, b) => a.is_some().cmp(&b.is_some()),
    }
}

/// A number, or a size with a unit (`b`, `kb`, `mb`, `gb`, `tb`) in bytes.
fn cell_value(cell: &str) -> Option<f64> {
    let split = cell
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(cell.len());
    let number: f64 = cell[..split].parse().ok()?;
    let scale = match &cell[split..] {
        "" | "b" => 1.0,
        "kb" => 1024.0,
        "mb" => 1024.0 * 1024.0,
        "gb" => 1024.0 * 1024.0 * 1024.0,
        "tb" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(number * scale)
}

fn size(bytes: u64, req: &EsRequest) -> String {
    match req.param("bytes") {
        Some("b") => bytes.to_string(),
        Some("kb") => (bytes / 1024).to_string(),
        Some("mb") => (bytes >> 20).to_string(),
        Some("gb") => (bytes >> 30).to_string(),
        _ => human_bytes(bytes),
    }
}

/// `_cat/indices[/<index>]`.
pub fn indices(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let mut rows = Vec::new();
    for index in resolve(node, expression)? {
        let s = IndexStats::of(&index);
        let settings = index.settings();
        let store = size(s.store_bytes, req);
        rows.push(vec![
            Some(health_of(&index).to_string()),
            Some("open".to_string()),
            Some(index.name().to_string()),
            Some(settings.uuid.clone()),
            Some(settings.number_of_shards.to_string()),
            Some(settings.number_of_replicas.to_string()),
            Some(s.docs.to_string()),
            Some(s.deleted.to_string()),
            Some(store.clone()),
            Some(store.clone()),
            Some(store),
        ]);
    }
    Table {
        columns: &[
            "health",
            "status",
            "index",
            "uuid",
            "pri",
            "rep",
            "docs.count",
            "docs.deleted",
            "store.size",
            "pri.store.size",
            "dataset.size",
        ],
        rows,
    }
    .render(req)
}

/// `_cat/health`.
pub fn health(node: &Node, req: &EsRequest) -> Result<Reply> {
    let (mut primaries, mut unassigned, mut status) = (0u64, 0u64, "green");
    for index in resolve(node, None)? {
        let s = index.settings();
        primaries += u64::from(s.number_of_shards);
        unassigned += u64::from(s.number_of_shards) * u64::from(s.number_of_replicas);
        if health_of(&index) == "yellow" {
            status = "yellow";
        }
    }
    health_table(
        &node.config.cluster_name,
        status,
        primaries,
        unassigned,
        req,
    )
}

/// The `_cat/health` table of a one-node cluster with `primaries` active
/// shards and `unassigned` replicas (also what a recovering node shows,
/// red with no shards).
pub(crate) fn health_table(
    cluster_name: &str,
    status: &str,
    primaries: u64,
    unassigned: u64,
    req: &EsRequest,
) -> Result<Reply> {
    let now = host::now_millis();
    let secs = now / 1000;
    let percent = if primaries + unassigned == 0 {
        100.0
    } else {
        100.0 * primaries as f64 / (primaries + unassigned) as f64
    };
    let row = vec![
        Some(secs.to_string()),
        Some(format!(
            "{:02}:{:02}:{:02}",
            (secs / 3600) % 24,
            (secs / 60) % 60,
            secs % 60
        )),
        Some(cluster_name.to_string()),
        Some(status.to_string()),
        Some("1".into()),
        Some("1".into()),
        Some(primaries.to_string()),
        Some(primaries.to_string()),
        Some("0".into()),
        Some("0".into()),
        Some(unassigned.to_string()),
        Some("0".into()),
        Some("0".into()),
        Some("-".into()),
        Some(format!("{percent:.1}%")),
    ];
    Table {
        columns: &[
            "epoch",
            "timestamp",
            "cluster",
            "status",
            "node.total",
            "node.data",
            "shards",
            "pri",
            "relo",
            "init",
            "unassign",
            "unassign.pri",
            "pending_tasks",
            "max_task_wait_time",
            "active_shards_percent",
        ],
        rows: vec![row],
    }
    .render(req)
}

/// `_cat/nodes`: the one node; heap and CPU percentages are unknown.
pub fn nodes(node: &Node, req: &EsRequest) -> Result<Reply> {
    let load = host::load_average();
    let ram = host::memory().map(|(total, available)| {
        (100 * total.saturating_sub(available) / total.max(1)).to_string()
    });
    let row = vec![
        Some(node.config.http_addr.ip().to_string()),
        None,
        ram,
        None,
        load.map(|l| format!("{:.2}", l[0])),
        load.map(|l| format!("{:.2}", l[1])),
        load.map(|l| format!("{:.2}", l[2])),
        Some("dim".into()),
        Some("*".into()),
        Some(node.config.node_name.clone()),
    ];
    Table {
        columns: &[
            "ip",
            "heap.percent",
            "ram.percent",
            "cpu",
            "load_1m",
            "load_5m",
            "load_15m",
            "node.role",
            "master",
            "name",
        ],
        rows: vec![row],
    }
    .render(req)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_compare_by_value_when_numbers_or_sizes() {
        use std::cmp::Ordering::*;
        assert_eq!(compare_cells(Some("900kb"), Some("1.2mb")), Less);
        assert_eq!(compare_cells(Some("10"), Some("9")), Greater);
        assert_eq!(compare_cells(Some("b-index"), Some("a-index")), Greater);
        assert_eq!(compare_cells(None, Some("1")), Less);
        assert_eq!(cell_value("2gb"), Some(2.0 * 1024.0 * 1024.0 * 1024.0));
        assert_eq!(cell_value("green"), None);
    }

    #[test]
    fn sort_orders_rows_and_refuses_unknown_columns() {
        let row = |name: &str, docs: &str| vec![Some(name.to_string()), Some(docs.to_string())];
        let mut table = Table {
            columns: &["index", "docs.count"],
            rows: vec![row("a", "10"), row("b", "9"), row("c", "10")],
        };
        table.sort("docs.count:desc,index").unwrap();
        let names: Vec<_> = table.rows.iter().map(|r| r[0].clone().unwrap()).collect();
        assert_eq!(names, ["a", "c", "b"]);
        assert!(table.sort("nope").is_err());
        assert!(table.sort("index:sideways").is_err());
    }
}
