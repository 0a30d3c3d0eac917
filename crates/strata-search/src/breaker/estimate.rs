//! What JSON costs once parsed, estimated before parsing it: one pass
//! over the bytes counting values, object keys and string bytes, with no
//! recursion and no allocation. The constants are `serde_json::Value`'s
//! layout on 64-bit targets plus the allocator's and `BTreeMap`'s
//! overhead, rounded up: an estimate must not be lower than what parsing
//! takes, or the breaker would let through what it is meant to stop.

/// One `Value` (an enum of 32 bytes), in an array slot or a map node.
pub(crate) const VALUE_BYTES: u64 = 32;
/// An object key: its `String` and its share of a `BTreeMap` node (nodes
/// hold up to 11 entries and are often two thirds full).
pub(crate) const KEY_BYTES: u64 = 72;

/// Counts of a JSON text's parts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct JsonShape {
    /// Values of every kind (scalars, arrays, objects).
    pub values: u64,
    /// Object keys.
    pub keys: u64,
    /// Bytes inside string literals (keys and values).
    pub string_bytes: u64,
}

impl JsonShape {
    /// Scans `bytes` (valid JSON or not: the estimate only bounds what a
    /// parse could take before failing).
    pub(crate) fn of(bytes: &[u8]) -> JsonShape {
        let mut shape = JsonShape::default();
        let mut expect_value = true;
        let mut at = 0;
        while let Some(&b) = bytes.get(at) {
            at += 1;
            if shape.outside_string(b, &mut expect_value) {
                let (end, inside) = string_end(bytes, at);
                shape.string_bytes += inside;
                at = end;
            }
        }
        shape
    }

    /// Counts the byte `b` met outside strings; returns whether it opens
    /// a string. `expect_value`: whether the next scalar starts a value
    /// (after `[`, `,`, `:` or at the start), so `123` counts once, not
    /// per digit.
    fn outside_string(&mut self, b: u8, expect_value: &mut bool) -> bool {
        match b {
            b'"' => {
                if *expect_value {
                    self.values += 1;
                    *expect_value = false;
                }
                return true;
            }
            b'{' | b'[' => {
                self.values += 1;
                *expect_value = true;
            }
            b',' => *expect_value = true,
            b':' => {
                // The string before the colon was a key, not a value.
                self.keys += 1;
                self.values = self.values.saturating_sub(1);
                *expect_value = true;
            }
            b'}' | b']' => *expect_value = false,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                if *expect_value {
                    self.values += 1;
                    *expect_value = false;
                }
            }
        }
        false
    }

    /// Bytes a `serde_json::Value` of this shape takes.
    pub(crate) fn parsed_bytes(&self) -> u64 {
        self.values * VALUE_BYTES + self.keys * KEY_BYTES + self.string_bytes
    }
}

/// Where the string whose contents start at `from` ends (just past its
/// closing quote, or the end of `bytes` if it is not closed) and how many
/// bytes it holds (an escape counts as the one byte it stands for). Jumps
/// from one quote or backslash to the next: most of a document's bytes
/// are inside strings.
fn string_end(bytes: &[u8], from: usize) -> (usize, u64) {
    let mut inside = 0u64;
    let mut at = from;
    loop {
        let rest = bytes.get(at..).unwrap_or_default();
        let Some(skip) = memchr::memchr2(b'"', b'\\', rest) else {
            return (bytes.len(), inside + rest.len() as u64);
        };
        inside += skip as u64;
        at += skip;
        if bytes[at] == b'"' {
            return (at + 1, inside);
        }
        // A backslash and the byte it escapes (if any).
        if at + 1 < bytes.len() {
            inside += 1;
        }
        at += 2;
        if at >= bytes.len() {
            return (bytes.len(), inside);
        }
    }
}

/// Bytes `bytes` take once parsed into a `serde_json::Value`.
pub fn parsed_json(bytes: &[u8]) -> u64 {
    JsonShape::of(bytes).parsed_bytes()
}

/// Copies of a document's bytes indexing holds at its peak: the parsed
/// strings, the typed values, the tantivy document and its stored
/// `_source`, the translog record and its encoding, the live version
/// map's copy.
const INDEXING_COPIES: u64 = 7;
/// What one value costs on its way through indexing besides its bytes:
/// its `Value`, its typed value and path, its tantivy value and its share
/// of the writer's indexing arena.
const INDEXING_VALUE_BYTES: u64 = 200;

/// Bytes indexing the document `source` takes at its peak, measured on
/// 90 MB documents: text (one value: 0.62 GB, estimated 0.66 GB),
/// 7.8 million keywords (2.2 GB, estimated 2.2 GB), 10 million numbers
/// (1.5 GB, estimated 2.7 GB).
///
/// A source under [`SCAN_FROM`] bytes is not scanned: it holds at most
/// one value per byte, and that bound (under 424,000 bytes) is reserved
/// instead. The scan was 1% of a bulk's CPU for documents whose
/// reservation never decides anything.
pub fn indexing(source: &[u8]) -> u64 {
    let values = if source.len() < SCAN_FROM {
        source.len() as u64
    } else {
        JsonShape::of(source).values
    };
    (source.len() as u64) * INDEXING_COPIES + values * INDEXING_VALUE_BYTES
}

/// Sources this long or longer have their values counted.
const SCAN_FROM: usize = 2048;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_source_reserves_its_bound_and_never_less_than_a_scan() {
        for source in [&b"[1,2,3]"[..], b"[[[[[[", b"{\"a\":\"bcd\"}", b""] {
            let scanned = (source.len() as u64) * INDEXING_COPIES
                + JsonShape::of(source).values * INDEXING_VALUE_BYTES;
            assert!(indexing(source) >= scanned, "{source:?}");
            assert_eq!(indexing(source), source.len() as u64 * 207);
        }
        let long = format!("[{}1]", "1,".repeat(SCAN_FROM));
        let values = JsonShape::of(long.as_bytes()).values;
        assert_eq!(values, SCAN_FROM as u64 + 2);
        assert_eq!(
            indexing(long.as_bytes()),
            long.len() as u64 * INDEXING_COPIES + values * INDEXING_VALUE_BYTES
        );
    }

    #[test]
    fn counts_values_keys_and_string_bytes() {
        let shape = JsonShape::of(br#"{"a": [1, 22, "x\"y"], "bc": {"d": null}}"#);
        assert_eq!(
            shape,
            JsonShape {
                // the root, the array, 1, 22, "x\"y", the inner object, null
                values: 7,
                keys: 3,
                string_bytes: 1 + 3 + 2 + 1,
            }
        );
        assert_eq!(JsonShape::of(b"12345").values, 1);
        assert_eq!(JsonShape::of(b"").values, 0);
    }

    /// Strings scanned a byte at a time, as before they were skipped
    /// with `memchr`: the model the faster scan must agree with.
    fn shape_by_bytes(bytes: &[u8]) -> JsonShape {
        let mut shape = JsonShape::default();
        let (mut in_string, mut escaped, mut expect_value) = (false, false, true);
        for &b in bytes {
            if !in_string {
                in_string = shape.outside_string(b, &mut expect_value);
            } else if escaped {
                escaped = false;
                shape.string_bytes += 1;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            } else {
                shape.string_bytes += 1;
            }
        }
        shape
    }

    proptest::proptest! {
        /// Texts made of JSON's structural bytes, quotes, backslashes and
        /// letters (valid or not, strings cut anywhere).
        #[test]
        fn skipping_strings_counts_what_the_byte_scan_counts(
            text in proptest::collection::vec(
                proptest::sample::select(b"{}[]:,\"\\ ab1".to_vec()), 0..200)
        ) {
            proptest::prop_assert_eq!(JsonShape::of(&text), shape_by_bytes(&text));
        }
    }

    #[test]
    fn escapes_and_unclosed_strings() {
        for text in [
            &br#"{"a\"b": "c\\", "d": "\u00e9"}"#[..],
            br#"["abc"#,
            br#"["ab\"#,
            br#""\""#,
            b"\\",
        ] {
            assert_eq!(JsonShape::of(text), shape_by_bytes(text), "{text:?}");
        }
    }

    #[test]
    fn estimates_bound_a_parse_from_above() {
        // Many small values: the parsed form is many times the text.
        let text: Vec<u8> = format!("[{}]", vec!["1"; 10_000].join(",")).into_bytes();
        assert!(parsed_json(&text) >= 10_000 * VALUE_BYTES);
        let doc = br#"{"message": "GET /index.html 200", "status": 200, "bytes": 5120}"#;
        let estimate = parsed_json(doc);
        assert!(estimate > doc.len() as u64 && estimate < 20 * doc.len() as u64);
    }
}
