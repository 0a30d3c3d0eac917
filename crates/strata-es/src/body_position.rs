//! Where in a request body a parse error happened: Elasticsearch reports
//! the line and column of the offending token of the JSON it was reading
//! (`"[1:19] [bool] unknown field [mustt]"` for an
//! `x_content_parse_exception`, `"line"`/`"col"` fields for a
//! `parsing_exception`). The engine parses a `serde_json::Value`, which
//! keeps no positions, so the position is found afterwards: the error
//! names the offending key in brackets (`[owner] ... [key]`, the
//! convention of every Elasticsearch parse message), and the body is
//! scanned for the first key of that name inside a value of `owner`
//! (any key of that name when none is). Lines and columns are 1-based
//! and counted in bytes, as Jackson counts them on a UTF-8 body; the key
//! token's position is its opening quote.
//!
//! Which token: Elasticsearch's declarative parsers (`x_content_parse_exception`)
//! point at the key; its hand-written query parsers (`parsing_exception`)
//! at the value that follows it. A key whose name repeats under the same
//! owner gets its first occurrence's position; an error that names no key
//! of the body gets none.

/// A 1-based line and column in a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The line, 1-based.
    pub line: u32,
    /// The column in bytes, 1-based.
    pub col: u32,
}

/// Which token of the located key to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// The key itself (its opening quote).
    Key,
    /// The value after the key.
    Value,
}

/// Deepest nesting scanned; a body nested deeper is not located (the
/// engine refuses such queries anyway), which bounds the scanner's stack.
const MAX_DEPTH: usize = 1_000;

/// The position of the key `message` names in `body`, as [`Token`] says,
/// or `None` when the message names no key of the body.
pub fn locate(body: &[u8], message: &str, token: Token) -> Option<Position> {
    let names = bracketed(message);
    let owner = (names.len() > 1).then(|| names[0]);
    // The key is the last bracketed name that is a key of the body (a
    // trailing `[value]` is not); under its owner first, then anywhere.
    let keys = names.iter().skip(usize::from(owner.is_some())).rev();
    for key in keys.clone() {
        if let Some(found) = owner.and_then(|o| scan(body, key, Some(o), token)) {
            return Some(found);
        }
    }
    keys.into_iter()
        .find_map(|key| scan(body, key, None, token))
}

/// The `[...]` names of `message`, in order.
fn bracketed(message: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = message;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        if close > 0 {
            out.push(&after[..close]);
        }
        rest = &after[close + 1..];
    }
    out
}

/// One open container of the scan.
struct Frame {
    object: bool,
    /// The container is the value of a key named as the owner.
    under_owner: bool,
    /// In an object: the next string is a key.
    expect_key: bool,
}

/// The first key `key` (below a key `owner` when given) of `body`.
fn scan(body: &[u8], key: &str, owner: Option<&str>, token: Token) -> Option<Position> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut owners = 0usize;
    let (mut line, mut line_start) = (1u32, 0usize);
    // The key just read: its name matched the owner; it was the target.
    let mut last_key_is_owner = false;
    let mut value_wanted = false;
    let mut i = 0;
    while i < body.len() {
        let here = Position {
            line,
            col: (i - line_start + 1) as u32,
        };
        let b = body[i];
        match b {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'\r' => {
                if body.get(i + 1) != Some(&b'\n') {
                    line += 1;
                    line_start = i + 1;
                }
            }
            b' ' | b'\t' | b':' => {}
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.expect_key = top.object;
                }
            }
            b'{' | b'[' => {
                if value_wanted {
                    return Some(here);
                }
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                let in_object = stack.last().is_some_and(|f| f.object);
                let under_owner = in_object && last_key_is_owner;
                owners += usize::from(under_owner);
                stack.push(Frame {
                    object: b == b'{',
                    under_owner,
                    expect_key: b == b'{',
                });
                last_key_is_owner = false;
            }
            b'}' | b']' => {
                if let Some(frame) = stack.pop() {
                    owners -= usize::from(frame.under_owner);
                }
            }
            b'"' => {
                let top = stack.last_mut();
                let is_key = top.as_ref().is_some_and(|f| f.object && f.expect_key);
                if value_wanted && !is_key {
                    return Some(here);
                }
                let end = string_end(body, i)?;
                if is_key {
                    if let Some(f) = top {
                        f.expect_key = false;
                    }
                    let name = &body[i + 1..end];
                    let in_scope = owner.is_none() || owners > 0;
                    if in_scope && same_name(name, key) {
                        match token {
                            Token::Key => return Some(here),
                            Token::Value => value_wanted = true,
                        }
                    }
                    last_key_is_owner = owner.is_some_and(|o| same_name(name, o));
                }
                i = end;
            }
            _ => {
                if value_wanted {
                    return Some(here);
                }
                // A bare literal (number, true, false, null): skip it.
                while i + 1 < body.len()
                    && !matches!(
                        body[i + 1],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b'"'
                    )
                {
                    i += 1;
                }
            }
        }
        i += 1;
    }
    None
}

/// The index of the quote closing the string opened at `open`.
pub(crate) fn string_end(body: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < body.len() {
        match body[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// True when the raw JSON string contents `raw` decode to `name`.
pub(crate) fn same_name(raw: &[u8], name: &str) -> bool {
    if !raw.contains(&b'\\') {
        return raw == name.as_bytes();
    }
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted).is_ok_and(|s| s == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, col: u32) -> Option<Position> {
        Some(Position { line, col })
    }

    #[test]
    fn the_key_under_its_owner_is_found() {
        let body = br#"{"query":{"bool":{"mustt":[]}}}"#;
        let message = "[bool] unknown field [mustt]";
        assert_eq!(locate(body, message, Token::Key), at(1, 19));
        assert_eq!(locate(body, message, Token::Value), at(1, 27));
    }

    #[test]
    fn lines_and_columns_count_from_one() {
        let body = b"{\n  \"query\": {\n    \"match\": {\"title\": {\"query\": \"a\", \"fuzzyy\": 2}}\n  }\n}";
        let message = "[match] query does not support [fuzzyy]";
        assert_eq!(locate(body, message, Token::Key), at(3, 39));
        assert_eq!(locate(body, message, Token::Value), at(3, 49));
        let crlf = b"{\r\n\"query\":\r\n{\"nope\":{}}}";
        assert_eq!(locate(crlf, "unknown query [nope]", Token::Value), at(3, 9));
    }

    #[test]
    fn the_owner_decides_between_keys_of_the_same_name() {
        // `type` is a field name in the first clause and a bad parameter
        // of `term` in the second.
        let body = br#"{"query":{"bool":{"must":[{"match":{"type":"x"}},{"term":{"f":{"value":1,"type":2}}}]}}}"#;
        let message = "[term] query does not support [type]";
        let found = locate(body, message, Token::Key).unwrap();
        let text = std::str::from_utf8(body).unwrap();
        assert_eq!(found.col as usize, text.rfind("\"type\"").unwrap() + 1);
    }

    #[test]
    fn a_trailing_value_is_not_taken_for_the_key() {
        let body = br#"{"query":{"query_string":{"query":"a","lenientt":"yes"}}}"#;
        let message = "[query_string] query does not support [lenientt] with value [yes]";
        assert_eq!(locate(body, message, Token::Key), at(1, 39));
    }

    #[test]
    fn strings_that_are_values_or_escaped_are_handled() {
        // "mustt" as a value is not a key; an escaped key decodes.
        let body = br#"{"q":"mustt","query":{"bool":{"must\u0074":1}}}"#;
        assert_eq!(
            locate(body, "[bool] unknown field [mustt]", Token::Key),
            at(1, 31)
        );
    }

    #[test]
    fn nothing_is_found_for_names_not_in_the_body() {
        let body = br#"{"query":{"match_all":{}}}"#;
        assert_eq!(locate(body, "query malformed", Token::Key), None);
        assert_eq!(locate(body, "[bool] unknown field [x]", Token::Key), None);
        assert_eq!(
            locate(b"{\"a\":\"unterminated", "[a]", Token::Value),
            at(1, 6)
        );
        let deep = "[".repeat(MAX_DEPTH + 10);
        assert_eq!(locate(deep.as_bytes(), "[a]", Token::Key), None);
    }
}
