//! [`IpRangeParams`]: an `ip_range` aggregation's parameters, typed when
//! the request is parsed, as Elasticsearch 8's `IpRangeAggregationBuilder`
//! reads them: `field` (required), `ranges` (at least one; each
//! `{"from"?, "to"?, "key"?}` with `from` inclusive and `to` exclusive, or
//! `{"mask": "10.0.0.0/25", "key"?}`, whose `from`/`to` win over any
//! written beside it, as there), `keyed` (default false) and `missing`
//! (the address a document without one counts as). Addresses and masks
//! are parsed here, so a bad one is refused before any search, in
//! Elasticsearch's words under its `[ip_range] failed to parse field
//! [ranges]`.
//!
//! The ranges are kept in Elasticsearch's bucket order: by `from`
//! (unbounded first), then by `to` (unbounded last), ties in request
//! order. A mask's ends are its block's first address and the one after
//! its last; `::/0`'s are both unbounded (an IPv4 block's end lies in the
//! IPv6 space, `0.0.0.0/0` ends at `::1:0:0:0`, as there).
//!
//! Refused: `script`, `format`, `time_zone` (unknown to `ip_range` there
//! too) and `value_type` (a type hint for scripts and unmapped fields,
//! which this server does not use).

use serde_json::Value;

use super::filters::boolean;
use super::source::{field_name, object_of, unknown_key};
use crate::error::{Result, SearchError};
use crate::query::ip_range::{cidr, parse_ip};

const KIND: &str = "ip_range";

/// One requested range, its ends as addresses (IPv4 mapped into IPv6).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IpRangeSpec {
    /// Its `key`, or a mask's text (`None`: made of the ends).
    pub(crate) key: Option<String>,
    /// Inclusive start (`None`: unbounded).
    pub(crate) from: Option<u128>,
    /// Exclusive end (`None`: unbounded).
    pub(crate) to: Option<u128>,
}

/// The parameters of one `ip_range` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct IpRangeParams {
    pub(crate) field: String,
    /// At least one, in Elasticsearch's bucket order (see the module).
    pub(crate) ranges: Vec<IpRangeSpec>,
    pub(crate) keyed: bool,
    /// The address of documents without one.
    pub(crate) missing: Option<u128>,
}

impl IpRangeParams {
    /// The parameters `body` of the `ip_range` aggregation `name`.
    pub(crate) fn parse(name: &str, body: &Value) -> Result<IpRangeParams> {
        let obj = object_of(KIND, name, body)?;
        let mut field = None;
        let mut keyed = false;
        let mut missing = None;
        let mut list = None;
        for (k, v) in obj {
            match k.as_str() {
                "field" => field = Some(field_name(KIND, name, v)?),
                "keyed" => keyed = boolean(v).ok_or_else(|| bad_keyed(v))?,
                "missing" => missing = Some(missing_address(v)?),
                "ranges" => list = Some(v),
                "value_type" => {
                    return Err(SearchError::illegal(format!(
                    "[value_type] of [{KIND}] aggregation [{name}] is not supported by this server"
                )))
                }
                other => return Err(unknown_key(KIND, other)),
            }
        }
        let field = field.ok_or_else(|| {
            SearchError::illegal("Required one of fields [field], but none were specified.")
        })?;
        let mut ranges = match list {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(spec)
                .collect::<Result<Vec<_>>>()
                .map_err(|e| SearchError::field_parse(KIND, "ranges", e))?,
            Some(other) => {
                return Err(SearchError::FieldParse {
                    reason: format!(
                        "[{KIND}] ranges doesn't support values of type: {}",
                        token(other)
                    ),
                    cause: None,
                })
            }
        };
        if ranges.is_empty() {
            return Err(SearchError::illegal(format!(
                "No [ranges] specified for the [{name}] aggregation"
            )));
        }
        // Stable: equal ranges keep request order.
        // (`None < Some`: an unbounded `from` first; an unbounded `to` last.)
        ranges.sort_by_key(|r| (r.from, r.to.is_none(), r.to));
        Ok(IpRangeParams {
            field,
            ranges,
            keyed,
            missing,
        })
    }
}

fn bad_keyed(v: &Value) -> SearchError {
    SearchError::field_parse(
        KIND,
        "keyed",
        SearchError::illegal(format!(
            "Failed to parse value [{}] as only [true] or [false] are allowed.",
            text(v).unwrap_or_else(|| v.to_string())
        )),
    )
}

/// A scalar as Elasticsearch's parsers read it as text (`None`: an object
/// or array).
fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The name of `v`'s token, as Elasticsearch's parse errors give it.
fn token(v: &Value) -> &'static str {
    match v {
        Value::Null => "VALUE_NULL",
        Value::Bool(_) => "VALUE_BOOLEAN",
        Value::Number(_) => "VALUE_NUMBER",
        Value::String(_) => "VALUE_STRING",
        Value::Array(_) => "START_ARRAY",
        Value::Object(_) => "START_OBJECT",
    }
}

/// An address as written (`'x' is not an IP string literal.` otherwise).
fn address(written: &str) -> Result<u128> {
    parse_ip(written)
        .filter(|_| written.trim() == written)
        .ok_or_else(|| SearchError::illegal(format!("'{written}' is not an IP string literal.")))
}

/// `missing`: an address (the values source reads it as text).
fn missing_address(v: &Value) -> Result<u128> {
    address(&text(v).unwrap_or_else(|| v.to_string()))
}

/// One entry of `ranges`.
fn spec(entry: &Value) -> Result<IpRangeSpec> {
    let Value::Object(r) = entry else {
        return Err(SearchError::parsing(format!(
            "[ranges] must contain objects, but hit a {}",
            token(entry)
        )));
    };
    let mut key = None;
    let mut ends: [Option<String>; 2] = [None, None];
    let mut mask = None;
    for (k, v) in r {
        let written = || -> Result<Option<String>> {
            match v {
                Value::Null => Ok(None),
                Value::Array(_) | Value::Object(_) => Err(SearchError::parsing(format!(
                    "[ranges] [{k}] must be a value, but hit a {}",
                    token(v)
                ))),
                _ => Ok(text(v)),
            }
        };
        match k.as_str() {
            "key" => key = written()?,
            "from" => ends[0] = written()?,
            "to" => ends[1] = written()?,
            "mask" => mask = written()?,
            other => {
                return Err(SearchError::parsing(format!(
                    "Unexpected ip range parameter: [{other}]"
                )))
            }
        }
    }
    Ok(match mask {
        Some(mask) => {
            let (from, to) = block(&mask)?;
            IpRangeSpec {
                key: Some(key.unwrap_or(mask)),
                from,
                to,
            }
        }
        // (Elasticsearch reads the ends only without a mask.)
        None => {
            let [from, to] = ends.map(|e| e.map(|s| address(&s)).transpose());
            IpRangeSpec {
                key,
                from: from?,
                to: to?,
            }
        }
    })
}

/// A CIDR mask's (from, exclusive to), unbounded at the ends of the IPv6
/// space; refused as Elasticsearch's `InetAddresses.parseCidr` refuses.
fn block(mask: &str) -> Result<(Option<u128>, Option<u128>)> {
    let parts: Vec<&str> = mask.split('/').collect();
    // Java's split drops trailing empty parts ("10.0.0.0/" is one part).
    let parts = match parts.as_slice() {
        [a, ""] => vec![*a],
        _ => parts,
    };
    let [ip, bits] = parts[..] else {
        return Err(SearchError::illegal(format!(
            "Expected [ip/prefix] but was [{mask}]"
        )));
    };
    let base = address(ip)?;
    let v4 = !ip.contains(':');
    if !v4 && std::net::Ipv6Addr::from(base).to_ipv4_mapped().is_some() {
        return Err(SearchError::illegal(format!(
            "CIDR notation is not allowed with IPv6-mapped IPv4 address [{ip} as it introduces ambiguity as to whether the prefix length should be interpreted as a v4 prefix length or a v6 prefix length"
        )));
    }
    let prefix: i64 = bits
        .parse()
        .map_err(|_| SearchError::illegal(format!("For input string: \"{bits}\"")))?;
    if prefix < 0 || prefix > if v4 { 32 } else { 128 } {
        return Err(SearchError::illegal(format!(
            "Illegal prefix length [{prefix}] in [{mask}]. Must be 0-32 for IPv4 ranges, 0-128 for IPv6 ranges"
        )));
    }
    // (The checks above leave `cidr` nothing to refuse.)
    let Some(Ok(range)) = cidr(mask) else {
        return Err(SearchError::illegal(format!(
            "Expected [ip/prefix] but was [{mask}]"
        )));
    };
    let (first, last) = range.into_inner();
    Ok(((first != 0).then_some(first), last.checked_add(1)))
}

#[cfg(test)]
#[path = "ip_range_tests.rs"]
mod tests;
