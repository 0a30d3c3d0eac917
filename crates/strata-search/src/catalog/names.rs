//! Name rules: `*` wildcard matching, and the naming rules of indices and
//! aliases (Elasticsearch's `validateIndexOrAliasName`; only index names
//! must be lowercase).

use crate::error::{Result, SearchError};

/// `*` matches any run of characters.
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let mut rest = name;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    true
}

/// The rule `name` breaks as an index or alias name, if any.
fn broken_rule(name: &str, lowercase: bool) -> Option<&'static str> {
    if name.is_empty() {
        return Some("must not be empty");
    }
    if lowercase && name != name.to_lowercase() {
        return Some("must be lowercase");
    }
    if name.starts_with(['-', '_', '+']) {
        return Some("must not start with '_', '-', or '+'");
    }
    if name == "." || name == ".." {
        return Some("must not be '.' or '..'");
    }
    if name.len() > 255 {
        return Some("index name is too long");
    }
    if name.contains(['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ',', '#', ':']) {
        return Some(
            "must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?, #, :]",
        );
    }
    None
}

/// Checks an index name (`invalid_index_name_exception`). Beyond
/// Elasticsearch's rules, a NUL character is refused: an index's files live
/// in a directory of its name (Elasticsearch names them by UUID), and no
/// file name holds one (it was answered 500 by the failed directory).
pub fn validate_index_name(name: &str) -> Result<()> {
    let broken = if name.contains('\0') {
        Some("must not contain a NUL character")
    } else {
        broken_rule(name, true)
    };
    match broken {
        None => Ok(()),
        Some(reason) => Err(SearchError::InvalidIndexName {
            name: name.to_string(),
            reason: reason.to_string(),
        }),
    }
}

/// Checks an alias name (`invalid_alias_name_exception`).
pub fn validate_alias_name(name: &str) -> Result<()> {
    match broken_rule(name, false) {
        None => Ok(()),
        Some(reason) => Err(SearchError::InvalidAliasName {
            name: name.to_string(),
            reason: reason.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_and_names() {
        assert!(wildcard_match("log-*", "log-2024"));
        assert!(wildcard_match("*", "x"));
        assert!(wildcard_match("a*c*e", "abcde"));
        assert!(!wildcard_match("a*c", "abd"));
        assert!(validate_index_name("Bad").is_err());
        assert!(validate_index_name("_x").is_err());
        assert!(validate_index_name("ok-1").is_ok());
        assert!(validate_index_name("\0").is_err());
        assert!(validate_index_name("a\0b").is_err());
        assert!(validate_alias_name("Mixed-Case").is_ok());
        assert!(validate_alias_name("a*").is_err());
    }
}
