//! Newline-delimited JSON bodies (`_bulk`, `_msearch`): split into lines,
//! each parsed on demand. Elasticsearch requires the body to end with a
//! newline; blank lines are skipped.

use serde_json::Value;

use crate::error::{EsError, Result};

/// The non-blank lines of `body`, each without its newline.
/// Refuses a body whose last line is not terminated, as Elasticsearch does.
pub fn lines(body: &[u8]) -> Result<Vec<&[u8]>> {
    if !body.is_empty() && !body.ends_with(b"\n") {
        return Err(EsError::IllegalArgument(
            "The bulk request must be terminated by a newline [\\n]".into(),
        ));
    }
    Ok(body
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| line.iter().any(|b| !b.is_ascii_whitespace()))
        .collect())
}

/// Parses one line as a JSON value.
pub fn parse_line(line: &[u8], number: usize) -> Result<Value> {
    serde_json::from_slice(line)
        .map_err(|e| EsError::XContentParse(format!("[{}:{}] {e}", number + 1, e.column())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_requires_final_newline() {
        assert_eq!(lines(b"{}\n\n{\"a\":1}\r\n").unwrap().len(), 2);
        assert!(lines(b"{}\n{}").is_err());
        assert!(lines(b"").unwrap().is_empty());
        assert!(parse_line(b"{nope", 0).is_err());
    }
}
