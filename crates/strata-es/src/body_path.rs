//! Where in a request body the query a parse error names sits: the
//! engine's DSL errors carry the path of their query from the query
//! object down (`bool.must[1].range.ts`, `SearchError::InQuery`), and
//! the body is scanned for the first value whose path from the root ends
//! with it. Its span narrows [`body_position::locate`]'s search for the
//! offending key to that query, so of two clauses alike the one that
//! failed is placed, not the first.

use strata_search::QueryStep;

use crate::body_position::{same_name, string_end, Position};

/// Deepest nesting scanned, as `body_position` bounds it.
const MAX_DEPTH: usize = 1_000;

/// One step of the path to the value being scanned.
enum Step<'b> {
    /// The value of a key, its raw (still escaped) name.
    Key(&'b [u8]),
    /// An array element.
    Index(usize),
}

/// One open container of the scan.
struct Frame {
    object: bool,
    /// In an object: the next string is a key.
    expect_key: bool,
    /// In an object: a key's step is on the path.
    keyed: bool,
}

/// True when `steps` ends with `path`.
fn ends_with(steps: &[Step<'_>], path: &[QueryStep]) -> bool {
    steps.len() >= path.len()
        && steps[steps.len() - path.len()..]
            .iter()
            .zip(path)
            .all(|pair| match pair {
                (Step::Key(raw), QueryStep::Key(name)) => same_name(raw, name),
                (Step::Index(a), QueryStep::Index(b)) => a == b,
                _ => false,
            })
}

/// The byte span `[start, end)` of the first value of `body` whose path
/// ends with `path`; `None` when there is none (or the body is malformed
/// or nested deeper than the scan goes).
pub fn value_span(body: &[u8], path: &[QueryStep]) -> Option<(usize, usize)> {
    if path.is_empty() {
        return None;
    }
    let mut steps: Vec<Step<'_>> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b':' => {}
            b',' => match frames.last_mut() {
                Some(f) if f.object => {
                    if f.keyed {
                        steps.pop();
                        f.keyed = false;
                    }
                    f.expect_key = true;
                }
                Some(_) => {
                    if let Some(Step::Index(n)) = steps.last_mut() {
                        *n += 1;
                    }
                }
                None => {}
            },
            b'}' | b']' => {
                if let Some(f) = frames.pop() {
                    if !f.object || f.keyed {
                        steps.pop();
                    }
                }
            }
            _ if frames.last().is_some_and(|f| f.object && f.expect_key) => {
                if b != b'"' {
                    return None;
                }
                let end = string_end(body, i)?;
                steps.push(Step::Key(&body[i + 1..end]));
                if let Some(f) = frames.last_mut() {
                    f.expect_key = false;
                    f.keyed = true;
                }
                i = end;
            }
            _ => {
                // A value starts here.
                if ends_with(&steps, path) {
                    return Some((i, value_end(body, i)?));
                }
                match b {
                    b'{' | b'[' => {
                        if frames.len() >= MAX_DEPTH {
                            return None;
                        }
                        frames.push(Frame {
                            object: b == b'{',
                            expect_key: b == b'{',
                            keyed: false,
                        });
                        if b == b'[' {
                            steps.push(Step::Index(0));
                        }
                    }
                    b'"' => i = string_end(body, i)?,
                    _ => i = literal_end(body, i) - 1,
                }
            }
        }
        i += 1;
    }
    None
}

/// The end (exclusive) of the bare literal (number, `true`...) at `start`.
fn literal_end(body: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < body.len()
        && !matches!(
            body[i],
            b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b':'
        )
    {
        i += 1;
    }
    i
}

/// The end (exclusive) of the value starting at `start`.
fn value_end(body: &[u8], start: usize) -> Option<usize> {
    match body[start] {
        b'"' => Some(string_end(body, start)? + 1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            while i < body.len() {
                match body[i] {
                    b'"' => i = string_end(body, i)?,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => Some(literal_end(body, start)),
    }
}

/// `at`, a position in the part of `body` starting at byte `start`, as a
/// position in `body`.
pub fn shifted(body: &[u8], start: usize, at: Position) -> Position {
    let before = &body[..start];
    let mut line = 1u32;
    let mut line_start = 0usize;
    for (i, &b) in before.iter().enumerate() {
        if b == b'\n' || (b == b'\r' && body.get(i + 1) != Some(&b'\n')) {
            line += 1;
            line_start = i + 1;
        }
    }
    if at.line == 1 {
        Position {
            line,
            col: (start - line_start) as u32 + at.col,
        }
    } else {
        Position {
            line: line + at.line - 1,
            col: at.col,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body_position::{locate, Token};

    fn key(k: &str) -> QueryStep {
        QueryStep::Key(k.to_string())
    }

    #[test]
    fn the_value_at_the_path_is_found_not_the_first_alike() {
        let body = br#"{"query":{"bool":{"must":[{"range":{"ts":{"gte":1}}},
 {"range":{"ts":{"gte":1,"foo":2}}}]}}}"#;
        let path = [
            key("bool"),
            key("must"),
            QueryStep::Index(1),
            key("range"),
            key("ts"),
        ];
        let (start, end) = value_span(body, &path).unwrap();
        assert_eq!(&body[start..end], br#"{"gte":1,"foo":2}"#);
        let message = "[range] query does not support [foo]";
        let inner = locate(&body[start..end], message, Token::Key).unwrap();
        assert_eq!(shifted(body, start, inner), Position { line: 2, col: 26 });
        // A single clause has no index; a missing path is not found.
        let body = br#"{"bool":{"must":{"term":{"a":1}}}}"#;
        let (start, end) = value_span(body, &[key("must"), key("term")]).unwrap();
        assert_eq!(&body[start..end], br#"{"a":1}"#);
        assert_eq!(value_span(body, &[key("must"), QueryStep::Index(0)]), None);
        assert_eq!(value_span(br#"{"a":[1,"#, &[QueryStep::Index(1)]), None);
    }
}
