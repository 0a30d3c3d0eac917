//! Assignment: to a variable, an element of a list or map, a field of a
//! map, or `ctx._source` paths, with compound operators (`+=`...) and the
//! prefix and postfix steps (`++`, `--`), each store charged to the
//! script's heap budget.

use std::rc::Rc;

use super::{Interp, Run};
use crate::ast::{BinOp, Expr, ExprKind, Span};
use crate::ops;
use crate::value::{class_name, Value};

impl Interp<'_> {
    pub(super) fn assign(
        &mut self,
        target: &Expr,
        op: Option<BinOp>,
        value: &Expr,
        span: Span,
    ) -> Run<Value> {
        match &target.kind {
            ExprKind::Var(name) => {
                let new = match op {
                    None => self.eval(value)?,
                    Some(op) => {
                        let old = self.eval(target)?;
                        let rhs = self.eval(value)?;
                        ops::binary(self, op, old, rhs, span)?
                    }
                };
                self.set_var(name, new.clone(), target.span)?;
                Ok(new)
            }
            ExprKind::Field {
                target: container,
                name,
                null_safe,
            } => {
                let container_value = self.eval(container)?;
                if container_value == Value::Null && *null_safe {
                    return Ok(Value::Null);
                }
                let key = Value::Str(Rc::from(name.as_str()));
                self.store(container_value, key, op, value, span)
            }
            ExprKind::Index {
                target: container,
                index,
            } => {
                let container_value = self.eval(container)?;
                let key = self.eval(index)?;
                self.store(container_value, key, op, value, span)
            }
            _ => Err(self.fail(
                span,
                "illegal_argument_exception",
                "invalid assignment target",
            )),
        }
    }

    /// `container[key] (op)= value`.
    pub(super) fn store(
        &mut self,
        container: Value,
        key: Value,
        op: Option<BinOp>,
        value: &Expr,
        span: Span,
    ) -> Run<Value> {
        let new = match op {
            None => self.eval(value)?,
            Some(op) => {
                let old = self.index(container.clone(), key.clone(), span)?;
                let rhs = self.eval(value)?;
                ops::binary(self, op, old, rhs, span)?
            }
        };
        self.put(container, key, new.clone(), span)?;
        Ok(new)
    }

    pub fn put(&mut self, container: Value, key: Value, value: Value, span: Span) -> Run<()> {
        match (&container, &key) {
            (Value::Map(id), key) => {
                let key = ops::map_key(&self.heap, key);
                self.heap
                    .charge(key.len() + 2 * crate::value::CELL)
                    .map_err(self.budget(span))?;
                self.heap.map_mut(*id).insert(key, value);
                Ok(())
            }
            (Value::List(id), Value::Int(i)) => {
                let len = self.heap.list(*id).len();
                let at =
                    ops::list_index(*i, len).ok_or_else(|| self.out_of_bounds(*i, len, span))?;
                self.heap.list_mut(*id)[at] = value;
                Ok(())
            }
            (Value::Null, _) => Err(self.fail(
                span,
                "null_pointer_exception",
                "cannot store into a null value",
            )),
            _ => Err(self.fail(
                span,
                "illegal_argument_exception",
                format!(
                    "cannot store into [{}] with a key of [{}]",
                    class_name(&container),
                    class_name(&key)
                ),
            )),
        }
    }

    pub(super) fn step(
        &mut self,
        target: &Expr,
        delta: i64,
        prefix: bool,
        span: Span,
    ) -> Run<Value> {
        let old = self.eval(target)?;
        let new = ops::binary(self, BinOp::Add, old.clone(), Value::Int(delta), span)?;
        match &target.kind {
            ExprKind::Var(name) => self.set_var(name, new.clone(), span)?,
            ExprKind::Field {
                target: container,
                name,
                ..
            } => {
                let c = self.eval(container)?;
                self.put(c, Value::Str(Rc::from(name.as_str())), new.clone(), span)?;
            }
            ExprKind::Index {
                target: container,
                index,
            } => {
                let c = self.eval(container)?;
                let k = self.eval(index)?;
                self.put(c, k, new.clone(), span)?;
            }
            _ => {
                return Err(self.fail(
                    span,
                    "illegal_argument_exception",
                    "invalid increment target",
                ))
            }
        }
        Ok(if prefix { new } else { old })
    }
}
