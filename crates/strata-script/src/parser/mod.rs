//! Tokens to a syntax tree by recursive descent, with Java's operator
//! precedence. Nesting is bounded: every nested block, parenthesis,
//! operand of a chained operator and postfix step counts towards
//! [`MAX_DEPTH`], so no script can make the parser, the interpreter or
//! dropping the tree recurse deeper than that.
//!
//! What the subset leaves out is refused here by name (lambdas, regexes,
//! function definitions, switch, try/catch), so the error says what is
//! missing rather than failing later.

use crate::ast::{BinOp, Span, Stmt, StmtKind, Ty};
use crate::error::ScriptError;
use crate::lexer::{tokenize, Tok, Token};

mod expr;

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
