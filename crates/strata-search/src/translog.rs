//! The per-index translog: every indexing operation as a record in a
//! `strata_log::CommandLog`, replayed on open from each shard's last
//! durable commit. Records are states, not requests (the resolved id,
//! version, sequence number and full source), so replay is idempotent.
//!
//! Body layout (little-endian): `shard u32 | seq_no u64 | version u64 |
//! id_len u32 | id | source` for [`INDEX_KIND`]; the same without `source`
//! for [`DELETE_KIND`].

use crate::error::{Result, SearchError};

/// Record kind of an index (create or replace) operation.
pub const INDEX_KIND: u8 = 1;
/// Record kind of a delete operation.
pub const DELETE_KIND: u8 = 2;

/// One logged operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Operation {
    /// The shard it was routed to.
    pub shard: u32,
    /// The shard-local sequence number it got.
    pub seq_no: u64,
    /// The document version it produced.
    pub version: u64,
    /// The document id.
    pub id: String,
    /// The source of an index operation; `None` for a delete.
    pub source: Option<Vec<u8>>,
}

impl Operation {
    /// The record kind.
    pub(crate) fn kind(&self) -> u8 {
        if self.source.is_some() {
            INDEX_KIND
        } else {
            DELETE_KIND
        }
    }

    /// Encodes the record body.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let source_len = self.source.as_ref().map_or(0, Vec::len);
        let mut out = Vec::with_capacity(24 + self.id.len() + source_len);
        out.extend_from_slice(&self.shard.to_le_bytes());
        out.extend_from_slice(&self.seq_no.to_le_bytes());
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(self.id.len() as u32).to_le_bytes());
        out.extend_from_slice(self.id.as_bytes());
        if let Some(source) = &self.source {
            out.extend_from_slice(source);
        }
        out
    }

    /// Decodes a record body of `kind`.
    pub(crate) fn decode(kind: u8, body: &[u8]) -> Result<Operation> {
        let bad = || SearchError::illegal(format!("damaged translog record of kind {kind}"));
        let take = |at: usize, n: usize| body.get(at..at + n).ok_or_else(bad);
        let u32_at = |at| -> Result<u32> {
            Ok(u32::from_le_bytes(
                take(at, 4)?.try_into().map_err(|_| bad())?,
            ))
        };
        let u64_at = |at| -> Result<u64> {
            Ok(u64::from_le_bytes(
                take(at, 8)?.try_into().map_err(|_| bad())?,
            ))
        };
        let shard = u32_at(0)?;
        let seq_no = u64_at(4)?;
        let version = u64_at(12)?;
        let id_len = u32_at(20)? as usize;
        let id = std::str::from_utf8(take(24, id_len)?)
            .map_err(|_| bad())?
            .to_string();
        let rest = body.get(24 + id_len..).ok_or_else(bad)?;
        let source = match kind {
            INDEX_KIND => Some(rest.to_vec()),
            DELETE_KIND if rest.is_empty() => None,
            _ => return Err(bad()),
        };
        Ok(Operation {
            shard,
            seq_no,
            version,
            id,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let op = Operation {
            shard: 3,
            seq_no: 9,
            version: 2,
            id: "doc-1".into(),
            source: Some(br#"{"a":1}"#.to_vec()),
        };
        assert_eq!(Operation::decode(op.kind(), &op.encode()).unwrap(), op);
        let del = Operation { source: None, ..op };
        assert_eq!(Operation::decode(DELETE_KIND, &del.encode()).unwrap(), del);
        assert!(Operation::decode(INDEX_KIND, &[1, 2, 3]).is_err());
        assert!(Operation::decode(9, &del.encode()).is_err());
    }
}
