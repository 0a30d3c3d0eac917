//! Tokens to the parsed tree, with Lucene's classic semantics: `AND`
//! binds tighter than `OR`; juxtaposed clauses join by the default
//! operator; `+` makes a clause required and `-`/`!`/`NOT` prohibits it
//! (a prohibited clause never widens an `OR`: `a -b` is "a, and not b");
//! `field:(a b)` searches `field` with every bare value inside.

use tantivy::query::Occur;

use super::lexer::{bad, Token};
use crate::error::Result;
use crate::query::text_syntax::{Node, MAX_GROUP_DEPTH};

/// How a clause was marked.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mark {
    None,
    Required,
    Prohibited,
}

pub(super) struct Parser {
    tokens: Vec<Token>,
    at: usize,
    default_and: bool,
    /// The field of the innermost `field:(` group.
    group_fields: Vec<String>,
    /// Groups open at the current token (at most [`MAX_GROUP_DEPTH`]).
    depth: usize,
}

impl Parser {
    pub(super) fn new(tokens: Vec<Token>, default_and: bool) -> Parser {
        Parser {
            tokens,
            at: 0,
            default_and,
            group_fields: Vec::new(),
            depth: 0,
        }
    }

    /// Parses the whole token list.
    pub(super) fn parse(mut self) -> Result<Node> {
        if self.tokens.is_empty() {
            return Ok(Node::Nothing);
        }
        let node = self.or()?;
        match self.peek() {
            None => Ok(node),
            Some(Token::Close) => Err(bad("Encountered \")\" without a matching \"(\"")),
            Some(other) => Err(bad(format!("unexpected {other:?}"))),
        }
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn starts_operand(&self) -> bool {
        matches!(
            self.peek(),
            Some(
                Token::Open
                    | Token::FieldOpen(_)
                    | Token::Not
                    | Token::Plus
                    | Token::Minus
                    | Token::Leaf { .. }
            )
        )
    }

    fn or(&mut self) -> Result<Node> {
        let mut items = vec![self.and()?];
        loop {
            if self.peek() == Some(&Token::Or) {
                self.at += 1;
            } else if !self.starts_operand() || self.default_and {
                break;
            }
            items.push(self.and()?);
        }
        if items.len() == 1 && items[0].0 != Mark::Prohibited {
            return Ok(items.remove(0).1);
        }
        let clauses = items
            .into_iter()
            .map(|(mark, node)| {
                let occur = match mark {
                    Mark::None => Occur::Should,
                    Mark::Required => Occur::Must,
                    Mark::Prohibited => Occur::MustNot,
                };
                (occur, node)
            })
            .collect();
        Ok(Node::Bool(clauses))
    }

    fn and(&mut self) -> Result<(Mark, Node)> {
        let mut items = vec![self.unary()?];
        loop {
            if self.peek() == Some(&Token::And) {
                self.at += 1;
            } else if !self.starts_operand() || !self.default_and {
                break;
            }
            items.push(self.unary()?);
        }
        if items.len() == 1 {
            return Ok(items.remove(0));
        }
        let clauses = items
            .into_iter()
            .map(|(mark, node)| {
                let occur = if mark == Mark::Prohibited {
                    Occur::MustNot
                } else {
                    Occur::Must
                };
                (occur, node)
            })
            .collect();
        Ok((Mark::None, Node::Bool(clauses)))
    }

    /// A clause with its leading marks. Marks are read in a loop, not by
    /// recursion, so a chain of any length costs no stack; the outermost
    /// mark is the clause's (`NOT +a` is prohibited).
    fn unary(&mut self) -> Result<(Mark, Node)> {
        let mut mark = None;
        while let Some(token) = self.peek() {
            let this = match token {
                Token::Not | Token::Minus => Mark::Prohibited,
                Token::Plus => Mark::Required,
                _ => break,
            };
            mark.get_or_insert(this);
            self.at += 1;
        }
        let mut node = self.primary()?;
        if let Some(Token::Boost(b)) = self.peek() {
            node = Node::Boost(Box::new(node), *b);
            self.at += 1;
        }
        Ok((mark.unwrap_or(Mark::None), node))
    }

    fn primary(&mut self) -> Result<Node> {
        let token = self.peek().cloned();
        self.at += 1;
        match token {
            Some(Token::Open) => self.group(),
            Some(Token::FieldOpen(field)) => {
                self.group_fields.push(field);
                let inner = self.group();
                self.group_fields.pop();
                inner
            }
            Some(Token::Leaf { field, value }) => Ok(Node::Leaf {
                field: field.or_else(|| self.group_fields.last().cloned()),
                value,
            }),
            Some(Token::Close) => Err(bad("Encountered \")\" where a clause was expected")),
            Some(other) => Err(bad(format!(
                "Encountered {other:?} where a clause was expected"
            ))),
            None => Err(bad("Encountered \"<EOF>\" where a clause was expected")),
        }
    }

    /// The inside of a group up to its `)`, refused beyond
    /// [`MAX_GROUP_DEPTH`] open groups.
    fn group(&mut self) -> Result<Node> {
        if self.depth >= MAX_GROUP_DEPTH {
            return Err(bad(format!(
                "groups nested more than [{MAX_GROUP_DEPTH}] levels deep"
            )));
        }
        self.depth += 1;
        let inner = self.or();
        self.depth -= 1;
        let inner = inner?;
        if self.peek() != Some(&Token::Close) {
            return Err(bad("Encountered \"<EOF>\": missing \")\""));
        }
        self.at += 1;
        Ok(inner)
    }
}
