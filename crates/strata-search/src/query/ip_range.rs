//! `ip` fields queried by address: exact addresses, ranges and CIDR blocks,
//! answered from the field's column.
//!
//! An address is kept as its canonical text (shown as is in hits, sorts
//! and aggregations) in a column only: new indices index no terms for it,
//! as Elasticsearch keeps addresses in points rather than terms, and the
//! terms of older indices are not read. Text order is not address order
//! (`"10.0.0.9" > "10.0.0.10"`), so per segment [`IpQuery`] finds the
//! column dictionary's ordinals of the wanted addresses (a lookup per
//! spelling of a few exact addresses, else one pass over the distinct
//! addresses, parsing each) and then the documents holding one of them.
//! Addresses compare as IPv6, IPv4 mapped into `::ffff:0:0/96`, as
//! Elasticsearch orders them.

use std::net::{IpAddr, Ipv6Addr};
use std::ops::{Bound, RangeInclusive};
use std::sync::Arc;

use tantivy::columnar::StrColumn;
use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, Score, SegmentReader};

use super::column_set::add_matches;
use super::filter::explain_filter;
use crate::error::{Result, SearchError};
use crate::store::KEYWORDS;

/// Exact addresses are looked up by their spellings when there are at most
/// this many, or at most one per this many distinct addresses in the
/// segment (a lookup reads a dictionary block, a pass parses every
/// address); else, and for any range, found by one pass.
const LOOKUPS_MAX: usize = 64;
const TERMS_PER_LOOKUP: usize = 64;

/// Documents whose address at one path lies in one of a set of ranges.
#[derive(Clone, Debug)]
pub struct IpQuery {
    /// The path's column, `f.<path>`.
    column: String,
    /// Sorted by start, disjoint and not adjacent.
    ranges: Arc<[RangeInclusive<u128>]>,
}

impl IpQuery {
    /// The addresses at `path` inside `range`.
    pub fn range(path: &str, range: RangeInclusive<u128>) -> IpQuery {
        IpQuery::ranges(path, vec![range])
    }

    /// The addresses at `path` equal to one of `addresses`.
    pub fn addresses(path: &str, addresses: &[u128]) -> IpQuery {
        IpQuery::ranges(path, addresses.iter().map(|&a| a..=a).collect())
    }

    /// The addresses at `path` inside any of `ranges`.
    pub fn ranges(path: &str, mut ranges: Vec<RangeInclusive<u128>>) -> IpQuery {
        ranges.sort_by_key(|r| *r.start());
        let mut merged: Vec<RangeInclusive<u128>> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match merged.last_mut() {
                Some(last)
                    if last
                        .end()
                        .checked_add(1)
                        .is_none_or(|next| *r.start() <= next) =>
                {
                    *last = *last.start()..=(*last.end()).max(*r.end());
                }
                _ => merged.push(r),
            }
        }
        IpQuery {
            column: format!("{KEYWORDS}.{path}"),
            ranges: merged.into(),
        }
    }

    fn contains(&self, ip: u128) -> bool {
        let after = self.ranges.partition_point(|r| *r.start() <= ip);
        after > 0 && ip <= *self.ranges[after - 1].end()
    }

    /// The sorted ordinals of `column`'s dictionary holding a wanted address.
    fn ordinals(&self, column: &StrColumn) -> std::io::Result<Vec<u64>> {
        let dictionary = column.dictionary();
        let mut ords = Vec::new();
        let exact = self.ranges.iter().all(|r| r.start() == r.end());
        let lookups_max = LOOKUPS_MAX.max(dictionary.num_terms() / TERMS_PER_LOOKUP);
        if exact && self.ranges.len() <= lookups_max {
            for r in self.ranges.iter() {
                for text in spellings(*r.start()) {
                    ords.extend(dictionary.term_ord(text)?);
                }
            }
            ords.sort_unstable();
            ords.dedup();
            return Ok(ords);
        }
        let mut stream = dictionary.stream()?;
        while stream.advance() {
            let inside = std::str::from_utf8(stream.key())
                .ok()
                .and_then(parse_ip)
                .is_some_and(|ip| self.contains(ip));
            if inside {
                ords.push(stream.term_ord());
            }
        }
        Ok(ords)
    }
}

impl Query for IpQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(IpWeight(self.clone())))
    }
}

struct IpWeight(IpQuery);

impl Weight for IpWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let Some(column) = reader.fast_fields().str(&self.0.column)? else {
            return Ok(Box::new(EmptyScorer));
        };
        let mut ords = self.0.ordinals(&column)?;
        // `add_matches` takes values within the column's bounds (a term no
        // live document holds may lie outside them).
        let held = column.ords().min_value()..=column.ords().max_value();
        ords.retain(|ord| held.contains(ord));
        if ords.is_empty() {
            return Ok(Box::new(EmptyScorer));
        }
        let mut docs = BitSet::with_max_value(reader.max_doc());
        add_matches(column.ords(), &ords, reader.max_doc(), &mut docs);
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(docs), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_filter(self, reader, doc, "IpQuery")
    }
}

/// The texts an address can be indexed as: an IPv4 address also as its
/// IPv6 mapping (`::ffff:10.0.0.1`), which indexing keeps as written.
fn spellings(ip: u128) -> Vec<String> {
    let v6 = Ipv6Addr::from(ip);
    match v6.to_ipv4_mapped() {
        Some(v4) => vec![v4.to_string(), v6.to_string()],
        None => vec![v6.to_string()],
    }
}

/// An address as a 128-bit number (IPv4 mapped into IPv6).
pub fn parse_ip(text: &str) -> Option<u128> {
    let ip: IpAddr = text.trim().parse().ok()?;
    Some(match ip {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(v6),
    })
}

/// An address's text as Elasticsearch shows it: an IPv4-mapped one as
/// IPv4, any other as IPv6 in its shortest form (RFC 5952).
pub fn format_ip(ip: u128) -> String {
    let v6 = Ipv6Addr::from(ip);
    match v6.to_ipv4_mapped() {
        Some(v4) => v4.to_string(),
        None => v6.to_string(),
    }
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
pub fn cidr_query(path: &str, value: &serde_json::Value) -> Option<Result<Box<dyn Query>>> {
    let block = cidr(value.as_str()?)?;
    Some(block.map(|range| -> Box<dyn Query> { Box::new(IpQuery::range(path, range)) }))
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
    fn addresses_show_as_elasticsearch_shows_them() {
        let show = |t: &str| format_ip(parse_ip(t).unwrap());
        assert_eq!(show("::ffff:10.0.0.1"), "10.0.0.1");
        assert_eq!(show("2001:0db8:0:0:0:0:0:1"), "2001:db8::1");
        assert_eq!(show("::"), "::");
        assert_eq!(
            format_ip(parse_ip("255.255.255.255").unwrap() + 1),
            "::1:0:0:0"
        );
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
    fn ranges_merge_and_contain_their_addresses() {
        let q = IpQuery::ranges("a", vec![5..=9, 1..=3, 4..=4, 20..=30, 25..=26]);
        assert_eq!(&q.ranges[..], &[1..=9, 20..=30]);
        for (ip, inside) in [
            (0, false),
            (1, true),
            (9, true),
            (10, false),
            (30, true),
            (31, false),
        ] {
            assert_eq!(q.contains(ip), inside, "{ip}");
        }
        let top = IpQuery::ranges("a", vec![u128::MAX..=u128::MAX, 0..=u128::MAX]);
        assert_eq!(&top.ranges[..], &[0..=u128::MAX]);
        assert_eq!(IpQuery::addresses("a", &[7, 7]).ranges.len(), 1);
    }

    #[test]
    fn an_ipv4_address_is_looked_up_as_written_and_as_mapped() {
        let ip = parse_ip("10.0.0.1").unwrap();
        assert_eq!(spellings(ip), ["10.0.0.1", "::ffff:10.0.0.1"]);
        assert_eq!(spellings(parse_ip("::1").unwrap()), ["::1"]);
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
