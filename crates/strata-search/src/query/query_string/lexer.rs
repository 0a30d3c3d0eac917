//! The Lucene query syntax cut into tokens: operators, parentheses,
//! `field:(` group openings, boosts and leaf clauses (words, phrases,
//! ranges, `/regular expressions/`, with their `~` suffixes). Backslash
//! escapes any character. A `/` starts a regular expression only where a
//! value starts (`a/b` stays one word, as Kibana users type paths).

use crate::error::{Result, SearchError};
use crate::query::text_syntax::LeafValue;

/// A syntax error inside the query text (the caller names the query).
pub(super) fn bad(msg: impl std::fmt::Display) -> SearchError {
    SearchError::QueryShard(msg.to_string())
}

/// One token of a query string.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    /// `(`.
    Open,
    /// `field:(`: a group whose bare values search `field`.
    FieldOpen(String),
    /// `)`.
    Close,
    /// `AND`, `&&`.
    And,
    /// `OR`, `||`.
    Or,
    /// `NOT`, `!`.
    Not,
    /// A leading `+` (required).
    Plus,
    /// A leading `-` (prohibited).
    Minus,
    /// `^N` after a clause or group.
    Boost(f32),
    /// A value, with its field when written.
    Leaf {
        field: Option<String>,
        value: LeafValue,
    },
}

/// Characters that end a word.
const SPECIAL: &[char] = &['(', ')', ':', '"', '[', ']', '{', '}', '^', '~'];

struct Lexer {
    chars: Vec<char>,
    at: usize,
}

/// Cuts `text` into tokens.
pub(super) fn lex(text: &str) -> Result<Vec<Token>> {
    let mut lx = Lexer {
        chars: text.chars().collect(),
        at: 0,
    };
    let mut tokens = Vec::new();
    while let Some(c) = lx.peek() {
        match c {
            _ if c.is_whitespace() => lx.at += 1,
            '(' => lx.push(&mut tokens, Token::Open, 1),
            ')' => lx.push(&mut tokens, Token::Close, 1),
            '+' => lx.push(&mut tokens, Token::Plus, 1),
            '-' => lx.push(&mut tokens, Token::Minus, 1),
            '!' => lx.push(&mut tokens, Token::Not, 1),
            '&' if lx.peek_at(1) == Some('&') => lx.push(&mut tokens, Token::And, 2),
            '|' if lx.peek_at(1) == Some('|') => lx.push(&mut tokens, Token::Or, 2),
            '^' => {
                lx.at += 1;
                tokens.push(Token::Boost(lx.boost()?));
            }
            '"' | '[' | '{' | '/' => {
                let value = lx.value()?;
                tokens.push(Token::Leaf { field: None, value });
            }
            _ => {
                let (word, wildcard) = lx.word();
                if word.is_empty() {
                    return Err(bad(format!("Encountered \"{c}\" at column {}", lx.at)));
                }
                if lx.peek() == Some(':') {
                    lx.at += 1;
                    lx.skip_whitespace();
                    if lx.peek() == Some('(') {
                        lx.at += 1;
                        tokens.push(Token::FieldOpen(word));
                    } else {
                        let value = lx.value()?;
                        tokens.push(Token::Leaf {
                            field: Some(word),
                            value,
                        });
                    }
                    continue;
                }
                tokens.push(match word.as_str() {
                    "AND" if !wildcard => Token::And,
                    "OR" if !wildcard => Token::Or,
                    "NOT" if !wildcard => Token::Not,
                    _ => Token::Leaf {
                        field: None,
                        value: lx.word_suffix(word, wildcard)?,
                    },
                });
            }
        }
    }
    Ok(tokens)
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn push(&mut self, tokens: &mut Vec<Token>, token: Token, width: usize) {
        tokens.push(token);
        self.at += width;
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    /// A word up to whitespace or a special character; whether it holds an
    /// unescaped `*` or `?`.
    fn word(&mut self) -> (String, bool) {
        let mut out = String::new();
        let mut wildcard = false;
        while let Some(c) = self.peek() {
            if c.is_whitespace() || SPECIAL.contains(&c) {
                break;
            }
            if c == '\\' {
                if let Some(escaped) = self.peek_at(1) {
                    out.push(escaped);
                    self.at += 2;
                    continue;
                }
            }
            wildcard |= c == '*' || c == '?';
            out.push(c);
            self.at += 1;
        }
        (out, wildcard)
    }

    /// A number after `^` or `~` (empty is `None`).
    fn number(&mut self) -> Option<f32> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        text.parse().ok()
    }

    fn boost(&mut self) -> Result<f32> {
        self.number()
            .filter(|b| b.is_finite())
            .ok_or_else(|| bad(format!("a boost needs a number at column {}", self.at)))
    }

    /// The value after `field:` (or a bare phrase or range).
    fn value(&mut self) -> Result<LeafValue> {
        match self.peek() {
            Some('"') => {
                self.at += 1;
                let mut text = String::new();
                loop {
                    match self.peek() {
                        None => return Err(bad("Lexical error: unterminated quoted phrase")),
                        Some('"') => break,
                        Some('\\') if self.peek_at(1).is_some() => {
                            text.extend(self.peek_at(1));
                            self.at += 2;
                            continue;
                        }
                        Some(c) => text.push(c),
                    }
                    self.at += 1;
                }
                self.at += 1;
                let slop = if self.peek() == Some('~') {
                    self.at += 1;
                    Some(self.number().map_or(0, |n| n as u32))
                } else {
                    None
                };
                Ok(LeafValue::Phrase { text, slop })
            }
            Some(open @ ('[' | '{')) => self.range(open == '['),
            Some('/') => self.regex(),
            Some('>' | '<') => {
                let greater = self.peek() == Some('>');
                self.at += 1;
                let inclusive = self.peek() == Some('=');
                if inclusive {
                    self.at += 1;
                }
                let (bound, _) = self.word();
                if bound.is_empty() {
                    return Err(bad("missing value after a comparison"));
                }
                let bound = Some(bound);
                Ok(if greater {
                    range(bound, None, inclusive, false)
                } else {
                    range(None, bound, false, inclusive)
                })
            }
            _ => {
                let (word, wildcard) = self.word();
                if word.is_empty() {
                    return Err(bad(format!("missing value at column {}", self.at)));
                }
                self.word_suffix(word, wildcard)
            }
        }
    }

    /// A `/regular expression/`, up to the first `/` not escaped by a
    /// backslash; the text between is kept as written (escapes included)
    /// for the expression's own parser, as Lucene's query parser does.
    fn regex(&mut self) -> Result<LeafValue> {
        let start = self.at + 1;
        let mut at = start;
        loop {
            match self.chars.get(at) {
                None => return Err(bad("Lexical error: unterminated regular expression")),
                Some('\\') => at += 2,
                Some('/') => break,
                Some(_) => at += 1,
            }
        }
        let pattern = self.chars[start..at].iter().collect();
        self.at = at + 1;
        Ok(LeafValue::Regex(pattern))
    }

    /// A word with its optional `~N` (fuzzy) suffix.
    fn word_suffix(&mut self, text: String, wildcard: bool) -> Result<LeafValue> {
        if self.peek() != Some('~') {
            return Ok(LeafValue::Word { text, wildcard });
        }
        self.at += 1;
        let distance = match self.number() {
            Some(n) if n >= 1.0 => n.min(2.0) as u8,
            // `~` alone (or a legacy similarity) is AUTO.
            _ => auto_fuzziness(&text),
        };
        Ok(LeafValue::Fuzzy { text, distance })
    }

    fn range(&mut self, low_inclusive: bool) -> Result<LeafValue> {
        let start = self.at + 1;
        let end = self.chars[start..]
            .iter()
            .position(|c| matches!(c, ']' | '}'))
            .map(|p| start + p)
            .ok_or_else(|| bad("Lexical error: unterminated range"))?;
        let inner: String = self.chars[start..end].iter().collect();
        let high_inclusive = self.chars[end] == ']';
        self.at = end + 1;
        let parts: Vec<&str> = inner.split_whitespace().collect();
        let bound = |b: &str| {
            let b = b.trim_matches('"');
            (b != "*").then(|| b.to_string())
        };
        match parts.as_slice() {
            [low, "TO", high] => Ok(range(
                bound(low),
                bound(high),
                low_inclusive,
                high_inclusive,
            )),
            _ => Err(bad(format!("range [{inner}] must be [low TO high]"))),
        }
    }
}

fn range(
    low: Option<String>,
    high: Option<String>,
    low_inclusive: bool,
    high_inclusive: bool,
) -> LeafValue {
    LeafValue::Range {
        low,
        high,
        low_inclusive,
        high_inclusive,
    }
}

/// Elasticsearch's `AUTO` fuzziness: 0 edits up to 2 characters, 1 up to 5, then 2.
pub(crate) fn auto_fuzziness(text: &str) -> u8 {
    match text.chars().count() {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    }
}
