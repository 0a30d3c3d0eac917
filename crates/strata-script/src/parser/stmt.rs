//! Statements: blocks, declarations (with Java's type names), `if`,
//! `while`, `do`, the three forms of `for`, `return`, `break`,
//! `continue` and expression statements; the constructs the subset
//! leaves out are refused by name.

use super::{type_of, Parsed, Parser};
use crate::ast::{Stmt, StmtKind, Ty};
use crate::lexer::Tok;

impl Parser<'_> {
    pub(super) fn statement(&mut self) -> Parsed<Stmt> {
        self.enter()?;
        let stmt = self.statement_inner();
        self.leave(1);
        stmt
    }

    fn statement_inner(&mut self) -> Parsed<Stmt> {
        let start = self.here().start;
        let token = self.here().clone();
        let kind = match self.peek().clone() {
            Tok::Op("{") => {
                self.bump();
                let mut body = Vec::new();
                while !self.is_op("}") {
                    if self.peek() == &Tok::End {
                        return Err(self.expect("}").unwrap_err());
                    }
                    body.push(self.statement()?);
                }
                self.bump();
                StmtKind::Block(body)
            }
            Tok::Op(";") => {
                self.bump();
                StmtKind::Empty
            }
            Tok::Ident(word) => match word.as_str() {
                "if" => {
                    self.bump();
                    self.expect("(")?;
                    let cond = self.expression()?;
                    self.expect(")")?;
                    let then = Box::new(self.statement()?);
                    let otherwise = match self.peek() {
                        Tok::Ident(w) if w == "else" => {
                            self.bump();
                            Some(Box::new(self.statement()?))
                        }
                        _ => None,
                    };
                    StmtKind::If {
                        cond,
                        then,
                        otherwise,
                    }
                }
                "while" => {
                    self.bump();
                    self.expect("(")?;
                    let cond = self.expression()?;
                    self.expect(")")?;
                    StmtKind::While {
                        cond,
                        body: Box::new(self.statement()?),
                    }
                }
                "do" => {
                    self.bump();
                    let body = Box::new(self.statement()?);
                    match self.peek() {
                        Tok::Ident(w) if w == "while" => {
                            self.bump();
                        }
                        _ => return Err(self.unexpected()),
                    }
                    self.expect("(")?;
                    let cond = self.expression()?;
                    self.expect(")")?;
                    self.eat(";");
                    StmtKind::DoWhile { body, cond }
                }
                "for" => self.for_statement()?,
                "break" => {
                    self.bump();
                    self.eat(";");
                    StmtKind::Break
                }
                "continue" => {
                    self.bump();
                    self.eat(";");
                    StmtKind::Continue
                }
                "return" => {
                    self.bump();
                    let value = if self.is_op(";") || self.is_op("}") || self.peek() == &Tok::End {
                        None
                    } else {
                        Some(self.expression()?)
                    };
                    self.eat(";");
                    StmtKind::Return(value)
                }
                "throw" => {
                    self.bump();
                    let value = self.expression()?;
                    self.eat(";");
                    StmtKind::Throw(value)
                }
                "switch" => return Err(self.unsupported(&token, "switch statements")),
                "try" => return Err(self.unsupported(&token, "try/catch statements")),
                _ if self.declaration_ahead() => {
                    let kind = self.declaration()?;
                    self.end_statement()?;
                    kind
                }
                _ => {
                    let expr = self.expression()?;
                    self.end_statement()?;
                    StmtKind::Expr(expr)
                }
            },
            _ => {
                let expr = self.expression()?;
                self.end_statement()?;
                StmtKind::Expr(expr)
            }
        };
        Ok(Stmt {
            kind,
            span: self.span_from(start),
        })
    }

    /// `;`, or nothing before `}` or the end (Painless lets the last
    /// statement of a block go without one).
    fn end_statement(&mut self) -> Parsed<()> {
        if self.eat(";") || self.is_op("}") || self.peek() == &Tok::End {
            return Ok(());
        }
        Err(self.unexpected())
    }

    /// A type (with `[]`s) followed by a name: a declaration (or, with `(`
    /// after the name, a function definition).
    fn declaration_ahead(&self) -> bool {
        let mut k = 1;
        while matches!(self.peek_at(k), Tok::Op("[")) && matches!(self.peek_at(k + 1), Tok::Op("]"))
        {
            k += 2;
        }
        matches!(self.peek_at(k), Tok::Ident(_))
            && !matches!(self.peek(), Tok::Ident(w) if w == "new" || w == "return" || w == "else")
    }

    fn declared_type(&mut self) -> Parsed<Ty> {
        let token = self.here().clone();
        let name = self.ident()?;
        let mut array = false;
        while self.is_op("[") && matches!(self.peek_at(1), Tok::Op("]")) {
            self.bump();
            self.bump();
            array = true;
        }
        match type_of(&name) {
            Some(ty) if !array => Ok(ty),
            Some(_) => Ok(Ty::Any),
            None => Err(self.error_at(&token, format!("cannot resolve type [{name}]"))),
        }
    }

    fn declaration(&mut self) -> Parsed<StmtKind> {
        let ty = self.declared_type()?;
        let mut vars = Vec::new();
        loop {
            let name_token = self.here().clone();
            let name = self.ident()?;
            if self.is_op("(") {
                return Err(self.unsupported(&name_token, "function definitions"));
            }
            let init = if self.eat("=") {
                Some(self.expression()?)
            } else {
                None
            };
            vars.push((name, init));
            if !self.eat(",") {
                break;
            }
        }
        Ok(StmtKind::Decl { ty, vars })
    }

    fn for_statement(&mut self) -> Parsed<StmtKind> {
        self.bump();
        self.expect("(")?;
        // `for (x in items)` and `for (T x : items)`.
        if matches!(self.peek(), Tok::Ident(_))
            && matches!(self.peek_at(1), Tok::Ident(w) if w == "in")
        {
            let var = self.ident()?;
            self.bump();
            let items = self.expression()?;
            self.expect(")")?;
            let body = Box::new(self.statement()?);
            return Ok(StmtKind::ForEach {
                var,
                ty: Ty::Any,
                items,
                body,
            });
        }
        if self.declaration_ahead() && self.colon_after_name() {
            let ty = self.declared_type()?;
            let var = self.ident()?;
            self.expect(":")?;
            let items = self.expression()?;
            self.expect(")")?;
            let body = Box::new(self.statement()?);
            return Ok(StmtKind::ForEach {
                var,
                ty,
                items,
                body,
            });
        }
        let init = if self.is_op(";") {
            None
        } else {
            let start = self.here().start;
            let kind = if self.declaration_ahead() {
                self.declaration()?
            } else {
                StmtKind::Expr(self.expression()?)
            };
            Some(Box::new(Stmt {
                kind,
                span: self.span_from(start),
            }))
        };
        self.expect(";")?;
        let cond = if self.is_op(";") {
            None
        } else {
            Some(self.expression()?)
        };
        self.expect(";")?;
        let mut update = Vec::new();
        while !self.is_op(")") {
            update.push(self.expression()?);
            if !self.eat(",") {
                break;
            }
        }
        self.expect(")")?;
        let body = Box::new(self.statement()?);
        Ok(StmtKind::For {
            init,
            cond,
            update,
            body,
        })
    }

    fn colon_after_name(&self) -> bool {
        let mut k = 1;
        while matches!(self.peek_at(k), Tok::Op("[")) {
            k += 2;
        }
        matches!(self.peek_at(k + 1), Tok::Op(":"))
    }
}
