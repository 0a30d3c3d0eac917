//! Ranges and CIDR blocks over `ip` fields.
//!
//! An address is indexed as its canonical text (a keyword term, shown as
//! is in hits, sorts and aggregations), and text order is not address
//! order (`"10.0.0.9" > "10.0.0.10"`), so a range cannot be a term range.
//! Per segment, [`IpRangeWeight`] walks the field's terms in the
//! dictionary, parses each, and collects the postings of those inside the
//! range: one pass over the field's distinct addresses per segment.
//! Addresses compare as IPv6, IPv4 mapped into `::ffff:0:0/96`, as
//! Elasticsearch orders them.

use std::net::IpAddr;
use std::ops::{Bound, RangeInclusive};

use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{BitSet, DocId, Score, SegmentReader};

use super::filter::explain_filter;
use crate::error::{Result, SearchError};
use crate::store::json_term;

/// Documents whose address at one path lies in an inclusive range.
#[derive(Clone, Debug)]
pub struct IpRangeQuery {
    field: Field,
    /// The term-dictionary key prefix of the path's string terms.
    prefix: Vec<u8>,
    range: RangeInclusive<u128>,
}

impl IpRangeQuery {
    /// The addresses at `path` of the typed-values field `values` in `range`.
    pub fn new(values: Field, path: &str, range: RangeInclusive<u128>) -> IpRangeQuery {
        let mut path_term = json_term(values, path);
        path_term.append_type_and_str("");
        IpRangeQuery {
            field: values,
            prefix: path_term.serialized_value_bytes().to_vec(),
            range,
        }
    }
}

impl Query for IpRangeQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(IpRangeWeight(self.clone())))
    }
}

struct IpRangeWeight(IpRangeQuery);

impl Weight for IpRangeWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let query = &self.0;
        let inverted_index = reader.inverted_index(query.field)?;
        let mut stream = match prefix_end(&query.prefix) {
            Some(end) => inverted_index.terms().range().ge(&query.prefix).lt(end),
            None => inverted_index.terms().range().ge(&query.prefix),
        }
        .into_stream()?;
        let mut docs: Option<BitSet> = None;
        while stream.advance() {
            let text = &stream.key()[query.prefix.len()..];
            let inside = std::str::from_utf8(text)
                .ok()
                .and_then(parse_ip)
                .is_some_and(|ip| query.range.contains(&ip));
            if !inside {
                continue;
            }
            let docs = docs.get_or_insert_with(|| BitSet::with_max_value(reader.max_doc()));
            let mut postings = inverted_index
                .read_block_postings_from_terminfo(stream.value(), IndexRecordOption::Basic)?;
            while !postings.docs().is_empty() {
                for &doc in postings.docs() {
                    docs.insert(doc);
                }
                postings.advance();
            }
        }
        Ok(match docs {
            Some(docs) => Box::new(ConstScorer::new(BitSetDocSet::from(docs), boost)),
            None => Box::new(EmptyScorer),
        })
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_filter(self, reader, doc, "IpRangeQuery")
    }
}

/// The first key after every key that starts with `prefix`.
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// An address as a 128-bit number (IPv4 mapped into IPv6).
pub fn parse_ip(text: &str) -> Option<u128> {
    let ip: IpAddr = text.trim().parse().ok()?;
    Some(match ip {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(v6),
    })
}

/// The addresses of a CIDR block (`10.0.0.0/8`, `2001:db8::/32`), or
/// `None` if `text` has no `/`.
pub fn cidr(text: &str) -> Option<Result<RangeInclusive<u128>>> {
    let (address, bits) = text.trim().split_once('/')?;
    let fail = || SearchError::parsing(format!("failed to create query: invalid CIDR [{text}]"));
    let block = || -> Option<RangeInclusive<u128>> {
        let ip: IpAddr = address.parse().ok()?;
        let bits: u32 = bits.parse().ok()?;
        let (base, prefix) = match ip {
            IpAddr::V4(v4) if bits <= 32 => (u128::from(v4.to_ipv6_mapped()), 96 + bits),
            IpAddr::V6(v6) if bits <= 128 => (u128::from(v6), bits),
            _ => return None,
        };
        let host = u128::MAX.checked_shr(prefix).unwrap_or(0);
        Some((base & !host)..=(base | host))
    };
    Some(block().ok_or_else(fail))
}

/// The query for a CIDR block given as a value of an `ip` field at `path`
/// (`term`, `terms`, `match`, a quoted `query_string` value), or `None`
/// when the value is not a block.
pub fn cidr_query(
    values: Field,
    path: &str,
    value: &serde_json::Value,
) -> Option<Result<Box<dyn Query>>> {
    let block = cidr(value.as_str()?)?;
    Some(block.map(|range| -> Box<dyn Query> { Box::new(IpRangeQuery::new(values, path, range)) }))
}

/// A range query's bound as an address.
pub fn ip_bound(bound: Bound<&str>) -> Result<Bound<u128>> {
    let parse = |s: &str| {
        parse_ip(s).ok_or_else(|| {
            SearchError::parsing(format!(
                "failed to create query: '{s}' is not an IP string literal."
            ))
        })
    };
    Ok(match bound {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(s) => Bound::Included(parse(s)?),
        Bound::Excluded(s) => Bound::Excluded(parse(s)?),
    })
}

/// Bounds as an inclusive range, `None` when nothing fits between them.
pub fn inclusive(lower: Bound<u128>, upper: Bound<u128>) -> Option<RangeInclusive<u128>> {
    let low = match lower {
        Bound::Unbounded => 0,
        Bound::Included(x) => x,
        Bound::Excluded(x) => x.checked_add(1)?,
    };
    let high = match upper {
        Bound::Unbounded => u128::MAX,
        Bound::Included(x) => x,
        Bound::Excluded(x) => x.checked_sub(1)?,
    };
    (low <= high).then_some(low..=high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_order_numerically_with_ipv4_mapped() {
        assert!(parse_ip("10.0.0.9").unwrap() < parse_ip("10.0.0.10").unwrap());
        assert_eq!(parse_ip("10.0.0.1"), parse_ip("::ffff:10.0.0.1"));
        assert!(parse_ip("255.255.255.255").unwrap() < parse_ip("ffff::").unwrap());
        assert_eq!(parse_ip("not an ip"), None);
    }

    #[test]
    fn cidr_blocks_cover_their_hosts() {
        let block = cidr("10.1.0.0/16").unwrap().unwrap();
        assert!(block.contains(&parse_ip("10.1.255.255").unwrap()));
        assert!(!block.contains(&parse_ip("10.2.0.0").unwrap()));
        let all_v4 = cidr("0.0.0.0/0").unwrap().unwrap();
        assert!(all_v4.contains(&parse_ip("255.1.2.3").unwrap()));
        assert!(!all_v4.contains(&parse_ip("::1").unwrap()));
        assert_eq!(cidr("::/0").unwrap().unwrap(), 0..=u128::MAX);
        assert_eq!(cidr("1.2.3.4/32").unwrap().unwrap().count(), 1);
        assert!(cidr("10.0.0.0/33").unwrap().is_err());
        assert!(cidr("10.0.0.0").is_none());
    }

    #[test]
    fn exclusive_bounds_step_inward() {
        assert_eq!(
            inclusive(Bound::Excluded(1), Bound::Excluded(4)),
            Some(2..=3)
        );
        assert_eq!(inclusive(Bound::Excluded(3), Bound::Excluded(4)), None);
        assert_eq!(
            inclusive(Bound::Excluded(u128::MAX), Bound::Unbounded),
            None
        );
    }
}
