//! Primary expressions: literals, names and static classes, parenthesised
//! expressions and casts, list and map literals (`[1, 2]`, `[:]`,
//! `['a': 1]`) and constructors (`new ArrayList()`...).

use super::{type_of, Parsed, Parser, STATIC_CLASSES};
use crate::ast::{Expr, ExprKind};
use crate::lexer::Tok;

impl Parser<'_> {
    pub(super) fn primary(&mut self) -> Parsed<Expr> {
        let token = self.here().clone();
        let start = token.start;
        let kind = match token.tok.clone() {
            Tok::Int(n) => {
                self.bump();
                ExprKind::Int(n)
            }
            Tok::Float(f) => {
                self.bump();
                ExprKind::Float(f)
            }
            Tok::Str(s) => {
                self.bump();
                ExprKind::Str(s)
            }
            Tok::Op("(") => {
                self.bump();
                let inner = self.expression()?;
                self.expect(")")?;
                return Ok(inner);
            }
            Tok::Op("[") => {
                self.bump();
                self.collection_literal()?
            }
            Tok::Op("{") => return Err(self.unsupported(&token, "array initializers")),
            Tok::Op("/") => return Err(self.unsupported(&token, "regular expressions")),
            Tok::Ident(word) => {
                self.bump();
                match word.as_str() {
                    "null" => ExprKind::Null,
                    "true" => ExprKind::Bool(true),
                    "false" => ExprKind::Bool(false),
                    "new" => self.new_object()?,
                    _ if self.is_op("->") => {
                        return Err(self.unsupported(&token, "lambdas and method references"))
                    }
                    _ if self.is_op("(") => {
                        let args = self.arguments()?;
                        ExprKind::Call { name: word, args }
                    }
                    _ if STATIC_CLASSES.contains(&word.as_str()) && self.is_op(".") => {
                        ExprKind::Class(word)
                    }
                    _ => ExprKind::Var(word),
                }
            }
            _ => return Err(self.unexpected()),
        };
        Ok(Expr {
            kind,
            span: self.span_from(start),
        })
    }

    /// After `[`: a list `[a, b]`, a map `[k: v]` or the empty map `[:]`.
    pub(super) fn collection_literal(&mut self) -> Parsed<ExprKind> {
        if self.eat(":") {
            self.expect("]")?;
            return Ok(ExprKind::Map(Vec::new()));
        }
        if self.eat("]") {
            return Ok(ExprKind::List(Vec::new()));
        }
        let first = self.expression()?;
        if self.eat(":") {
            let mut entries = vec![(first, self.expression()?)];
            while self.eat(",") {
                let key = self.expression()?;
                self.expect(":")?;
                entries.push((key, self.expression()?));
            }
            self.expect("]")?;
            return Ok(ExprKind::Map(entries));
        }
        let mut items = vec![first];
        while self.eat(",") {
            items.push(self.expression()?);
        }
        self.expect("]")?;
        Ok(ExprKind::List(items))
    }

    /// After `new`: a collection constructor or an array of a size.
    pub(super) fn new_object(&mut self) -> Parsed<ExprKind> {
        let token = self.here().clone();
        let class = self.ident()?;
        if self.eat("[") {
            let ty = type_of(&class)
                .ok_or_else(|| self.error_at(&token, format!("cannot resolve type [{class}]")))?;
            let size = self.expression()?;
            self.expect("]")?;
            if self.is_op("[") {
                let token = self.here().clone();
                return Err(self.unsupported(&token, "multi-dimensional arrays"));
            }
            return Ok(ExprKind::NewArray {
                size: Box::new(size),
                ty,
            });
        }
        let args = self.arguments()?;
        Ok(ExprKind::New { class, args })
    }
}
