//! Index name patterns of role descriptors: exact names, wildcards (`*`,
//! `?`) or a regular expression between slashes (`/logs-[0-9]+/`, matched
//! against the whole name; Rust `regex` syntax, so Lucene's complement
//! `~` and intersection `&` operators are refused when the role loads).
//!
//! Restricted indices: names that Elasticsearch reserves for its own
//! security data (`.security*`) and async results. A role's patterns reach
//! them only with `allow_restricted_indices: true`; this server keeps no
//! data there, but an index created under such a name is guarded the same.

use regex::{Regex, RegexBuilder};

use super::glob;

/// Patterns of restricted index names.
const RESTRICTED: &[&str] = &[
    ".security",
    ".security-*",
    ".security-tokens*",
    ".security-profile*",
    ".async-search*",
];

/// Largest compiled regular expression of a name pattern (bytes).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Whether `name` is a restricted index name.
pub fn is_restricted(name: &str) -> bool {
    RESTRICTED.iter().any(|p| glob::matches(p, name))
}

/// One index name pattern.
#[derive(Debug, Clone)]
pub enum NamePattern {
    /// A name or wildcard pattern.
    Glob(String),
    /// `/regex/`, anchored at both ends.
    Regex(Regex),
}

impl NamePattern {
    /// Parses a pattern from a role descriptor.
    pub fn parse(pattern: &str) -> Result<NamePattern, String> {
        match pattern
            .strip_prefix('/')
            .and_then(|p| p.strip_suffix('/'))
            .filter(|_| pattern.len() >= 2)
        {
            Some(body) => RegexBuilder::new(&format!("^(?:{body})$"))
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map(NamePattern::Regex)
                .map_err(|e| format!("invalid index name pattern [{pattern}]: {e}")),
            None if pattern.is_empty() => Err("index name patterns must not be empty".into()),
            None => Ok(NamePattern::Glob(pattern.to_string())),
        }
    }

    /// Whether `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            NamePattern::Glob(p) => glob::matches(p, name),
            NamePattern::Regex(r) => r.is_match(name),
        }
    }

    /// The pattern as written.
    pub fn as_written(&self) -> String {
        match self {
            NamePattern::Glob(p) => p.clone(),
            NamePattern::Regex(r) => {
                let s = r.as_str();
                format!("/{}/", &s[4..s.len() - 2])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_regexes_and_restricted_names() {
        let p = NamePattern::parse("logs-*").unwrap();
        assert!(p.matches("logs-web") && !p.matches("metrics"));
        let r = NamePattern::parse("/logs-[0-9]+/").unwrap();
        assert!(r.matches("logs-42") && !r.matches("logs-42x") && !r.matches("xlogs-42"));
        assert_eq!(r.as_written(), "/logs-[0-9]+/");
        assert!(NamePattern::parse("/[/").is_err());
        assert!(NamePattern::parse("").is_err());
        assert!(is_restricted(".security-7") && is_restricted(".security"));
        assert!(!is_restricted("security") && !is_restricted(".kibana"));
    }
}
