//! Tokens to a syntax tree by recursive descent, with Java's operator
//! precedence. Nesting is bounded: every nested block, parenthesis,
//! operand of a chained operator and postfix step counts towards
//! [`MAX_DEPTH`], so no script can make the parser, the interpreter or
//! dropping the tree recurse deeper than that.
//!
//! What the subset leaves out is refused here by name (lambdas, regexes,
//! function definitions, switch, try/catch), so the error says what is
//! missing rather than failing later.

use crate::ast::{BinOp, Expr, ExprKind, Span, Stmt, StmtKind, Ty, UnOp};
use crate::error::ScriptError;
use crate::lexer::{tokenize, Tok, Token};

/// The deepest nesting a script may have.
pub const MAX_DEPTH: usize = 64;

/// Classes whose static members scripts may use.
pub const STATIC_CLASSES: [&str; 9] = [
    "Math",
    "Integer",
    "Long",
    "Double",
    "Float",
    "String",
    "Boolean",
    "Character",
    "Collections",
];

/// Parses a whole script into its statements.
pub fn parse(source: &str) -> Result<Vec<Stmt>, ScriptError> {
    let tokens = tokenize(source)?;
    let mut parser = Parser {
        source,
        tokens,
        pos: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    while parser.peek() != &Tok::End {
        out.push(parser.statement()?);
    }
    Ok(out)
}

/// The type a declaration or cast names, or `None` for a name that is no type.
pub fn type_of(name: &str) -> Option<Ty> {
    Some(match name {
        "def" | "var" | "Object" | "Map" | "HashMap" | "List" | "ArrayList" | "Collection"
        | "Set" | "HashSet" | "Number" | "ZonedDateTime" | "Iterable" => Ty::Any,
        "int" | "long" | "short" | "byte" | "char" | "Integer" | "Long" | "Short" | "Byte" => {
            Ty::Integer
        }
        "double" | "float" | "Double" | "Float" => Ty::Floating,
        "boolean" | "Boolean" => Ty::Boolean,
        "String" => Ty::Text,
        _ => return None,
    })
}

struct Parser<'a> {
    source: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
}

type Parsed<T> = Result<T, ScriptError>;

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        &self.tokens[(self.pos + ahead).min(self.tokens.len() - 1)].tok
    }

    fn here(&self) -> &Token {
        &self.tokens[self.pos]
    }

    fn bump(&mut self) -> Token {
        let token = self.tokens[self.pos].clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        token
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn error_at(&self, token: &Token, reason: String) -> ScriptError {
        ScriptError::compile(
            self.source,
            token.start,
            token.end,
            "illegal_argument_exception",
            &reason,
        )
    }

    fn unexpected(&self) -> ScriptError {
        let token = self.here();
        let text = match &token.tok {
            Tok::End => "<EOF>".to_string(),
            _ => self.source[token.start..token.end].to_string(),
        };
        self.error_at(
            token,
            format!("unexpected token ['{text}'] was expecting one of [{{<EOF>, ';'}}]."),
        )
    }

    fn expect(&mut self, op: &str) -> Parsed<()> {
        if self.eat(op) {
            return Ok(());
        }
        let token = self.here();
        let text = match &token.tok {
            Tok::End => "<EOF>".to_string(),
            _ => self.source[token.start..token.end].to_string(),
        };
        Err(self.error_at(
            token,
            format!("unexpected token ['{text}'] was expecting ['{op}']."),
        ))
    }

    fn unsupported(&self, token: &Token, what: &str) -> ScriptError {
        self.error_at(
            token,
            format!("{what} are not supported by Strata's Painless subset"),
        )
    }

    fn ident(&mut self) -> Parsed<String> {
        match self.peek().clone() {
            Tok::Ident(name) => {
                self.bump();
                Ok(name)
            }
            _ => Err(self.unexpected()),
        }
    }

    /// Enters one nesting level; [`Parser::leave`] must follow.
    fn enter(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let token = self.here().clone();
            return Err(self.error_at(
                &token,
                format!("the script nests deeper than [{MAX_DEPTH}] levels"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self, levels: usize) {
        self.depth -= levels;
    }

    fn span_from(&self, start: usize) -> Span {
        let end = self.tokens[self.pos.saturating_sub(1)].end.max(start);
        Span { start, end }
    }

    // ---- statements ----

    fn statement(&mut self) -> Parsed<Stmt> {
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

    // ---- expressions ----

    fn expression(&mut self) -> Parsed<Expr> {
        self.enter()?;
        let expr = self.assignment();
        self.leave(1);
        expr
    }

    fn assignment(&mut self) -> Parsed<Expr> {
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

    fn conditional(&mut self) -> Parsed<Expr> {
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

    fn elvis(&mut self) -> Parsed<Expr> {
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
    fn binary(&mut self, min: u8) -> Parsed<Expr> {
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
    fn unary(&mut self) -> Parsed<Expr> {
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

    fn unary_inner(&mut self) -> Parsed<Expr> {
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

    fn postfix(&mut self) -> Parsed<Expr> {
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

    fn arguments(&mut self) -> Parsed<Vec<Expr>> {
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

    fn primary(&mut self) -> Parsed<Expr> {
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
    fn collection_literal(&mut self) -> Parsed<ExprKind> {
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
    fn new_object(&mut self) -> Parsed<ExprKind> {
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

/// Java's precedence of a binary operator (1 is `||`, 10 is `*`).
fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" | "===" | "!==" => 6,
        "<" | "<=" | ">" | ">=" => 7,
        "<<" | ">>" | ">>>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

fn bin_op(op: &str) -> BinOp {
    match op {
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        "&" => BinOp::BitAnd,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "===" => BinOp::RefEq,
        "!==" => BinOp::RefNe,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        ">>>" => BinOp::UShr,
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        _ => BinOp::Rem,
    }
}
