//! Glob patterns over action and index names: `*` matches any run of
//! characters, `?` exactly one, everything else itself (Elasticsearch's
//! wildcard patterns for actions and index names; regular expressions
//! between slashes are handled in `names.rs`).

/// Whether `text` matches `pattern` as a whole. Linear in the text for
/// patterns with one star; at worst O(pattern × text) by backtracking to
/// the last star, never exponential.
pub fn matches(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            // Let the last star take one more character and retry.
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Whether `pattern` has a wildcard.
pub fn is_pattern(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_and_question_marks() {
        assert!(matches("indices:data/read/*", "indices:data/read/search"));
        assert!(matches(
            "indices:data/write/index[*",
            "indices:data/write/index[s]"
        ));
        assert!(!matches(
            "indices:data/write/index[*",
            "indices:data/write/index"
        ));
        assert!(matches("*", ""));
        assert!(matches("logs-*-2024", "logs-web-app-2024"));
        assert!(!matches("logs-*-2024", "logs-web-2023"));
        assert!(matches("log?", "logs"));
        assert!(!matches("log?", "log"));
        assert!(matches("a*b*c", "aXbYbZc"));
        assert!(!matches("a*b*c", "aXbYbZ"));
        assert!(matches("exact", "exact"));
        assert!(!matches("exact", "exacts"));
        assert!(is_pattern("a*") && is_pattern("a?") && !is_pattern("abc"));
    }
}
