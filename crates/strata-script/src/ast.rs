//! The syntax tree of a script. Every expression and statement keeps the
//! byte span it came from, for errors.

/// A byte range of the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// Just past the last byte.
    pub end: usize,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    UShr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// `===`: the same object (or equal primitives).
    RefEq,
    /// `!==`.
    RefNe,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
    Plus,
    BitNot,
}

/// A declared or cast-to type, reduced to what changes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// `def`, `Object`, collections, `String` and other reference types:
    /// no conversion.
    Any,
    /// `int`, `long`, `short`, `byte`, `char` and their boxes.
    Integer,
    /// `double`, `float` and their boxes.
    Floating,
    /// `boolean`.
    Boolean,
    /// `String`.
    Text,
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `[k: v]`, `[:]`.
    Map(Vec<(Expr, Expr)>),
    /// A local variable or a context global (`params`, `ctx`, `doc`, `_score`).
    Var(String),
    /// `Math`, `Integer`, ...: only as the receiver of a static call or field.
    Class(String),
    /// `a.b` / `a?.b`.
    Field {
        target: Box<Expr>,
        name: String,
        null_safe: bool,
    },
    /// `a[i]`.
    Index {
        target: Box<Expr>,
        index: Box<Expr>,
    },
    /// `a.m(args)` / `a?.m(args)`.
    Method {
        target: Box<Expr>,
        name: String,
        args: Vec<Expr>,
        null_safe: bool,
    },
    /// `f(args)`: only the context functions (`emit`).
    Call {
        name: String,
        args: Vec<Expr>,
    },
    /// `new ArrayList()`, `new HashMap()`, ...
    New {
        class: String,
        args: Vec<Expr>,
    },
    /// `new def[n]`.
    NewArray {
        size: Box<Expr>,
        ty: Ty,
    },
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    /// `a ?: b`.
    Elvis(Box<Expr>, Box<Expr>),
    /// `(int) x`.
    Cast {
        ty: Ty,
        operand: Box<Expr>,
    },
    /// `x instanceof T` (the type's name).
    InstanceOf {
        operand: Box<Expr>,
        class: String,
    },
    /// `target = value` or `target op= value`.
    Assign {
        target: Box<Expr>,
        op: Option<BinOp>,
        value: Box<Expr>,
    },
    /// `++x`, `x--`, ...: `delta` is +1 or -1; `prefix` gives the new value.
    Step {
        target: Box<Expr>,
        delta: i64,
        prefix: bool,
    },
}

/// A statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Where.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    /// `T a = x, b;`.
    Decl {
        ty: Ty,
        vars: Vec<(String, Option<Expr>)>,
    },
    Block(Vec<Stmt>),
    If {
        cond: Expr,
        then: Box<Stmt>,
        otherwise: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        update: Vec<Expr>,
        body: Box<Stmt>,
    },
    /// `for (def x : items)` / `for (x in items)`.
    ForEach {
        var: String,
        ty: Ty,
        items: Expr,
        body: Box<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// `throw new T('...')`: raised as an exception of that type.
    Throw(Expr),
    Empty,
}
