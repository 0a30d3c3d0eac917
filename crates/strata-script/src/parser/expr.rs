//! Expressions: assignment, conditionals, binary operators by precedence
//! climbing, prefix and postfix operators, call arguments; the primaries
//! they are built on are in `primary`.

use super::{bin_op, precedence, type_of, Parsed, Parser};
use crate::ast::{BinOp, Expr, ExprKind, Ty, UnOp};
use crate::lexer::Tok;

impl Parser<'_> {
    pub(super) fn expression(&mut self) -> Parsed<Expr> {
        self.enter()?;
        let expr = self.assignment();
        self.leave(1);
        expr
    }

    pub(super) fn assignment(&mut self) -> Parsed<Expr> {
        let start = self.here().start;
        let target = self.conditional()?;
        let op = match self.peek() {
            Tok::Op("=") => None,
            Tok::Op("+=") => Some(BinOp::Add),
            Tok::Op("-=") => Some(BinOp::Sub),
            Tok::Op("*=") => Some(BinOp::Mul),
            Tok::Op("/=") => Some(BinOp::Div),
            Tok::Op("%=") => Some(BinOp::Rem),
            Tok::Op("&=") => Some(BinOp::BitAnd),
            Tok::Op("|=") => Some(BinOp::BitOr),
            Tok::Op("^=") => Some(BinOp::BitXor),
            Tok::Op("<<=") => Some(BinOp::Shl),
            Tok::Op(">>=") => Some(BinOp::Shr),
            Tok::Op(">>>=") => Some(BinOp::UShr),
            _ => return Ok(target),
        };
        let token = self.bump();
        if !matches!(
            target.kind,
            ExprKind::Var(_) | ExprKind::Field { .. } | ExprKind::Index { .. }
        ) {
            return Err(self.error_at(
                &token,
                "invalid assignment: cannot assign a value to this expression".into(),
            ));
        }
        let value = self.expression()?;
        Ok(Expr {
            kind: ExprKind::Assign {
                target: Box::new(target),
                op,
                value: Box::new(value),
            },
            span: self.span_from(start),
        })
    }

    pub(super) fn conditional(&mut self) -> Parsed<Expr> {
        let start = self.here().start;
        let cond = self.elvis()?;
        if !self.eat("?") {
            return Ok(cond);
        }
        let then = self.expression()?;
        self.expect(":")?;
        let otherwise = self.expression()?;
        Ok(Expr {
            kind: ExprKind::Ternary {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            span: self.span_from(start),
        })
    }

    pub(super) fn elvis(&mut self) -> Parsed<Expr> {
        let start = self.here().start;
        let left = self.binary(1)?;
        if !self.eat("?:") {
            return Ok(left);
        }
        let right = self.expression()?;
        Ok(Expr {
            kind: ExprKind::Elvis(Box::new(left), Box::new(right)),
            span: self.span_from(start),
        })
    }

    /// Left-associative binary operators by precedence climbing: one
    /// frame per operand of a higher precedence, not one per level.
    pub(super) fn binary(&mut self, min: u8) -> Parsed<Expr> {
        let start = self.here().start;
        let mut left = self.unary()?;
        let mut chained = 0;
        let result = loop {
            let (op, prec) = match self.peek() {
                Tok::Ident(w) if w == "instanceof" => ("instanceof", 7),
                Tok::Op(op) => match precedence(op) {
                    Some(prec) => (*op, prec),
                    None if matches!(*op, "=~" | "==~") => {
                        let token = self.here().clone();
                        break Err(self.unsupported(&token, "regular expressions"));
                    }
                    None => break Ok(left),
                },
                _ => break Ok(left),
            };
            if prec < min {
                break Ok(left);
            }
            self.bump();
            if let Err(e) = self.enter() {
                break Err(e);
            }
            chained += 1;
            if op == "instanceof" {
                match self.ident() {
                    Ok(class) => {
                        left = Expr {
                            kind: ExprKind::InstanceOf {
                                operand: Box::new(left),
                                class,
                            },
                            span: self.span_from(start),
                        };
                        continue;
                    }
                    Err(e) => break Err(e),
                }
            }
            let right = match self.binary(prec + 1) {
                Ok(right) => right,
                Err(e) => break Err(e),
            };
            let (l, r) = (Box::new(left), Box::new(right));
            let kind = match op {
                "||" => ExprKind::Or(l, r),
                "&&" => ExprKind::And(l, r),
                _ => ExprKind::Binary {
                    op: bin_op(op),
                    left: l,
                    right: r,
                },
            };
            left = Expr {
                kind,
                span: self.span_from(start),
            };
        };
        self.leave(chained);
        result
    }

    /// A prefix operator or cast counts one level (they recurse); a
    /// plain operand does not (a parenthesis counts in `expression`).
    pub(super) fn unary(&mut self) -> Parsed<Expr> {
        let cast = self.is_op("(")
            && matches!(self.peek_at(1), Tok::Ident(name) if type_of(name).is_some());
        let prefix = cast || matches!(self.peek(), Tok::Op("!" | "-" | "+" | "~" | "++" | "--"));
        if prefix {
            self.enter()?;
        }
        let expr = self.unary_inner();
        if prefix {
            self.leave(1);
        }
        expr
    }

    pub(super) fn unary_inner(&mut self) -> Parsed<Expr> {
        let start = self.here().start;
        let op = match self.peek() {
            Tok::Op("!") => Some(UnOp::Not),
            Tok::Op("-") => Some(UnOp::Neg),
            Tok::Op("+") => Some(UnOp::Plus),
            Tok::Op("~") => Some(UnOp::BitNot),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let operand = self.unary()?;
            // `-9223372036854775808` and friends: fold negative literals.
            if op == UnOp::Neg {
                if let ExprKind::Int(n) = operand.kind {
                    return Ok(Expr {
                        kind: ExprKind::Int(n.wrapping_neg()),
                        span: self.span_from(start),
                    });
                }
            }
            return Ok(Expr {
                kind: ExprKind::Unary {
                    op,
                    operand: Box::new(operand),
                },
                span: self.span_from(start),
            });
        }
        if self.is_op("++") || self.is_op("--") {
            let delta = if self.bump().tok == Tok::Op("++") {
                1
            } else {
                -1
            };
            let target = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Step {
                    target: Box::new(target),
                    delta,
                    prefix: true,
                },
                span: self.span_from(start),
            });
        }
        // A cast: `(type) operand`.
        if self.is_op("(") {
            if let Tok::Ident(name) = self.peek_at(1) {
                if let Some(ty) = type_of(name) {
                    let closes = matches!(self.peek_at(2), Tok::Op(")"))
                        || (matches!(self.peek_at(2), Tok::Op("["))
                            && matches!(self.peek_at(4), Tok::Op(")")));
                    if closes {
                        self.bump();
                        self.bump();
                        let ty = if self.eat("[") {
                            self.expect("]")?;
                            Ty::Any
                        } else {
                            ty
                        };
                        self.expect(")")?;
                        let operand = self.unary()?;
                        return Ok(Expr {
                            kind: ExprKind::Cast {
                                ty,
                                operand: Box::new(operand),
                            },
                            span: self.span_from(start),
                        });
                    }
                }
            }
        }
        self.postfix()
    }

    pub(super) fn postfix(&mut self) -> Parsed<Expr> {
        let start = self.here().start;
        let mut expr = self.primary()?;
        let mut steps = 0;
        let result = loop {
            let null_safe = self.is_op("?.");
            if self.is_op(".") || null_safe {
                self.bump();
                let name = match self.ident() {
                    Ok(name) => name,
                    Err(e) => break Err(e),
                };
                if let Err(e) = self.enter() {
                    break Err(e);
                }
                steps += 1;
                if self.is_op("(") {
                    let args = match self.arguments() {
                        Ok(args) => args,
                        Err(e) => break Err(e),
                    };
                    expr = Expr {
                        kind: ExprKind::Method {
                            target: Box::new(expr),
                            name,
                            args,
                            null_safe,
                        },
                        span: self.span_from(start),
                    };
                } else {
                    expr = Expr {
                        kind: ExprKind::Field {
                            target: Box::new(expr),
                            name,
                            null_safe,
                        },
                        span: self.span_from(start),
                    };
                }
            } else if self.is_op("[") {
                self.bump();
                if let Err(e) = self.enter() {
                    break Err(e);
                }
                steps += 1;
                let index = match self.expression() {
                    Ok(index) => index,
                    Err(e) => break Err(e),
                };
                if let Err(e) = self.expect("]") {
                    break Err(e);
                }
                expr = Expr {
                    kind: ExprKind::Index {
                        target: Box::new(expr),
                        index: Box::new(index),
                    },
                    span: self.span_from(start),
                };
            } else if self.is_op("++") || self.is_op("--") {
                let delta = if self.bump().tok == Tok::Op("++") {
                    1
                } else {
                    -1
                };
                expr = Expr {
                    kind: ExprKind::Step {
                        target: Box::new(expr),
                        delta,
                        prefix: false,
                    },
                    span: self.span_from(start),
                };
            } else if self.is_op("->") || self.is_op("::") {
                let token = self.here().clone();
                break Err(self.unsupported(&token, "lambdas and method references"));
            } else {
                break Ok(expr);
            }
        };
        self.leave(steps);
        result
    }

    pub(super) fn arguments(&mut self) -> Parsed<Vec<Expr>> {
        self.expect("(")?;
        let mut args = Vec::new();
        while !self.is_op(")") {
            args.push(self.expression()?);
            if !self.eat(",") {
                break;
            }
        }
        self.expect(")")?;
        Ok(args)
    }
}
