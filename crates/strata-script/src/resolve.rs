//! The compile-time check of names: every variable a script reads or
//! writes is declared before use in an enclosing scope or is a global of
//! its context (`params`, `ctx`, `doc`, `_score`), and `emit` is only
//! called where the context has it. Painless reports these at compile
//! time as `cannot resolve symbol [x]`; so does this pass, before any
//! statement runs.

use crate::ast::{Expr, ExprKind, Stmt, StmtKind};
use crate::error::ScriptError;
use crate::Context;

/// Checks `body` against the globals of `context`.
pub fn check(source: &str, body: &[Stmt], context: Context) -> Result<(), ScriptError> {
    let mut scope = Scope {
        source,
        names: Vec::new(),
        context,
    };
    for stmt in body {
        scope.stmt(stmt)?;
    }
    Ok(())
}

struct Scope<'a> {
    source: &'a str,
    names: Vec<String>,
    context: Context,
}

impl Scope<'_> {
    fn error(&self, expr: &Expr, reason: String) -> ScriptError {
        ScriptError::compile(
            self.source,
            expr.span.start,
            expr.span.end,
            "illegal_argument_exception",
            &reason,
        )
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let mark = self.names.len();
        let out = f(self);
        self.names.truncate(mark);
        out
    }

    fn stmt(&mut self, stmt: &Stmt) -> Result<(), ScriptError> {
        match &stmt.kind {
            StmtKind::Expr(e) | StmtKind::Throw(e) => self.expr(e),
            StmtKind::Return(e) => e.as_ref().map_or(Ok(()), |e| self.expr(e)),
            StmtKind::Decl { vars, .. } => {
                for (name, init) in vars {
                    if let Some(init) = init {
                        self.expr(init)?;
                    }
                    self.names.push(name.clone());
                }
                Ok(())
            }
            StmtKind::Block(body) => self.nested(|s| body.iter().try_for_each(|st| s.stmt(st))),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond)?;
                self.nested(|s| s.stmt(then))?;
                match otherwise {
                    Some(o) => self.nested(|s| s.stmt(o)),
                    None => Ok(()),
                }
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond)?;
                self.nested(|s| s.stmt(body))
            }
            StmtKind::For {
                init,
                cond,
                update,
                body,
            } => self.nested(|s| {
                if let Some(init) = init {
                    s.stmt(init)?;
                }
                if let Some(cond) = cond {
                    s.expr(cond)?;
                }
                update.iter().try_for_each(|u| s.expr(u))?;
                s.nested(|s| s.stmt(body))
            }),
            StmtKind::ForEach {
                var, items, body, ..
            } => {
                self.expr(items)?;
                self.nested(|s| {
                    s.names.push(var.clone());
                    s.stmt(body)
                })
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Empty => Ok(()),
        }
    }

    fn expr(&mut self, expr: &Expr) -> Result<(), ScriptError> {
        match &expr.kind {
            ExprKind::Var(name) => {
                if self.names.iter().any(|n| n == name)
                    || self.context.globals().contains(&name.as_str())
                {
                    Ok(())
                } else {
                    Err(self.error(expr, format!("cannot resolve symbol [{name}]")))
                }
            }
            ExprKind::Call { name, args } => {
                if name != "emit" || !self.context.emits() {
                    return Err(self.error(
                        expr,
                        format!("Unknown call [{name}] with [{}] arguments.", args.len()),
                    ));
                }
                args.iter().try_for_each(|a| self.expr(a))
            }
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Class(_) => Ok(()),
            ExprKind::List(items) => items.iter().try_for_each(|i| self.expr(i)),
            ExprKind::Map(entries) => entries.iter().try_for_each(|(k, v)| {
                self.expr(k)?;
                self.expr(v)
            }),
            ExprKind::Field { target, .. } => self.expr(target),
            ExprKind::Index { target, index } => {
                self.expr(target)?;
                self.expr(index)
            }
            ExprKind::Method { target, args, .. } => {
                self.expr(target)?;
                args.iter().try_for_each(|a| self.expr(a))
            }
            ExprKind::New { args, .. } => args.iter().try_for_each(|a| self.expr(a)),
            ExprKind::NewArray { size, .. } => self.expr(size),
            ExprKind::Unary { operand, .. }
            | ExprKind::Cast { operand, .. }
            | ExprKind::InstanceOf { operand, .. } => self.expr(operand),
            ExprKind::Binary { left, right, .. } => {
                self.expr(left)?;
                self.expr(right)
            }
            ExprKind::And(l, r) | ExprKind::Or(l, r) | ExprKind::Elvis(l, r) => {
                self.expr(l)?;
                self.expr(r)
            }
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond)?;
                self.expr(then)?;
                self.expr(otherwise)
            }
            ExprKind::Assign { target, value, .. } => {
                self.expr(target)?;
                self.expr(value)
            }
            ExprKind::Step { target, .. } => self.expr(target),
        }
    }
}
