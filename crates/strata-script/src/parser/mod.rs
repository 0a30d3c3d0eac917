//! Tokens to a syntax tree by recursive descent, with Java's operator
//! precedence. Nesting is bounded: every nested block, parenthesis,
//! operand of a chained operator and postfix step counts towards
//! [`MAX_DEPTH`], so no script can make the parser, the interpreter or
//! dropping the tree recurse deeper than that.
//!
//! What the subset leaves out is refused here by name (lambdas, regexes,
//! function definitions, switch, try/catch), so the error says what is
//! missing rather than failing later.
//!
//! `stmt`: statements and declarations; `expr`: expressions; `primary`:
//! literals, names, casts and constructors.

use crate::ast::{BinOp, Span, Stmt, Ty};
use crate::error::ScriptError;
use crate::lexer::{tokenize, Tok, Token};

mod expr;
mod primary;
mod stmt;

/// The deepest nesting a script may have.
pub const MAX_DEPTH: usize = 64;

/// Classes whose static members scripts may use.
pub const STATIC_CLASSES: [&str; 10] = [
    "Math",
    "Integer",
    "Long",
    "Double",
    "Float",
    "String",
    "Boolean",
    "Character",
    "Collections",
    "MovingFunctions",
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
