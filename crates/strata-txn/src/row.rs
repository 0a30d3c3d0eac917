//! [`Row`]: a reusable, typed buffer for one table's row.
//!
//! Reads fill it, setters change it and remember which columns changed
//! (the dirty mask, which value logging records), and writes take it.
//! Every accessor checks the column's position and type and returns a
//! [`TxnError`] on a mismatch, never panics.

use std::sync::Arc;

use crate::error::TxnError;
use crate::schema::{ColumnType, TableSchema};

/// A row of one table.
#[derive(Debug, Clone)]
pub struct Row {
    pub(crate) table: u32,
    pub(crate) schema: Arc<TableSchema>,
    pub(crate) bytes: Vec<u8>,
    pub(crate) dirty: u64,
    /// Where the bytes were last read from, so that an update of that
    /// same record in that same transaction can take them as the current
    /// row instead of reading it again.
    pub(crate) origin: ReadOrigin,
}

/// The read a row's bytes came from: the transaction (its worker's
/// process-wide id and the worker's transaction serial) and the record's
/// access index in it. Both ids start at 1, so the default matches no
/// transaction; a row read by another worker, another database or an
/// earlier transaction never matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ReadOrigin {
    pub worker: u64,
    pub serial: u64,
    pub access: u32,
}

impl Row {
    pub(crate) fn new(table: u32, schema: Arc<TableSchema>) -> Row {
        let bytes = vec![0; schema.row_bytes];
        Row {
            table,
            schema,
            bytes,
            dirty: 0,
            origin: ReadOrigin::default(),
        }
    }

    /// The table's schema.
    pub fn schema(&self) -> &TableSchema {
        &self.schema
    }

    /// Columns set since the row was read or created (bit `i`: column `i`).
    pub fn dirty_columns(&self) -> u64 {
        self.dirty
    }

    /// Resets every column to zero / empty.
    pub fn clear(&mut self) {
        self.bytes.fill(0);
        self.dirty = 0;
        self.origin = ReadOrigin::default();
    }

    fn column(&self, col: usize, want: &'static str) -> Result<(usize, ColumnType), TxnError> {
        let Some(c) = self.schema.columns.get(col) else {
            return Err(TxnError::UnknownColumn {
                table: self.schema.name.clone(),
                column: format!("#{col}"),
            });
        };
        // Compare the names' addresses first: they are the same statics.
        let found = c.ty.name();
        if !std::ptr::eq(found, want) && found != want {
            return Err(TxnError::TypeMismatch {
                column: c.name.clone(),
                expected: c.ty.name(),
                found: want,
            });
        }
        Ok((c.offset, c.ty))
    }

    fn fixed<const N: usize>(&self, at: usize) -> [u8; N] {
        self.bytes[at..at + N]
            .try_into()
            .expect("column inside the row")
    }

    /// The `i32` in column `col`.
    pub fn get_i32(&self, col: usize) -> Result<i32, TxnError> {
        let (at, _) = self.column(col, "i32")?;
        Ok(i32::from_le_bytes(self.fixed(at)))
    }

    /// The `i64` in column `col`.
    pub fn get_i64(&self, col: usize) -> Result<i64, TxnError> {
        let (at, _) = self.column(col, "i64")?;
        Ok(i64::from_le_bytes(self.fixed(at)))
    }

    /// The `f64` in column `col`.
    pub fn get_f64(&self, col: usize) -> Result<f64, TxnError> {
        let (at, _) = self.column(col, "f64")?;
        Ok(f64::from_le_bytes(self.fixed(at)))
    }

    /// The string in column `col` as bytes.
    pub fn get_bytes(&self, col: usize) -> Result<&[u8], TxnError> {
        let (at, ty) = self.column(col, "str")?;
        let ColumnType::Str { max_len } = ty else {
            unreachable!("checked above")
        };
        let len = (u16::from_le_bytes(self.fixed(at)) as usize).min(max_len as usize);
        Ok(&self.bytes[at + 2..at + 2 + len])
    }

    /// The string in column `col` (invalid UTF-8, which only a damaged
    /// row could hold, is replaced).
    pub fn get_str(&self, col: usize) -> Result<std::borrow::Cow<'_, str>, TxnError> {
        Ok(String::from_utf8_lossy(self.get_bytes(col)?))
    }

    /// Sets the `i32` in column `col`.
    pub fn set_i32(&mut self, col: usize, v: i32) -> Result<(), TxnError> {
        let (at, _) = self.column(col, "i32")?;
        self.bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        self.dirty |= 1 << col;
        Ok(())
    }

    /// Sets the `i64` in column `col`.
    pub fn set_i64(&mut self, col: usize, v: i64) -> Result<(), TxnError> {
        let (at, _) = self.column(col, "i64")?;
        self.bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
        self.dirty |= 1 << col;
        Ok(())
    }

    /// Sets the `f64` in column `col`.
    pub fn set_f64(&mut self, col: usize, v: f64) -> Result<(), TxnError> {
        let (at, _) = self.column(col, "f64")?;
        self.bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
        self.dirty |= 1 << col;
        Ok(())
    }

    /// Sets the string in column `col`; longer than the column allows is
    /// [`TxnError::ValueTooLong`].
    pub fn set_str(&mut self, col: usize, v: &str) -> Result<(), TxnError> {
        self.set_bytes(col, v.as_bytes())
    }

    /// Sets the string in column `col` from bytes (the caller keeps them
    /// UTF-8 if it reads them back with [`get_str`](Self::get_str)).
    pub fn set_bytes(&mut self, col: usize, v: &[u8]) -> Result<(), TxnError> {
        let (at, ty) = self.column(col, "str")?;
        let ColumnType::Str { max_len } = ty else {
            unreachable!("checked above")
        };
        if v.len() > max_len as usize {
            return Err(TxnError::ValueTooLong {
                column: self.schema.columns[col].name.clone(),
                max: max_len as usize,
                len: v.len(),
            });
        }
        self.bytes[at..at + 2].copy_from_slice(&(v.len() as u16).to_le_bytes());
        self.bytes[at + 2..at + 2 + v.len()].copy_from_slice(v);
        self.bytes[at + 2 + v.len()..at + 2 + max_len as usize].fill(0);
        self.dirty |= 1 << col;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Arc<TableSchema> {
        Arc::new(
            TableSchema::builder("t")
                .column("a", ColumnType::I32)
                .column("b", ColumnType::F64)
                .column("s", ColumnType::Str { max_len: 5 })
                .build()
                .unwrap(),
        )
    }

    #[test]
    fn typed_access_checks_types_and_lengths() {
        let mut row = Row::new(0, schema());
        row.set_i32(0, -7).unwrap();
        row.set_f64(1, 2.5).unwrap();
        row.set_str(2, "hey").unwrap();
        assert_eq!(row.get_i32(0).unwrap(), -7);
        assert_eq!(row.get_f64(1).unwrap(), 2.5);
        assert_eq!(row.get_str(2).unwrap(), "hey");
        row.set_str(2, "x").unwrap();
        assert_eq!(row.get_str(2).unwrap(), "x");
        assert_eq!(row.dirty_columns(), 0b111);
        assert!(matches!(row.get_i64(0), Err(TxnError::TypeMismatch { .. })));
        assert!(matches!(
            row.set_str(2, "toolong"),
            Err(TxnError::ValueTooLong { .. })
        ));
        assert!(matches!(
            row.get_i32(9),
            Err(TxnError::UnknownColumn { .. })
        ));
    }
}
