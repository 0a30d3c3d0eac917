//! The tree-walking interpreter: statements, expressions, assignment.
//!
//! Budgets, so no script can run or grow without bound: every statement
//! executed and every loop iteration counts against
//! [`Limits::max_statements`] (Painless's loop counter, 1,000,000), every
//! allocation against [`Limits::max_bytes`]; recursion is bounded by the
//! parser's depth limit.
//!
//! Statements are here; `expr`: expressions, indexing, `doc['f']`,
//! constructors; `assign`: assignment and `++`/`--`.

use crate::ast::{Expr, ExprKind, Span, Stmt, StmtKind, Ty};
use crate::error::{Phase, ScriptError};
use crate::ops;
use crate::value::{class_name, Heap, OutOfBudget, Value};
use crate::Limits;

mod assign;
mod expr;
pub(crate) mod state;

pub use state::{Interp, Run};

/// How a statement ended.
pub enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

impl<'a> Interp<'a> {
    pub fn new(source: &'a str, limits: Limits) -> Interp<'a> {
        Interp {
            source,
            heap: Heap::new(limits.max_bytes),
            vars: Vec::new(),
            frames: Vec::new(),
            globals: Vec::new(),
            doc: None,
            emitted: None,
            statements: 0,
            limits,
        }
    }

    /// A runtime error at `span`.
    pub fn fail(
        &self,
        span: Span,
        cause_type: &'static str,
        reason: impl Into<String>,
    ) -> ScriptError {
        ScriptError {
            phase: Phase::Runtime,
            script: self.source.to_string(),
            start: span.start,
            end: span.end,
            cause_type,
            cause_reason: reason.into(),
        }
    }

    /// Turns an exhausted budget into the error at `span`.
    pub fn budget(&self, span: Span) -> impl Fn(OutOfBudget) -> ScriptError + '_ {
        move |e| {
            self.fail(
                span,
                "circuit_breaking_exception",
                format!(
                    "[script] Data too large: the script allocated more than [{}] bytes",
                    e.limit
                ),
            )
        }
    }

    fn tick(&mut self, span: Span) -> Run<()> {
        self.statements += 1;
        if self.statements > self.limits.max_statements {
            return Err(self.fail(
                span,
                "painless_error",
                format!(
                    "The maximum number of statements [{}] that can be executed in a loop has been reached.",
                    self.limits.max_statements
                ),
            ));
        }
        Ok(())
    }

    // ---- statements ----

    /// Runs the script body; the value of `return`, or of the last
    /// expression statement (Painless returns it implicitly).
    pub fn run_body(&mut self, body: &[Stmt]) -> Run<Value> {
        let mut last = Value::Null;
        for (i, stmt) in body.iter().enumerate() {
            if i + 1 == body.len() {
                if let StmtKind::Expr(expr) = &stmt.kind {
                    if !matches!(expr.kind, ExprKind::Assign { .. } | ExprKind::Step { .. }) {
                        self.tick(stmt.span)?;
                        last = self.eval(expr)?;
                        continue;
                    }
                }
            }
            match self.exec(stmt)? {
                Flow::Return(value) => return Ok(value),
                Flow::Normal => {}
                Flow::Break | Flow::Continue => {
                    return Err(self.fail(
                        stmt.span,
                        "illegal_argument_exception",
                        "break or continue outside a loop",
                    ))
                }
            }
        }
        Ok(last)
    }

    fn block(&mut self, body: &[Stmt]) -> Run<Flow> {
        self.frames.push(self.vars.len());
        let mut flow = Flow::Normal;
        for stmt in body {
            match self.exec(stmt) {
                Ok(Flow::Normal) => {}
                Ok(other) => {
                    flow = other;
                    break;
                }
                Err(e) => {
                    self.pop_frame();
                    return Err(e);
                }
            }
        }
        self.pop_frame();
        Ok(flow)
    }

    fn pop_frame(&mut self) {
        let mark = self.frames.pop().unwrap_or(0);
        self.vars.truncate(mark);
    }

    fn exec(&mut self, stmt: &Stmt) -> Run<Flow> {
        self.tick(stmt.span)?;
        match &stmt.kind {
            StmtKind::Expr(expr) => {
                self.eval(expr)?;
            }
            StmtKind::Decl { ty, vars } => {
                for (name, init) in vars {
                    let value = match init {
                        Some(expr) => {
                            let v = self.eval(expr)?;
                            self.coerce(*ty, v, expr.span)?
                        }
                        None => default_of(*ty),
                    };
                    self.vars.push((name.clone(), value));
                }
            }
            StmtKind::Block(body) => return self.block(body),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.condition(cond)? {
                    return self.scoped(then);
                } else if let Some(otherwise) = otherwise {
                    return self.scoped(otherwise);
                }
            }
            StmtKind::While { cond, body } => {
                while self.condition(cond)? {
                    self.tick(stmt.span)?;
                    match self.scoped(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Normal | Flow::Continue => {}
                    }
                }
            }
            StmtKind::DoWhile { body, cond } => loop {
                self.tick(stmt.span)?;
                match self.scoped(body)? {
                    Flow::Break => break,
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal | Flow::Continue => {}
                }
                if !self.condition(cond)? {
                    break;
                }
            },
            StmtKind::For {
                init,
                cond,
                update,
                body,
            } => {
                self.frames.push(self.vars.len());
                let flow = self.for_loop(init.as_deref(), cond.as_ref(), update, body, stmt.span);
                self.pop_frame();
                return flow;
            }
            StmtKind::ForEach {
                var,
                ty,
                items,
                body,
            } => {
                let collection = self.eval(items)?;
                let values: Vec<Value> = match &collection {
                    Value::List(id) => self.heap.list(*id).clone(),
                    Value::Map(id) => {
                        let keys: Vec<String> = self.heap.map(*id).keys().cloned().collect();
                        let mut out = Vec::with_capacity(keys.len());
                        for k in keys {
                            out.push(self.heap.string(k).map_err(self.budget(items.span))?);
                        }
                        out
                    }
                    Value::Doc(id) => self.heap.doc(*id).values.clone(),
                    Value::Null => {
                        return Err(self.fail(
                            items.span,
                            "null_pointer_exception",
                            "cannot iterate over a null value",
                        ))
                    }
                    other => {
                        return Err(self.fail(
                            items.span,
                            "class_cast_exception",
                            format!("Cannot iterate over [{}]", class_name(other)),
                        ))
                    }
                };
                for value in values {
                    self.tick(stmt.span)?;
                    let value = self.coerce(*ty, value, items.span)?;
                    self.frames.push(self.vars.len());
                    self.vars.push((var.clone(), value));
                    let flow = self.exec(body);
                    self.pop_frame();
                    match flow? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Normal | Flow::Continue => {}
                    }
                }
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Return(value) => {
                let value = match value {
                    Some(expr) => self.eval(expr)?,
                    None => Value::Null,
                };
                return Ok(Flow::Return(value));
            }
            StmtKind::Throw(expr) => return Err(self.throw(expr)?),
            StmtKind::Empty => {}
        }
        Ok(Flow::Normal)
    }

    /// A statement in its own scope (an `if` branch or loop body that is
    /// a declaration without braces leaks nothing).
    fn scoped(&mut self, stmt: &Stmt) -> Run<Flow> {
        self.frames.push(self.vars.len());
        let flow = self.exec(stmt);
        self.pop_frame();
        flow
    }

    fn for_loop(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&Expr>,
        update: &[Expr],
        body: &Stmt,
        span: Span,
    ) -> Run<Flow> {
        if let Some(init) = init {
            self.exec(init)?;
        }
        loop {
            if let Some(cond) = cond {
                if !self.condition(cond)? {
                    break;
                }
            }
            self.tick(span)?;
            match self.scoped(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Normal | Flow::Continue => {}
            }
            for expr in update {
                self.eval(expr)?;
            }
        }
        Ok(Flow::Normal)
    }

    fn throw(&mut self, expr: &Expr) -> Run<ScriptError> {
        if let ExprKind::New { class, args } = &expr.kind {
            if class.ends_with("Exception") || class.ends_with("Error") {
                let message = match args.first() {
                    Some(arg) => {
                        let v = self.eval(arg)?;
                        ops::to_java_string(&self.heap, &v)
                    }
                    None => String::new(),
                };
                return Ok(self.fail(expr.span, exception_type(class), message));
            }
        }
        Err(self.fail(
            expr.span,
            "illegal_argument_exception",
            "only `throw new <Exception>(message)` is supported",
        ))
    }

    fn condition(&mut self, expr: &Expr) -> Run<bool> {
        match self.eval(expr)? {
            Value::Bool(b) => Ok(b),
            other => Err(self.fail(
                expr.span,
                "class_cast_exception",
                format!("Cannot cast {} to java.lang.Boolean", class_name(&other)),
            )),
        }
    }

    /// A value converted to a declared type (or a cast).
    pub fn coerce(&self, ty: Ty, value: Value, span: Span) -> Run<Value> {
        let refuse = |from: &Value, to: &str| {
            self.fail(
                span,
                "class_cast_exception",
                format!("Cannot cast from [{}] to [{to}].", class_name(from)),
            )
        };
        Ok(match (ty, value) {
            (Ty::Any, v) => v,
            (Ty::Integer, Value::Int(n)) => Value::Int(n),
            (Ty::Integer, v @ Value::Double(_)) => return Err(refuse(&v, "int")),
            (Ty::Floating, Value::Int(n)) => Value::Double(n as f64),
            (Ty::Floating, Value::Double(f)) => Value::Double(f),
            (Ty::Boolean, Value::Bool(b)) => Value::Bool(b),
            (Ty::Text, v @ (Value::Str(_) | Value::Null)) => v,
            (Ty::Integer | Ty::Floating | Ty::Boolean, Value::Null) => {
                return Err(self.fail(span, "null_pointer_exception", "cannot unbox a null value"))
            }
            (Ty::Integer, v) => return Err(refuse(&v, "int")),
            (Ty::Floating, v) => return Err(refuse(&v, "double")),
            (Ty::Boolean, v) => return Err(refuse(&v, "boolean")),
            (Ty::Text, v) => return Err(refuse(&v, "java.lang.String")),
        })
    }
}

/// The value a declared variable starts with.
fn default_of(ty: Ty) -> Value {
    match ty {
        Ty::Integer => Value::Int(0),
        Ty::Floating => Value::Double(0.0),
        Ty::Boolean => Value::Bool(false),
        Ty::Any | Ty::Text => Value::Null,
    }
}

/// `IllegalArgumentException` → `illegal_argument_exception`.
fn exception_type(class: &str) -> &'static str {
    match class {
        "IllegalArgumentException" => "illegal_argument_exception",
        "IllegalStateException" => "illegal_state_exception",
        "UnsupportedOperationException" => "unsupported_operation_exception",
        "ArithmeticException" => "arithmetic_exception",
        "NullPointerException" => "null_pointer_exception",
        _ => "exception",
    }
}
