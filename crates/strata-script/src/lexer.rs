//! Source text to tokens, each with its byte span (for `position` and
//! `script_stack` in errors). Painless's lexical forms: identifiers,
//! integer literals (decimal, hex, octal, `L`/`l` suffix), floating
//! literals (`1.5`, `1e3`, `f`/`d` suffixes), strings in single or double
//! quotes with backslash escapes, `//` and `/* */` comments, operators.

use crate::error::ScriptError;

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer literal (`L` suffix or not: both are 64-bit here).
    Int(i64),
    /// A floating literal.
    Float(f64),
    /// A string literal, unescaped.
    Str(String),
    /// An operator or punctuation.
    Op(&'static str),
    /// The end of the source.
    End,
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
}

/// Operators, longest first so the first match is the longest.
const OPS: [&str; 50] = [
    ">>>=", "===", "!==", ">>>", "<<=", ">>=", "?.", "?:", "==~", "=~", "->", "::", "++", "--",
    "&&", "||", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>",
    "+", "-", "*", "/", "%", "!", "~", "<", ">", "=", "&", "|", "^", "?", ":", ".", ",", ";", "(",
    ")",
];
const BRACKETS: [&str; 4] = ["[", "]", "{", "}"];

/// Splits `source` into tokens, ending with [`Tok::End`].
pub fn tokenize(source: &str) -> Result<Vec<Token>, ScriptError> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if source[i..].starts_with("//") {
            i = source[i..].find('\n').map_or(bytes.len(), |n| i + n + 1);
            continue;
        }
        if source[i..].starts_with("/*") {
            match source[i + 2..].find("*/") {
                Some(n) => i = i + 2 + n + 2,
                None => return Err(lex_error(source, i, "unterminated comment")),
            }
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'$')
            {
                i += 1;
            }
            Tok::Ident(source[start..i].to_string())
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let (tok, next) = number(source, i)?;
            i = next;
            tok
        } else if c == b'\'' || c == b'"' {
            let (text, next) = string(source, i)?;
            i = next;
            Tok::Str(text)
        } else if let Some(op) = OPS
            .iter()
            .chain(BRACKETS.iter())
            .find(|op| source[i..].starts_with(**op))
        {
            i += op.len();
            Tok::Op(op)
        } else {
            let ch = source[i..].chars().next().unwrap_or('?');
            return Err(lex_error(
                source,
                i,
                &format!("unexpected character [{ch}]"),
            ));
        };
        tokens.push(Token { tok, start, end: i });
    }
    tokens.push(Token {
        tok: Tok::End,
        start: bytes.len(),
        end: bytes.len(),
    });
    Ok(tokens)
}

fn lex_error(source: &str, at: usize, reason: &str) -> ScriptError {
    ScriptError::compile(source, at, at + 1, "illegal_argument_exception", reason)
}

/// A numeric literal starting at `i`.
fn number(source: &str, start: usize) -> Result<(Tok, usize), ScriptError> {
    let bytes = source.as_bytes();
    let mut i = start;
    let bad = |i: usize| {
        lex_error(
            source,
            start,
            &format!("invalid number [{}]", &source[start..i]),
        )
    };
    if source[i..].starts_with("0x") || source[i..].starts_with("0X") {
        i += 2;
        let digits = i;
        while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
            i += 1;
        }
        let value = u64::from_str_radix(&source[digits..i], 16).map_err(|_| bad(i))? as i64;
        if i < bytes.len() && (bytes[i] == b'L' || bytes[i] == b'l') {
            i += 1;
        }
        return Ok((Tok::Int(value), i));
    }
    let mut float = false;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        float = true;
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            float = true;
            i = j;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    let text = &source[start..i];
    let suffix = bytes.get(i).copied();
    match suffix {
        Some(b'f' | b'F' | b'd' | b'D') => {
            let value: f64 = text.parse().map_err(|_| bad(i))?;
            return Ok((Tok::Float(value), i + 1));
        }
        Some(b'L' | b'l') if !float => {
            let value: i64 = text.parse().map_err(|_| bad(i + 1))?;
            return Ok((Tok::Int(value), i + 1));
        }
        _ => {}
    }
    if float {
        return Ok((Tok::Float(text.parse().map_err(|_| bad(i))?), i));
    }
    let value = if text.len() > 1 && text.starts_with('0') {
        i64::from_str_radix(&text[1..], 8).map_err(|_| bad(i))?
    } else {
        // An int literal out of int range is an error in Painless; a
        // long one is allowed with `L`. Both are 64-bit here.
        text.parse().map_err(|_| bad(i))?
    };
    Ok((Tok::Int(value), i))
}

/// A quoted string starting at `start`.
fn string(source: &str, start: usize) -> Result<(String, usize), ScriptError> {
    let quote = source.as_bytes()[start] as char;
    let mut out = String::new();
    let mut chars = source[start + 1..].char_indices();
    while let Some((k, ch)) = chars.next() {
        if ch == quote {
            return Ok((out, start + 1 + k + 1));
        }
        if ch == '\\' {
            match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, 'b')) => out.push('\u{8}'),
                Some((_, 'f')) => out.push('\u{c}'),
                Some((_, '0')) => out.push('\0'),
                Some((_, other)) => out.push(other),
                None => break,
            }
        } else {
            out.push(ch);
        }
    }
    Err(lex_error(source, start, "unterminated string"))
}
