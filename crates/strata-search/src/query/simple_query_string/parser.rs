//! The `simple_query_string` syntax (Lucene's `SimpleQueryParser`) parsed
//! into the shared text-query tree. It never fails: a character whose
//! operator is disabled, an unmatched parenthesis or an unterminated quote
//! is read as plain text or ignored, and parentheses nested deeper than
//! `MAX_GROUP_DEPTH` add no further level (their clauses join the deepest).
//!
//! Operators apply left to right without precedence (`a | b + c` is
//! `(a | b) + c`); juxtaposed terms join by the default operator; `-x`
//! is "everything but x", so `a -b` with the default `OR` matches
//! documents with `a` or without `b`, as in Elasticsearch.

use tantivy::query::Occur;

use crate::query::query_string::auto_fuzziness;
use crate::query::text_params::SimpleFlags as Flags;
use crate::query::text_syntax::{LeafValue, Node, MAX_GROUP_DEPTH};

/// The operator joining two clauses.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    And,
    Or,
}

pub(super) struct Parser {
    chars: Vec<char>,
    at: usize,
    flags: Flags,
    default: Op,
    /// Groups open at the current character (at most [`MAX_GROUP_DEPTH`]).
    depth: usize,
    /// `(`s read beyond that depth, whose `)`s close nothing.
    flattened: usize,
}

impl Parser {
    pub(super) fn new(text: &str, flags: Flags, default_and: bool) -> Parser {
        Parser {
            chars: text.chars().collect(),
            at: 0,
            flags,
            default: if default_and { Op::And } else { Op::Or },
            depth: 0,
            flattened: 0,
        }
    }

    /// Parses the whole text.
    pub(super) fn parse(mut self) -> Node {
        self.sequence(false).unwrap_or(Node::Nothing)
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn is_space(&self, c: char) -> bool {
        self.flags.whitespace && c.is_whitespace()
    }

    /// Clauses up to the end (or a `)` when `nested`), folded left to right.
    fn sequence(&mut self, nested: bool) -> Option<Node> {
        let mut top: Option<(Option<Op>, Node)> = None;
        let mut pending: Option<Op> = None;
        let mut negate = false;
        while let Some(c) = self.peek() {
            if self.is_space(c) {
                self.at += 1;
                continue;
            }
            if c == '|' && self.flags.or {
                self.at += 1;
                pending = Some(Op::Or);
                continue;
            }
            if c == '+' && self.flags.and {
                self.at += 1;
                pending = Some(Op::And);
                continue;
            }
            if c == '-' && self.flags.not {
                self.at += 1;
                negate = !negate;
                continue;
            }
            if c == ')' && self.flags.precedence {
                self.at += 1;
                if self.flattened > 0 {
                    self.flattened -= 1;
                    continue;
                }
                if nested {
                    break;
                }
                continue; // an unmatched `)` is ignored
            }
            if c == '(' && self.flags.precedence && self.depth >= MAX_GROUP_DEPTH {
                // Too deep to recurse: the group's clauses join this level.
                self.at += 1;
                self.flattened += 1;
                continue;
            }
            let clause = if c == '(' && self.flags.precedence {
                self.at += 1;
                self.depth += 1;
                let group = self.sequence(true);
                self.depth -= 1;
                group
            } else if c == '"' && self.flags.phrase {
                Some(self.phrase())
            } else {
                self.term()
            };
            let Some(mut clause) = clause else {
                negate = false;
                continue;
            };
            if negate {
                clause = Node::Bool(vec![(Occur::MustNot, clause), (Occur::Should, Node::All)]);
                negate = false;
            }
            let op = pending.take().unwrap_or(self.default);
            top = Some(match top {
                None => (None, clause),
                Some((current, Node::Bool(mut items))) if current == Some(op) => {
                    items.push((occur(op), clause));
                    (current, Node::Bool(items))
                }
                Some((_, node)) => (
                    Some(op),
                    Node::Bool(vec![(occur(op), node), (occur(op), clause)]),
                ),
            });
        }
        top.map(|(_, node)| node)
    }

    /// A quoted phrase, with `~N` slop when enabled. Without a closing
    /// quote the rest is read as terms.
    fn phrase(&mut self) -> Node {
        let start = self.at + 1;
        let mut text = String::new();
        let mut i = start;
        while let Some(&c) = self.chars.get(i) {
            match c {
                '"' => break,
                '\\' if self.flags.escape && i + 1 < self.chars.len() => {
                    text.push(self.chars[i + 1]);
                    i += 2;
                    continue;
                }
                c => text.push(c),
            }
            i += 1;
        }
        if i >= self.chars.len() {
            self.at = start;
            return self.term().unwrap_or(Node::Nothing);
        }
        self.at = i + 1;
        let slop = if self.flags.slop && self.peek() == Some('~') {
            self.at += 1;
            Some(self.digits().unwrap_or(0))
        } else {
            None
        };
        Node::Leaf {
            field: None,
            value: LeafValue::Phrase { text, slop },
        }
    }

    fn digits(&mut self) -> Option<u32> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        text.parse().ok()
    }

    fn ends_term(&self, c: char) -> bool {
        self.is_space(c)
            || (c == '|' && self.flags.or)
            || (c == '+' && self.flags.and)
            || (c == '"' && self.flags.phrase)
            || ((c == '(' || c == ')') && self.flags.precedence)
            || (c == '~' && self.flags.fuzzy)
    }

    /// A term with its `*` (prefix) or `~N` (fuzzy) suffix.
    fn term(&mut self) -> Option<Node> {
        let mut text = String::new();
        let mut escaped_last = false;
        while let Some(c) = self.peek() {
            if c == '\\' && self.flags.escape {
                if let Some(&next) = self.chars.get(self.at + 1) {
                    text.push(next);
                    self.at += 2;
                    escaped_last = true;
                    continue;
                }
            }
            if !text.is_empty() && self.ends_term(c) || text.is_empty() && self.is_space(c) {
                break;
            }
            text.push(c);
            escaped_last = false;
            self.at += 1;
        }
        let value = if self.flags.fuzzy && self.peek() == Some('~') {
            self.at += 1;
            let distance = match self.digits() {
                Some(n) => n.min(2) as u8,
                None => auto_fuzziness(&text),
            };
            LeafValue::Fuzzy { text, distance }
        } else if self.flags.prefix && text.ends_with('*') && !escaped_last {
            LeafValue::Prefix(text.trim_end_matches('*').to_string())
        } else {
            LeafValue::Word {
                text,
                wildcard: false,
            }
        };
        match &value {
            LeafValue::Word { text, .. } | LeafValue::Fuzzy { text, .. } if text.is_empty() => None,
            _ => Some(Node::Leaf { field: None, value }),
        }
    }
}

fn occur(op: Op) -> Occur {
    match op {
        Op::And => Occur::Must,
        Op::Or => Occur::Should,
    }
}
