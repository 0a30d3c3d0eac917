//! Table definitions: typed columns laid out at fixed offsets in a row of
//! 8-byte words, and the ordered indexes over them.
//!
//! - [`ColumnType`]: `i32`, `i64`, `f64`, and strings up to a declared
//!   length (stored as a 2-byte length and the bytes).
//! - [`TableSchema`]: built with [`TableSchema::builder`], which checks
//!   names, the column limit ([`MAX_COLUMNS`]) and the row size limit
//!   ([`MAX_ROW_BYTES`]).
//! - [`IndexSchema`]: an ordered index over some columns; its first
//!   `partition_columns` columns name a partition, the unit of phantom
//!   protection (a scan stays inside one partition).
//! - `column`: [`ColumnType`] and [`Column`], the leaf both others use.
//! - `key`: the order-preserving byte encoding of index keys.

mod column;
pub(crate) mod key;

pub use column::{Column, ColumnType, MAX_COLUMNS, MAX_ROW_BYTES};
pub use key::KeyValue;

use crate::error::TxnError;

/// An ordered index: its columns (by position) and how many of the first
/// ones form its partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSchema {
    /// The index's name.
    pub name: String,
    /// Column positions, most significant first.
    pub columns: Vec<usize>,
    /// Leading columns that name a partition (0: the index is one partition).
    pub partition_columns: usize,
}

/// A table's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSchema {
    /// The table's name.
    pub name: String,
    /// Its columns in order.
    pub columns: Vec<Column>,
    /// Its ordered indexes.
    pub indexes: Vec<IndexSchema>,
    /// Row length in bytes (a multiple of 8).
    pub(crate) row_bytes: usize,
}

impl TableSchema {
    /// Starts a table definition.
    pub fn builder(name: &str) -> TableBuilder {
        TableBuilder {
            name: name.to_owned(),
            columns: Vec::new(),
            indexes: Vec::new(),
        }
    }

    /// Row length in bytes.
    pub fn row_bytes(&self) -> usize {
        self.row_bytes
    }

    /// The position of column `name`.
    pub fn column_index(&self, name: &str) -> Result<usize, TxnError> {
        self.columns
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| TxnError::UnknownColumn {
                table: self.name.clone(),
                column: name.to_owned(),
            })
    }

    /// The position of index `name`.
    pub fn index_position(&self, name: &str) -> Result<usize, TxnError> {
        self.indexes
            .iter()
            .position(|i| i.name == name)
            .ok_or_else(|| TxnError::UnknownIndex {
                table: self.name.clone(),
                index: name.to_owned(),
            })
    }

    /// A bit per column that some ordered index covers (such columns may
    /// not change in an update).
    pub(crate) fn indexed_mask(&self) -> u64 {
        self.indexes
            .iter()
            .flat_map(|i| i.columns.iter())
            .fold(0, |mask, &c| mask | 1 << c)
    }

    /// A stable one-line description (names, types, indexes), compared
    /// with the one a log directory was written with.
    pub fn fingerprint(&self) -> String {
        let mut out = format!("{}(", self.name);
        for c in &self.columns {
            let ty = match c.ty {
                ColumnType::Str { max_len } => format!("str{max_len}"),
                other => other.name().to_owned(),
            };
            out.push_str(&format!("{}:{ty},", c.name));
        }
        for i in &self.indexes {
            out.push_str(&format!(
                "|{}{:?}/{}",
                i.name, i.columns, i.partition_columns
            ));
        }
        out.push(')');
        out
    }
}

/// Builds a [`TableSchema`].
#[derive(Debug, Clone)]
pub struct TableBuilder {
    name: String,
    columns: Vec<(String, ColumnType)>,
    indexes: Vec<(String, Vec<String>, usize)>,
}

impl TableBuilder {
    /// Adds a column.
    pub fn column(mut self, name: &str, ty: ColumnType) -> TableBuilder {
        self.columns.push((name.to_owned(), ty));
        self
    }

    /// Adds an ordered index over `columns`, the first `partition_columns`
    /// of which name its partition.
    pub fn index(mut self, name: &str, columns: &[&str], partition_columns: usize) -> TableBuilder {
        let columns = columns.iter().map(|c| (*c).to_owned()).collect();
        self.indexes
            .push((name.to_owned(), columns, partition_columns));
        self
    }

    /// Checks and lays out the table.
    pub fn build(self) -> Result<TableSchema, TxnError> {
        let bad = |reason: String| TxnError::Schema {
            table: self.name.clone(),
            reason,
        };
        if self.name.is_empty() {
            return Err(bad("the table name is empty".into()));
        }
        if self.columns.is_empty() || self.columns.len() > MAX_COLUMNS {
            return Err(bad(format!(
                "{} columns; a table has 1 to {MAX_COLUMNS}",
                self.columns.len()
            )));
        }
        let mut columns: Vec<Column> = Vec::with_capacity(self.columns.len());
        let mut offset = 0usize;
        for (name, ty) in &self.columns {
            if name.is_empty() || columns.iter().any(|c| &c.name == name) {
                return Err(bad(format!("column name {name:?} is empty or repeated")));
            }
            offset = offset.next_multiple_of(ty.align());
            columns.push(Column {
                name: name.clone(),
                ty: *ty,
                offset,
            });
            offset += ty.size();
        }
        let row_bytes = offset.next_multiple_of(8);
        if row_bytes > MAX_ROW_BYTES {
            return Err(bad(format!(
                "rows of {row_bytes} bytes exceed the limit of {MAX_ROW_BYTES}"
            )));
        }
        let mut schema = TableSchema {
            name: self.name.clone(),
            columns,
            indexes: Vec::new(),
            row_bytes,
        };
        for (name, cols, partition_columns) in &self.indexes {
            if name.is_empty() || schema.indexes.iter().any(|i| &i.name == name) {
                return Err(bad(format!("index name {name:?} is empty or repeated")));
            }
            if cols.is_empty() || *partition_columns > cols.len() {
                return Err(bad(format!(
                    "index {name:?} needs columns and at most that many partition columns"
                )));
            }
            let columns = cols
                .iter()
                .map(|c| schema.column_index(c))
                .collect::<Result<Vec<_>, _>>()?;
            schema.indexes.push(IndexSchema {
                name: name.clone(),
                columns,
                partition_columns: *partition_columns,
            });
        }
        Ok(schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_aligns_and_rounds() {
        let s = TableSchema::builder("t")
            .column("a", ColumnType::I32)
            .column("b", ColumnType::I64)
            .column("c", ColumnType::Str { max_len: 3 })
            .column("d", ColumnType::I32)
            .build()
            .unwrap();
        let offsets: Vec<usize> = s.columns.iter().map(|c| c.offset).collect();
        assert_eq!(offsets, vec![0, 8, 16, 24]);
        assert_eq!(s.row_bytes, 32);
    }

    #[test]
    fn bad_definitions_are_refused() {
        let too_big = TableSchema::builder("t")
            .column("s", ColumnType::Str { max_len: u16::MAX })
            .column("t", ColumnType::Str { max_len: 2000 })
            .build();
        assert!(matches!(too_big, Err(TxnError::Schema { .. })));
        let repeated = TableSchema::builder("t")
            .column("a", ColumnType::I32)
            .column("a", ColumnType::I64)
            .build();
        assert!(matches!(repeated, Err(TxnError::Schema { .. })));
        let unknown = TableSchema::builder("t")
            .column("a", ColumnType::I32)
            .index("i", &["b"], 0)
            .build();
        assert!(matches!(unknown, Err(TxnError::UnknownColumn { .. })));
        assert!(TableSchema::builder("")
            .column("a", ColumnType::I32)
            .build()
            .is_err());
    }
}
