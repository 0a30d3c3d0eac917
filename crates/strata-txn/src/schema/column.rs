//! Column types and their sizes in a row: the leaf of `schema`, used by
//! the table definitions and by the index-key encoding.

/// Most columns a table may have (dirty-column masks are one `u64`).
pub const MAX_COLUMNS: usize = 64;
/// Largest row, in bytes.
pub const MAX_ROW_BYTES: usize = 64 * 1024;

/// The type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// 32-bit signed integer.
    I32,
    /// 64-bit signed integer.
    I64,
    /// 64-bit float.
    F64,
    /// UTF-8 string of at most `max_len` bytes.
    Str {
        /// Longest accepted value in bytes.
        max_len: u16,
    },
}

impl ColumnType {
    /// Bytes the column takes in a row.
    pub(crate) fn size(self) -> usize {
        match self {
            ColumnType::I32 => 4,
            ColumnType::I64 | ColumnType::F64 => 8,
            ColumnType::Str { max_len } => 2 + max_len as usize,
        }
    }

    pub(super) fn align(self) -> usize {
        match self {
            ColumnType::I32 => 4,
            ColumnType::I64 | ColumnType::F64 => 8,
            ColumnType::Str { .. } => 2,
        }
    }

    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            ColumnType::I32 => "i32",
            ColumnType::I64 => "i64",
            ColumnType::F64 => "f64",
            ColumnType::Str { .. } => "str",
        }
    }
}

/// One column: name, type and byte offset in the row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The column's name.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// Byte offset in the row.
    pub(crate) offset: usize,
}
