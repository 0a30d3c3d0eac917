//! The parameter types of the query-text queries (`query_string`,
//! `simple_query_string`), as parsed: the fields they search
//! ([`FieldSpec`]) and the operators `simple_query_string` reads
//! ([`SimpleFlags`]).
//!
//! A leaf: plain values and their parsing, naming no translator, so both
//! the query tree (`query/ast`) and the syntaxes' translators use them
//! without importing each other.

mod field_spec;
mod simple_flags;

pub(crate) use field_spec::FieldSpec;
pub(crate) use simple_flags::Flags as SimpleFlags;
