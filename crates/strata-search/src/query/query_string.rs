//! `query_string` in the form Kibana sends: the Lucene syntax rewritten
//! into the query DSL, then translated as any other query.
//!
//! Supported: `*` (all documents), `field:value` (`match`), `field:"a b"`
//! (`match_phrase`), `field:*` (`exists`), values with `*`/`?`
//! (`wildcard`), ranges `field:[a TO b]` / `{a TO b}` (`*` for open ends),
//! `AND`/`&&`, `OR`/`||`, `NOT`/`!`/`-`, `+`, parentheses, backslash
//! escapes, and `default_operator`. A bare value uses `default_field` when
//! that is one field; with `*` (all fields) only `*` itself is supported,
//! other bare values are refused naming the limit.

use serde_json::{json, Map, Value};

use crate::error::{Result, SearchError};

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open,
    Close,
    And,
    Or,
    Not,
    Clause {
        field: Option<String>,
        value: ClauseValue,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum ClauseValue {
    Word(String),
    Phrase(String),
    Range {
        low: String,
        high: String,
        low_inclusive: bool,
        high_inclusive: bool,
    },
}

fn bad(msg: impl std::fmt::Display) -> SearchError {
    SearchError::parsing(format!("[query_string] Failed to parse query: {msg}"))
}

const SPECIAL: &[char] = &['(', ')', ':', '"', '[', ']', '{', '}'];

fn lex(text: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let word = |i: &mut usize| {
        let mut out = String::new();
        while *i < chars.len() && !chars[*i].is_whitespace() && !SPECIAL.contains(&chars[*i]) {
            if chars[*i] == '\\' && *i + 1 < chars.len() {
                *i += 1;
            }
            out.push(chars[*i]);
            *i += 1;
        }
        out
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            _ if c.is_whitespace() => i += 1,
            '(' => {
                tokens.push(Token::Open);
                i += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1;
            }
            '!' | '-' => {
                tokens.push(Token::Not);
                i += 1;
            }
            '+' => i += 1,
            '&' | '|' if chars.get(i + 1) == Some(&c) => {
                tokens.push(if c == '&' { Token::And } else { Token::Or });
                i += 2;
            }
            _ => {
                let (field, value) = if matches!(c, '"' | '[' | '{') {
                    (None, value(&chars, &mut i, &word)?)
                } else {
                    let w = word(&mut i);
                    if chars.get(i) == Some(&':') {
                        i += 1;
                        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
                            i += 1;
                        }
                        (Some(w), value(&chars, &mut i, &word)?)
                    } else {
                        match w.as_str() {
                            "AND" => tokens.push(Token::And),
                            "OR" => tokens.push(Token::Or),
                            "NOT" => tokens.push(Token::Not),
                            "" => return Err(bad(format!("unexpected [{c}]"))),
                            _ => tokens.push(Token::Clause {
                                field: None,
                                value: ClauseValue::Word(w),
                            }),
                        }
                        continue;
                    }
                };
                tokens.push(Token::Clause { field, value });
            }
        }
    }
    Ok(tokens)
}

fn value(
    chars: &[char],
    i: &mut usize,
    word: &dyn Fn(&mut usize) -> String,
) -> Result<ClauseValue> {
    match chars.get(*i) {
        Some('"') => {
            let mut out = String::new();
            *i += 1;
            loop {
                match chars.get(*i) {
                    None => return Err(bad("unterminated phrase")),
                    Some('"') => break,
                    Some('\\') if *i + 1 < chars.len() => {
                        out.push(chars[*i + 1]);
                        *i += 2;
                        continue;
                    }
                    Some(c) => out.push(*c),
                }
                *i += 1;
            }
            *i += 1;
            Ok(ClauseValue::Phrase(out))
        }
        Some(open @ ('[' | '{')) => {
            let low_inclusive = *open == '[';
            let end = chars[*i..]
                .iter()
                .position(|c| matches!(c, ']' | '}'))
                .ok_or_else(|| bad("unterminated range"))?;
            let inner: String = chars[*i + 1..*i + end].iter().collect();
            let high_inclusive = chars[*i + end] == ']';
            *i += end + 1;
            let parts: Vec<&str> = inner.split_whitespace().collect();
            match parts.as_slice() {
                [low, "TO", high] => Ok(ClauseValue::Range {
                    low: low.trim_matches('"').to_string(),
                    high: high.trim_matches('"').to_string(),
                    low_inclusive,
                    high_inclusive,
                }),
                _ => Err(bad(format!("range [{inner}] must be [low TO high]"))),
            }
        }
        Some('(') => Err(bad(
            "grouped values after a field (field:(a b)) are not supported",
        )),
        _ => {
            let w = word(i);
            if w.is_empty() {
                return Err(bad("missing value after ':'"));
            }
            Ok(ClauseValue::Word(w))
        }
    }
}

struct Parser<'a> {
    tokens: Vec<Token>,
    at: usize,
    default_field: Option<&'a str>,
    default_and: bool,
}

fn all_of(mut items: Vec<Value>, and: bool) -> Value {
    if items.len() == 1 {
        return items.remove(0);
    }
    if and {
        json!({"bool": {"must": items}})
    } else {
        json!({"bool": {"should": items, "minimum_should_match": 1}})
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn starts_operand(&self) -> bool {
        matches!(
            self.peek(),
            Some(Token::Open | Token::Not | Token::Clause { .. })
        )
    }

    fn or(&mut self) -> Result<Value> {
        let mut items = vec![self.and()?];
        loop {
            if self.peek() == Some(&Token::Or) {
                self.at += 1;
            } else if !self.starts_operand() || self.default_and {
                break;
            }
            items.push(self.and()?);
        }
        Ok(all_of(items, false))
    }

    fn and(&mut self) -> Result<Value> {
        let mut items = vec![self.unary()?];
        loop {
            if self.peek() == Some(&Token::And) {
                self.at += 1;
            } else if !self.starts_operand() || !self.default_and {
                break;
            }
            items.push(self.unary()?);
        }
        Ok(all_of(items, true))
    }

    fn unary(&mut self) -> Result<Value> {
        let token = self.peek().cloned();
        self.at += 1;
        match token {
            Some(Token::Not) => Ok(json!({"bool": {"must_not": [self.unary()?]}})),
            Some(Token::Open) => {
                let inner = self.or()?;
                if self.peek() != Some(&Token::Close) {
                    return Err(bad("missing ')'"));
                }
                self.at += 1;
                Ok(inner)
            }
            Some(Token::Clause { field, value }) => self.clause(field, value),
            Some(other) => Err(bad(format!("unexpected {other:?}"))),
            None => Err(bad("unexpected end of query")),
        }
    }

    fn clause(&self, field: Option<String>, value: ClauseValue) -> Result<Value> {
        let field = match (field, self.default_field) {
            (Some(f), _) => f,
            (None, _) if value == ClauseValue::Word("*".into()) => {
                return Ok(json!({"match_all": {}}))
            }
            (None, Some(f)) => f.to_string(),
            (None, None) => {
                return Err(SearchError::illegal(
                    "[query_string] values without a field are supported only with a single default_field (not \"*\")",
                ))
            }
        };
        if field.contains('*') {
            return Err(SearchError::illegal(format!(
                "[query_string] field patterns ([{field}]) are not supported by this server"
            )));
        }
        Ok(match value {
            ClauseValue::Phrase(p) => json!({"match_phrase": {field: p}}),
            ClauseValue::Word(w) if w == "*" => json!({"exists": {"field": field}}),
            ClauseValue::Word(w) if w.contains(['*', '?']) => {
                json!({"wildcard": {field: {"value": w}}})
            }
            ClauseValue::Word(w) => json!({"match": {field: {"query": w}}}),
            ClauseValue::Range {
                low,
                high,
                low_inclusive,
                high_inclusive,
            } => {
                let mut bounds = Map::new();
                if low != "*" {
                    let key = if low_inclusive { "gte" } else { "gt" };
                    bounds.insert(key.into(), Value::String(low));
                }
                if high != "*" {
                    let key = if high_inclusive { "lte" } else { "lt" };
                    bounds.insert(key.into(), Value::String(high));
                }
                json!({"range": {field: bounds}})
            }
        })
    }
}

/// Rewrites a `query_string` body into the query DSL.
pub fn translate(body: &Value) -> Result<Value> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[query_string] malformed"))?;
    let mut query = None;
    let mut default_field = None;
    let mut default_and = false;
    for (k, v) in params {
        match (k.as_str(), v) {
            ("query", Value::String(q)) => query = Some(q.as_str()),
            ("default_field", Value::String(f)) => default_field = (f != "*").then_some(f.as_str()),
            ("default_operator", Value::String(op)) => {
                default_and = match op.to_ascii_lowercase().as_str() {
                    "and" => true,
                    "or" => false,
                    _ => return Err(bad(format!("unknown default_operator [{op}]"))),
                }
            }
            ("analyze_wildcard" | "lenient", Value::Bool(_)) => {}
            ("time_zone", Value::String(_)) => {}
            (other, _) => {
                return Err(SearchError::parsing(format!(
                    "[query_string] unknown token [{other}] or unsupported value [{v}]"
                )))
            }
        }
    }
    let query = query.ok_or_else(|| bad("[query] is required"))?;
    let tokens = lex(query)?;
    if tokens.is_empty() {
        return Ok(json!({"match_none": {}}));
    }
    let mut parser = Parser {
        tokens,
        at: 0,
        default_field,
        default_and,
    };
    let out = parser.or()?;
    if parser.at != parser.tokens.len() {
        return Err(bad("unexpected ')'"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(q: &str) -> Value {
        translate(&json!({"query": q, "analyze_wildcard": true, "default_field": "*"})).unwrap()
    }

    #[test]
    fn kibana_forms() {
        assert_eq!(t("*"), json!({"match_all": {}}));
        assert_eq!(
            t("a.code: [400 TO 500]"),
            json!({"range": {"a.code": {"gte": "400", "lte": "500"}}})
        );
        assert_eq!(t("x:{1 TO *}"), json!({"range": {"x": {"gt": "1"}}}));
        assert_eq!(
            t("m:GET AND NOT s:404"),
            json!({"bool": {"must": [
                {"match": {"m": {"query": "GET"}}},
                {"bool": {"must_not": [{"match": {"s": {"query": "404"}}}]}}
            ]}})
        );
        assert_eq!(
            t("(u:\"a b\" OR u:c*) u:*"),
            json!({"bool": {"should": [
                {"bool": {"should": [
                    {"match_phrase": {"u": "a b"}},
                    {"wildcard": {"u": {"value": "c*"}}}
                ], "minimum_should_match": 1}},
                {"exists": {"field": "u"}}
            ], "minimum_should_match": 1}})
        );
        assert_eq!(t(r"p:a\:b"), json!({"match": {"p": {"query": "a:b"}}}));
        for bad in ["word", "(a:b", "a:b)", "a:[1 2]", "a:", "f*:x"] {
            assert!(
                translate(&json!({"query": bad, "default_field": "*"})).is_err(),
                "{bad}"
            );
        }
        assert!(translate(&json!({"query": "*", "fields": ["a"]})).is_err());
    }
}
