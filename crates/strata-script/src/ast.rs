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
    /// `+` (numbers; concatenation when either side is a string).
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/` (integer division on integers).
    Div,
    /// `%`.
    Rem,
    /// `<<`.
    Shl,
    /// `>>` (arithmetic).
    Shr,
    /// `>>>` (logical).
    UShr,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `==`: equal values.
    Eq,
    /// `!=`.
    Ne,
    /// `===`: the same object (or equal primitives).
    RefEq,
    /// `!==`.
    RefNe,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `!`.
    Not,
    /// `-`.
    Neg,
    /// `+`.
    Plus,
    /// `~`.
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
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer literal.
    Int(i64),
    /// A floating-point literal.
    Float(f64),
    /// A string literal.
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
        /// The object read.
        target: Box<Expr>,
        /// The field's name.
        name: String,
        /// `?.`: `null` when the target is.
        null_safe: bool,
    },
    /// `a[i]`.
    Index {
        /// The list, map or array read.
        target: Box<Expr>,
        /// The index or key.
        index: Box<Expr>,
    },
    /// `a.m(args)` / `a?.m(args)`.
    Method {
        /// The receiver.
        target: Box<Expr>,
        /// The method's name.
        name: String,
        /// The arguments.
        args: Vec<Expr>,
        /// `?.`: `null` when the receiver is.
        null_safe: bool,
    },
    /// `f(args)`: only the context functions (`emit`).
    Call {
        /// The function's name.
        name: String,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `new ArrayList()`, `new HashMap()`, ...
    New {
        /// The class made.
        class: String,
        /// The constructor's arguments.
        args: Vec<Expr>,
    },
    /// `new def[n]`.
    NewArray {
        /// The number of elements.
        size: Box<Expr>,
        /// The element type.
        ty: Ty,
    },
    /// `op operand` (`!x`, `-x`, `~x`).
    Unary {
        /// The operator.
        op: UnOp,
        /// What it applies to.
        operand: Box<Expr>,
    },
    /// `left op right`, except `&&` and `||`.
    Binary {
        /// The operator.
        op: BinOp,
        /// The left operand.
        left: Box<Expr>,
        /// The right operand.
        right: Box<Expr>,
    },
    /// `a && b` (short-circuit).
    And(Box<Expr>, Box<Expr>),
    /// `a || b` (short-circuit).
    Or(Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// The value when it holds.
        then: Box<Expr>,
        /// The value when it does not.
        otherwise: Box<Expr>,
    },
    /// `a ?: b`.
    Elvis(Box<Expr>, Box<Expr>),
    /// `(int) x`.
    Cast {
        /// The type cast to.
        ty: Ty,
        /// The value cast.
        operand: Box<Expr>,
    },
    /// `x instanceof T` (the type's name).
    InstanceOf {
        /// The value tested.
        operand: Box<Expr>,
        /// The class tested against.
        class: String,
    },
    /// `target = value` or `target op= value`.
    Assign {
        /// The variable, field or element assigned.
        target: Box<Expr>,
        /// The operator of a compound assignment (`+=`: `Add`).
        op: Option<BinOp>,
        /// The value assigned.
        value: Box<Expr>,
    },
    /// `++x`, `x--`, ...: `delta` is +1 or -1; `prefix` gives the new value.
    Step {
        /// The variable, field or element changed.
        target: Box<Expr>,
        /// +1 or -1.
        delta: i64,
        /// True for `++x`/`--x` (the new value), false for `x++` (the old).
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
    /// An expression as a statement.
    Expr(Expr),
    /// `T a = x, b;`.
    Decl {
        /// The declared type.
        ty: Ty,
        /// Each variable and its initial value.
        vars: Vec<(String, Option<Expr>)>,
    },
    /// `{ ... }`: a scope of its own.
    Block(Vec<Stmt>),
    /// `if (cond) then else otherwise`.
    If {
        /// The condition.
        cond: Expr,
        /// Run when it holds.
        then: Box<Stmt>,
        /// Run when it does not (`else`).
        otherwise: Option<Box<Stmt>>,
    },
    /// `while (cond) body`.
    While {
        /// The condition, checked before each pass.
        cond: Expr,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `do body while (cond)`.
    DoWhile {
        /// The loop body, run at least once.
        body: Box<Stmt>,
        /// The condition, checked after each pass.
        cond: Expr,
    },
    /// `for (init; cond; update) body`.
    For {
        /// Run once first.
        init: Option<Box<Stmt>>,
        /// Checked before each pass (none: always true).
        cond: Option<Expr>,
        /// Run after each pass.
        update: Vec<Expr>,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `for (def x : items)` / `for (x in items)`.
    ForEach {
        /// The loop variable.
        var: String,
        /// Its declared type.
        ty: Ty,
        /// What is iterated (a list, map keys, array).
        items: Expr,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `return` with an optional value.
    Return(Option<Expr>),
    /// `throw new T('...')`: raised as an exception of that type.
    Throw(Expr),
    /// `;`: nothing.
    Empty,
}
