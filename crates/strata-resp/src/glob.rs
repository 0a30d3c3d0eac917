//! Glob-style pattern matching for `KEYS`, `SCAN MATCH` and `CONFIG GET`,
//! with Redis's `stringmatchlen` rules: `*`, `?`, `[abc]`, `[^a]`, `[a-z]`
//! and `\` escapes. An unterminated `[` matches up to the end of the pattern.
//!
//! Matching is bounded: nesting of `*` deeper than [`MAX_NESTING`] fails the
//! match (as Redis does) so no pattern can exhaust the stack, and a failed
//! `*` tail stops longer attempts, keeping the work polynomial.

/// Deepest `*` recursion attempted before a match is declared failed.
pub const MAX_NESTING: usize = 1000;

/// True when `text` matches `pattern`.
pub fn matches(pattern: &[u8], text: &[u8]) -> bool {
    let mut skip_longer = false;
    match_from(pattern, text, false, &mut skip_longer, 0)
}

/// Like [`matches`] but ASCII case-insensitive (`CONFIG GET` patterns).
pub fn matches_nocase(pattern: &[u8], text: &[u8]) -> bool {
    let mut skip_longer = false;
    match_from(pattern, text, true, &mut skip_longer, 0)
}

fn eq(a: u8, b: u8, nocase: bool) -> bool {
    if nocase {
        a.eq_ignore_ascii_case(&b)
    } else {
        a == b
    }
}

fn match_from(
    mut p: &[u8],
    mut s: &[u8],
    nocase: bool,
    skip_longer: &mut bool,
    nesting: usize,
) -> bool {
    if nesting > MAX_NESTING {
        return false;
    }
    while let (Some(&pc), Some(&sc)) = (p.first(), s.first()) {
        match pc {
            b'*' => {
                while p.get(1) == Some(&b'*') {
                    p = &p[1..];
                }
                if p.len() == 1 {
                    return true;
                }
                while !s.is_empty() {
                    if match_from(&p[1..], s, nocase, skip_longer, nesting + 1) {
                        return true;
                    }
                    if *skip_longer {
                        return false;
                    }
                    s = &s[1..];
                }
                *skip_longer = true;
                return false;
            }
            b'?' => s = &s[1..],
            b'[' => {
                p = &p[1..];
                let negate = p.first() == Some(&b'^');
                if negate {
                    p = &p[1..];
                }
                let mut matched = false;
                loop {
                    match p {
                        [] => break,
                        [b'\\', escaped, ..] => {
                            p = &p[1..];
                            matched |= eq(*escaped, sc, nocase);
                        }
                        [b']', ..] => break,
                        [start, b'-', end, ..] => {
                            let (lo, hi) = if start <= end {
                                (*start, *end)
                            } else {
                                (*end, *start)
                            };
                            let c = sc;
                            matched |= if nocase {
                                let c = c.to_ascii_lowercase();
                                (lo.to_ascii_lowercase()..=hi.to_ascii_lowercase()).contains(&c)
                            } else {
                                (lo..=hi).contains(&c)
                            };
                            p = &p[2..];
                        }
                        [c, ..] => matched |= eq(*c, sc, nocase),
                    }
                    p = &p[1..];
                }
                if negate {
                    matched = !matched;
                }
                if !matched {
                    return false;
                }
                s = &s[1..];
                // `p` is at the closing `]` (or empty when unterminated).
                if p.is_empty() {
                    return s.is_empty();
                }
            }
            b'\\' if p.len() >= 2 => {
                if !eq(p[1], sc, nocase) {
                    return false;
                }
                p = &p[1..];
                s = &s[1..];
            }
            _ => {
                if !eq(pc, sc, nocase) {
                    return false;
                }
                s = &s[1..];
            }
        }
        p = &p[1..];
        if s.is_empty() {
            while p.first() == Some(&b'*') {
                p = &p[1..];
            }
            break;
        }
    }
    p.is_empty() && s.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        matches(p.as_bytes(), s.as_bytes())
    }

    #[test]
    fn literals_and_wildcards() {
        assert!(m("", ""));
        assert!(!m("", "a"));
        // As in Redis, no pattern matches the empty string except the empty
        // pattern (KEYS and SCAN special-case a lone `*`).
        assert!(!m("*", ""));
        assert!(m("*", "anything"));
        assert!(m("h?llo", "hello"));
        assert!(!m("h?llo", "hllo"));
        assert!(m("h*llo", "hllo"));
        assert!(m("h*llo", "heeeello"));
        assert!(m("user:*:name", "user:42:name"));
        assert!(!m("user:*:name", "user:42:names"));
        assert!(m("a**b", "axxb"));
        assert!(m("*a*", "banana"));
        assert!(!m("a", ""));
        assert!(m("a*", "a"));
    }

    #[test]
    fn classes() {
        assert!(m("h[ae]llo", "hello"));
        assert!(m("h[ae]llo", "hallo"));
        assert!(!m("h[ae]llo", "hillo"));
        assert!(m("h[^e]llo", "hallo"));
        assert!(!m("h[^e]llo", "hello"));
        assert!(m("h[a-b]llo", "hbllo"));
        assert!(m("h[b-a]llo", "hallo"));
        assert!(!m("h[a-b]llo", "hcllo"));
        assert!(m("[\\]]", "]"));
        // Unterminated class: matches like a class running to the end.
        assert!(m("[ab", "a"));
        assert!(!m("[ab", "ax"));
    }

    #[test]
    fn escapes() {
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
        assert!(m("a\\?b", "a?b"));
        assert!(!m("a\\?b", "axb"));
        assert!(m("a\\", "a\\"));
    }

    #[test]
    fn nocase() {
        assert!(matches_nocase(b"MAXMEM*", b"maxmemory"));
        assert!(!matches(b"MAXMEM*", b"maxmemory"));
        assert!(matches_nocase(b"[A-Z]x", b"qX"));
    }

    #[test]
    fn abusive_patterns_terminate() {
        let pattern = "*a".repeat(5000) + "b";
        let text = "a".repeat(5000);
        assert!(!m(&pattern, &text));
        let pattern = "a*".repeat(2000);
        let text = "a".repeat(3000);
        // Deeper than MAX_NESTING: refused rather than recursing further.
        assert!(!m(&pattern, &text));
    }
}
