//! Lucene's regular expression syntax (Elasticsearch's `regexp` query and
//! `query_string`'s `/.../`) translated into the `regex-syntax` dialect
//! tantivy's term-dictionary automaton takes.
//!
//! Lucene's expressions always match a whole term; `.` matches any
//! character (newlines too); `"..."` is a literal string and `\` escapes
//! any character; `^`, `$` and the other Perl operators are literal
//! characters. Of the optional operators, `@` (any string) and `<n-m>` (a
//! decimal interval) are translated; `~` (complement), `&` (intersection)
//! and `#` (the empty language) have no equivalent the term-dictionary
//! automaton accepts (it has no empty character class) and are refused
//! when enabled rather than matched differently.

use crate::error::{Result, SearchError};
use crate::query::term_options::Flags;

/// The largest `<n-m>` interval translated (as an alternation of its numbers).
const MAX_INTERVAL: u64 = 1000;

/// Translates a Lucene expression into an equivalent `regex-syntax`
/// pattern (unanchored: the automaton matches whole terms anyway).
pub fn translate(pattern: &str, flags: Flags) -> Result<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        at += 1;
        match c {
            '\\' => {
                let escaped = chars.get(at).ok_or_else(|| bad(pattern, "ends with \\"))?;
                out.push_str(&escape(*escaped));
                at += 1;
            }
            '"' => {
                let end = chars[at..]
                    .iter()
                    .position(|&c| c == '"')
                    .ok_or_else(|| bad(pattern, "unterminated string"))?;
                for &literal in &chars[at..at + end] {
                    out.push_str(&escape(literal));
                }
                at += end + 1;
            }
            '[' => at = class(&chars, at, pattern, &mut out)?,
            '{' => {
                let end = chars[at..]
                    .iter()
                    .position(|&c| c == '}')
                    .ok_or_else(|| bad(pattern, "unterminated repetition"))?;
                let inner: String = chars[at..at + end].iter().collect();
                if inner.is_empty() || !inner.chars().all(|c| c.is_ascii_digit() || c == ',') {
                    return Err(bad(pattern, &format!("bad repetition {{{inner}}}")));
                }
                out.push_str(&format!("{{{inner}}}"));
                at += end + 1;
            }
            '.' | '?' | '+' | '*' | '|' | '(' | ')' => out.push(c),
            '@' if flags.anystring => out.push_str("(?:.*)"),
            '#' if flags.empty => return Err(unsupported(pattern, "empty language (#)", "EMPTY")),
            '<' if flags.interval => at = interval(&chars, at, pattern, &mut out)?,
            '~' if flags.complement => {
                return Err(unsupported(
                    pattern,
                    "complement operator (~)",
                    "COMPLEMENT",
                ))
            }
            '&' if flags.intersection => {
                return Err(unsupported(
                    pattern,
                    "intersection operator (&)",
                    "INTERSECTION",
                ))
            }
            literal => out.push_str(&escape(literal)),
        }
    }
    Ok(out)
}

/// A character class `[...]` (after its `[`); returns the index after `]`.
fn class(chars: &[char], mut at: usize, pattern: &str, out: &mut String) -> Result<usize> {
    out.push('[');
    if chars.get(at) == Some(&'^') {
        out.push('^');
        at += 1;
    }
    let start = at;
    loop {
        let c = *chars
            .get(at)
            .ok_or_else(|| bad(pattern, "unterminated character class"))?;
        at += 1;
        match c {
            ']' if at - 1 > start => break,
            '\\' => {
                let escaped = chars.get(at).ok_or_else(|| bad(pattern, "ends with \\"))?;
                out.push_str(&escape(*escaped));
                at += 1;
            }
            // A range between two characters (not first, not last).
            '-' if at - 1 > start && chars.get(at).is_some_and(|&n| n != ']') => out.push('-'),
            literal => out.push_str(&escape(literal)),
        }
    }
    out.push(']');
    Ok(at)
}

/// A decimal interval `<n-m>` (after its `<`): fixed width when both
/// bounds are written with the same number of digits, otherwise any
/// number of leading zeros (Lucene's rule). Returns the index after `>`.
fn interval(chars: &[char], at: usize, pattern: &str, out: &mut String) -> Result<usize> {
    let end = chars[at..]
        .iter()
        .position(|&c| c == '>')
        .ok_or_else(|| bad(pattern, "unterminated interval"))?;
    let inner: String = chars[at..at + end].iter().collect();
    let (low, high) = inner
        .split_once('-')
        .filter(|(l, h)| {
            !l.is_empty()
                && !h.is_empty()
                && l.chars().all(|c| c.is_ascii_digit())
                && h.chars().all(|c| c.is_ascii_digit())
        })
        .ok_or_else(|| bad(pattern, &format!("bad interval <{inner}>")))?;
    let width = if low.len() == high.len() {
        low.len()
    } else {
        0
    };
    let parse = |s: &str| {
        s.parse::<u64>()
            .map_err(|_| bad(pattern, &format!("bad interval <{inner}>")))
    };
    let (mut min, mut max) = (parse(low)?, parse(high)?);
    if min > max {
        std::mem::swap(&mut min, &mut max);
    }
    if max - min > MAX_INTERVAL {
        return Err(SearchError::illegal(format!(
            "[regexp] interval <{inner}> spans more than {MAX_INTERVAL} numbers"
        )));
    }
    let numbers: Vec<String> = (min..=max).map(|n| format!("{n:0width$}")).collect();
    if width == 0 {
        out.push_str("0*");
    }
    out.push_str(&format!("(?:{})", numbers.join("|")));
    Ok(at + end + 1)
}

/// `c` as a literal in a `regex-syntax` pattern.
pub(crate) fn escape(c: char) -> String {
    if c.is_alphanumeric() {
        c.to_string()
    } else if c.is_ascii() {
        format!("\\x{:02x}", c as u32)
    } else {
        format!("\\x{{{:x}}}", c as u32)
    }
}

fn unsupported(pattern: &str, operator: &str, flag: &str) -> SearchError {
    SearchError::illegal(format!(
        "[regexp] the {operator} is not supported: [{pattern}]; escape it or leave {flag} out of the flags"
    ))
}

fn bad(pattern: &str, what: &str) -> SearchError {
    SearchError::parsing(format!("[regexp] invalid expression [{pattern}]: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the translation of `pattern` matches the whole of `term`,
    /// run as tantivy runs it: a `RegexQuery` over a term dictionary.
    fn matches(pattern: &str, flags: Flags, term: &str) -> bool {
        use tantivy::collector::Count;
        use tantivy::query::RegexQuery;
        use tantivy::schema::{Schema, STRING};
        use tantivy::{doc, Index};

        let translated = translate(pattern, flags).expect("translates");
        let mut schema = Schema::builder();
        let field = schema.add_text_field("f", STRING);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 20_000_000).unwrap();
        writer.add_document(doc!(field => term)).unwrap();
        writer.commit().unwrap();
        let query = RegexQuery::from_pattern(&format!("(?s:{translated})"), field)
            .unwrap_or_else(|e| panic!("{pattern} -> {translated}: {e}"));
        let searcher = index.reader().unwrap().searcher();
        searcher.search(&query, &Count).unwrap() == 1
    }

    #[test]
    fn standard_operators_match_whole_terms() {
        let all = Flags::ALL;
        assert!(matches("ab.", all, "abz"));
        assert!(!matches("ab.", all, "xabz"), "anchored at both ends");
        assert!(matches("abc?", all, "ab") && matches("abc?", all, "abc"));
        assert!(matches("ab+", all, "abbb") && !matches("ab+", all, "a"));
        assert!(matches("(ab)*", all, "abab"));
        assert!(matches("a{2,3}", all, "aaa") && !matches("a{2,3}", all, "aaaa"));
        assert!(matches("abc|xyz", all, "xyz"));
        assert!(matches("[a-c]x[^0-9]", all, "bxz") && !matches("[a-c]x[^0-9]", all, "bx5"));
        assert!(matches("a.c", all, "a\nc"), ". matches newlines");
    }

    #[test]
    fn perl_operators_and_quoted_strings_are_literal() {
        let all = Flags::ALL;
        assert!(matches("^a$", all, "^a$") && !matches("^a$", all, "a"));
        assert!(matches("\"john@smith.com\"", all, "john@smith.com"));
        assert!(!matches("\"a.c\"", all, "abc"));
        assert!(matches(r"a\.c", all, "a.c") && !matches(r"a\.c", all, "abc"));
        assert!(matches(r"a\@", all, "a@"));
        assert!(matches(r"[\]x]", all, "]"));
    }

    #[test]
    fn optional_operators_follow_the_flags() {
        let all = Flags::ALL;
        assert!(matches("foo<1-100>", all, "foo42") && !matches("foo<1-100>", all, "foo101"));
        assert!(
            matches("foo<1-100>", all, "foo007"),
            "leading zeros allowed"
        );
        assert!(matches("foo<01-99>", all, "foo07") && !matches("foo<01-99>", all, "foo7"));
        assert!(matches("ab@", all, "abxyz"));
        let none = Flags::parse("NONE").unwrap();
        assert!(matches("a@b", none, "a@b") && matches("c#", none, "c#"));
        assert!(matches("a<1-2>", none, "a<1-2>"));
        assert!(matches("a~b&c", none, "a~b&c"));
        assert!(translate("a~b", all).is_err());
        assert!(translate("a.+&.+b", all).is_err());
        assert!(translate("c#", all).is_err());
        let some = Flags::parse("interval|ANYSTRING").unwrap();
        assert!(some.interval && some.anystring && !some.complement);
        assert!(Flags::parse("SOMETIMES").is_err());
    }

    #[test]
    fn malformed_expressions_are_parse_errors() {
        for bad in ["[abc", "a\\", "\"abc", "a{x}", "a<1-x>", "a<5-5000>"] {
            assert!(translate(bad, Flags::ALL).is_err(), "{bad}");
        }
    }
}
