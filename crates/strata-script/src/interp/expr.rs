//! Expressions, indexing, `doc['f']` and constructors (assignment is in
//! `assign`).

use std::collections::BTreeMap;

use super::{default_of, Interp, Run};
use crate::ast::{Expr, ExprKind, Span};
use crate::error::ScriptError;
use crate::ops;
use crate::value::{class_name, DocField, Value};

impl Interp<'_> {
    pub(super) fn lookup_var(&self, name: &str) -> Option<Value> {
        if let Some((_, v)) = self.vars.iter().rev().find(|(n, _)| n == name) {
            return Some(v.clone());
        }
        self.globals
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    }

    pub(super) fn set_var(&mut self, name: &str, value: Value, span: Span) -> Run<()> {
        if let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = value;
            return Ok(());
        }
        if self.globals.iter().any(|(n, _)| *n == name) {
            return Err(self.fail(
                span,
                "illegal_argument_exception",
                format!("cannot assign a value to read-only variable [{name}]"),
            ));
        }
        Err(self.fail(
            span,
            "illegal_argument_exception",
            format!("cannot resolve symbol [{name}]"),
        ))
    }

    pub fn eval(&mut self, expr: &Expr) -> Run<Value> {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Null => Ok(Value::Null),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Int(n) => Ok(Value::Int(*n)),
            ExprKind::Float(f) => Ok(Value::Double(*f)),
            ExprKind::Str(s) => self.heap.string(s.clone()).map_err(self.budget(span)),
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len().min(1024));
                for item in items {
                    out.push(self.eval(item)?);
                }
                self.heap.new_list(out).map_err(self.budget(span))
            }
            ExprKind::Map(entries) => {
                let mut out = BTreeMap::new();
                for (k, v) in entries {
                    let key = self.eval(k)?;
                    let key = ops::map_key(&self.heap, &key);
                    let value = self.eval(v)?;
                    out.insert(key, value);
                }
                self.heap.new_map(out).map_err(self.budget(span))
            }
            ExprKind::Var(name) => match name.as_str() {
                "doc" if self.doc.is_some() => Ok(Value::DocLookup),
                _ => self.lookup_var(name).ok_or_else(|| {
                    self.fail(
                        span,
                        "illegal_argument_exception",
                        format!("cannot resolve symbol [{name}]"),
                    )
                }),
            },
            ExprKind::Class(name) => Err(self.fail(
                span,
                "illegal_argument_exception",
                format!("cannot use the class [{name}] as a value"),
            )),
            ExprKind::Field {
                target,
                name,
                null_safe,
            } => {
                if let ExprKind::Class(class) = &target.kind {
                    return crate::statics::field(self, class, name, span);
                }
                let receiver = self.eval(target)?;
                if receiver == Value::Null && *null_safe {
                    return Ok(Value::Null);
                }
                crate::methods::field(self, receiver, name, span)
            }
            ExprKind::Index { target, index } => {
                let receiver = self.eval(target)?;
                let index = self.eval(index)?;
                self.index(receiver, index, span)
            }
            ExprKind::Method {
                target,
                name,
                args,
                null_safe,
            } => {
                if let ExprKind::Class(class) = &target.kind {
                    let args = self.eval_all(args)?;
                    return crate::statics::call(self, class, name, args, span);
                }
                let receiver = self.eval(target)?;
                if receiver == Value::Null && *null_safe {
                    return Ok(Value::Null);
                }
                let args = self.eval_all(args)?;
                crate::methods::call(self, receiver, name, args, span)
            }
            ExprKind::Call { name, args } => {
                let args = self.eval_all(args)?;
                self.call_function(name, args, span)
            }
            ExprKind::New { class, args } => {
                let args = self.eval_all(args)?;
                self.construct(class, args, span)
            }
            ExprKind::NewArray { size, ty } => {
                let n = match self.eval(size)? {
                    Value::Int(n) if n >= 0 => n as usize,
                    other => {
                        return Err(self.fail(
                            span,
                            "negative_array_size_exception",
                            ops::to_java_string(&self.heap, &other),
                        ))
                    }
                };
                self.heap
                    .charge(n.saturating_mul(crate::value::CELL))
                    .map_err(self.budget(span))?;
                let list = vec![default_of(*ty); n];
                self.heap.new_list(list).map_err(self.budget(span))
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                ops::unary(self, *op, v, span)
            }
            ExprKind::Binary { op, left, right } => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                ops::binary(self, *op, l, r, span)
            }
            ExprKind::And(l, r) => Ok(Value::Bool(self.condition(l)? && self.condition(r)?)),
            ExprKind::Or(l, r) => Ok(Value::Bool(self.condition(l)? || self.condition(r)?)),
            ExprKind::Ternary {
                cond,
                then,
                otherwise,
            } => {
                if self.condition(cond)? {
                    self.eval(then)
                } else {
                    self.eval(otherwise)
                }
            }
            ExprKind::Elvis(l, r) => match self.eval(l)? {
                Value::Null => self.eval(r),
                v => Ok(v),
            },
            ExprKind::Cast { ty, operand } => {
                let v = self.eval(operand)?;
                ops::cast(self, *ty, v, span)
            }
            ExprKind::InstanceOf { operand, class } => {
                let v = self.eval(operand)?;
                Ok(Value::Bool(ops::instance_of(&v, class)))
            }
            ExprKind::Assign { target, op, value } => self.assign(target, *op, value, span),
            ExprKind::Step {
                target,
                delta,
                prefix,
            } => self.step(target, *delta, *prefix, span),
        }
    }

    pub(super) fn eval_all(&mut self, args: &[Expr]) -> Run<Vec<Value>> {
        args.iter().map(|a| self.eval(a)).collect()
    }

    pub(super) fn call_function(&mut self, name: &str, args: Vec<Value>, span: Span) -> Run<Value> {
        if name == "emit" && self.emitted.is_some() {
            for arg in args.iter() {
                if *arg == Value::Null {
                    return Err(self.fail(
                        span,
                        "null_pointer_exception",
                        "emit: the value must not be null",
                    ));
                }
            }
            if args.len() != 1 {
                return Err(self.fail(
                    span,
                    "illegal_argument_exception",
                    format!("Unknown call [emit] with [{}] arguments.", args.len()),
                ));
            }
            self.heap
                .charge(crate::value::CELL)
                .map_err(self.budget(span))?;
            let emitted = self.emitted.get_or_insert_with(Vec::new);
            if emitted.len() >= 100 {
                return Err(self.fail(
                    span,
                    "illegal_argument_exception",
                    "Runtime field [emit] can't emit more than [100] values",
                ));
            }
            emitted.extend(args);
            return Ok(Value::Null);
        }
        Err(self.fail(
            span,
            "illegal_argument_exception",
            format!("Unknown call [{name}] with [{}] arguments.", args.len()),
        ))
    }

    pub(super) fn construct(&mut self, class: &str, args: Vec<Value>, span: Span) -> Run<Value> {
        match (class, args.as_slice()) {
            ("ArrayList" | "LinkedList", []) => {
                self.heap.new_list(Vec::new()).map_err(self.budget(span))
            }
            ("ArrayList" | "LinkedList", [Value::Int(_)]) => {
                self.heap.new_list(Vec::new()).map_err(self.budget(span))
            }
            ("ArrayList" | "LinkedList", [Value::List(id)]) => {
                let items = self.heap.list(*id).clone();
                self.heap.new_list(items).map_err(self.budget(span))
            }
            ("HashMap" | "LinkedHashMap" | "TreeMap", []) => self
                .heap
                .new_map(BTreeMap::new())
                .map_err(self.budget(span)),
            ("HashMap" | "LinkedHashMap" | "TreeMap", [Value::Map(id)]) => {
                let entries = self.heap.map(*id).clone();
                self.heap.new_map(entries).map_err(self.budget(span))
            }
            _ => Err(self.fail(
                span,
                "illegal_argument_exception",
                format!(
                    "constructor [{class}/{}] is not supported by Strata's Painless subset",
                    args.len()
                ),
            )),
        }
    }

    pub(super) fn index(&mut self, receiver: Value, index: Value, span: Span) -> Run<Value> {
        match (&receiver, &index) {
            (Value::DocLookup, Value::Str(name)) => self.doc_field(name, span),
            (Value::List(id), Value::Int(i)) => {
                let list = self.heap.list(*id);
                let at = ops::list_index(*i, list.len())
                    .ok_or_else(|| self.out_of_bounds(*i, list.len(), span))?;
                Ok(list[at].clone())
            }
            (Value::Doc(id), Value::Int(i)) => {
                let values = &self.heap.doc(*id).values;
                let at = ops::list_index(*i, values.len())
                    .ok_or_else(|| self.out_of_bounds(*i, values.len(), span))?;
                Ok(values[at].clone())
            }
            (Value::Map(id), key) => {
                let key = ops::map_key(&self.heap, key);
                Ok(self.heap.map(*id).get(&key).cloned().unwrap_or(Value::Null))
            }
            (Value::Null, _) => Err(self.fail(
                span,
                "null_pointer_exception",
                "cannot read an element of a null value",
            )),
            _ => Err(self.fail(
                span,
                "illegal_argument_exception",
                format!(
                    "Attempting to address a non-array-like type [{}] as an array.",
                    class_name(&receiver)
                ),
            )),
        }
    }

    pub fn out_of_bounds(&self, i: i64, len: usize, span: Span) -> ScriptError {
        self.fail(
            span,
            "index_out_of_bounds_exception",
            format!("Index {i} out of bounds for length {len}"),
        )
    }

    /// `doc['name']`.
    pub fn doc_field(&mut self, name: &str, span: Span) -> Run<Value> {
        let lookup = self.doc.ok_or_else(|| {
            self.fail(
                span,
                "illegal_argument_exception",
                "cannot resolve symbol [doc]",
            )
        })?;
        let values = lookup
            .field(name)
            .map_err(|e| self.fail(span, e.kind, e.reason))?;
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            out.push(match v {
                crate::DocValue::Int(n) => Value::Int(n),
                crate::DocValue::Double(f) => Value::Double(f),
                crate::DocValue::Bool(b) => Value::Bool(b),
                crate::DocValue::Date(ms) => Value::Date(ms),
                crate::DocValue::Str(s) => self.heap.string(s).map_err(self.budget(span))?,
            });
        }
        self.heap
            .new_doc(DocField {
                name: name.to_string(),
                values: out,
            })
            .map_err(self.budget(span))
    }
}
