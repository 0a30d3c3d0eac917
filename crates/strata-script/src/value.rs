//! Runtime values and the heap they live in for one execution.
//!
//! Lists and maps are handles into a [`Heap`] owned by the execution, so
//! they have Java's reference semantics (`ctx._source.tags.add(x)`
//! changes the document) and a script that makes a cycle
//! (`l.add(l)`) leaks nothing: the whole heap goes when the run ends.
//! Every allocation is charged against the heap's byte budget.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::{Map, Number, Value as Json};

/// A value a script computes with.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// Java's `int` and `long`: both 64-bit here.
    Int(i64),
    /// Java's `double` and `float`.
    Double(f64),
    /// A string.
    Str(Rc<str>),
    /// A list (or array) in the heap.
    List(usize),
    /// A map in the heap.
    Map(usize),
    /// `doc['field']`: the field's values (index into the heap's docs).
    Doc(usize),
    /// A date (`doc['date'].value`): epoch milliseconds, in UTC.
    Date(i64),
    /// `doc` itself, indexed by field name.
    DocLookup,
}

/// The Java class name of a value, for errors.
pub fn class_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "java.lang.Boolean",
        Value::Int(_) => "java.lang.Integer",
        Value::Double(_) => "java.lang.Double",
        Value::Str(_) => "java.lang.String",
        Value::List(_) => "java.util.ArrayList",
        Value::Map(_) => "java.util.HashMap",
        Value::Doc(_) => "org.elasticsearch.index.fielddata.ScriptDocValues",
        Value::Date(_) => "java.time.ZonedDateTime",
        Value::DocLookup => "org.elasticsearch.search.lookup.LeafDocLookup",
    }
}

/// A doc-values field as a script sees it.
#[derive(Debug, Clone)]
pub struct DocField {
    /// The field name (for the error on a missing value).
    pub name: String,
    /// Its values, sorted as doc values are.
    pub values: Vec<Value>,
}

/// Why an allocation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfBudget {
    /// The budget in bytes.
    pub limit: usize,
}

/// Everything one execution allocated.
#[derive(Debug)]
pub struct Heap {
    lists: Vec<Vec<Value>>,
    maps: Vec<BTreeMap<String, Value>>,
    docs: Vec<DocField>,
    /// Maps made by `entrySet()`: `{key, value}` with `getKey()`/`getValue()`.
    entries: std::collections::HashSet<usize>,
    used: usize,
    limit: usize,
}

/// What a value or element is charged, beyond string bytes.
pub const CELL: usize = 32;

/// Deepest nesting converted to or from JSON, compared or printed.
pub const MAX_VALUE_DEPTH: usize = 100;

impl Heap {
    /// A heap that refuses to grow past `limit` bytes in total.
    pub fn new(limit: usize) -> Heap {
        Heap {
            lists: Vec::new(),
            maps: Vec::new(),
            docs: Vec::new(),
            entries: std::collections::HashSet::new(),
            used: 0,
            limit,
        }
    }

    /// Charges `bytes` to the budget.
    pub fn charge(&mut self, bytes: usize) -> Result<(), OutOfBudget> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(OutOfBudget { limit: self.limit });
        }
        Ok(())
    }

    /// A new string value, charged.
    pub fn string(&mut self, text: String) -> Result<Value, OutOfBudget> {
        self.charge(text.len() + CELL)?;
        Ok(Value::Str(Rc::from(text)))
    }

    /// A new list holding `items`, charged.
    pub fn new_list(&mut self, items: Vec<Value>) -> Result<Value, OutOfBudget> {
        self.charge(CELL * (items.len() + 1))?;
        self.lists.push(items);
        Ok(Value::List(self.lists.len() - 1))
    }

    /// A new map holding `entries`, charged.
    pub fn new_map(&mut self, entries: BTreeMap<String, Value>) -> Result<Value, OutOfBudget> {
        let keys: usize = entries.keys().map(String::len).sum();
        self.charge(keys + CELL * (2 * entries.len() + 1))?;
        self.maps.push(entries);
        Ok(Value::Map(self.maps.len() - 1))
    }

    /// A doc-values field.
    pub fn new_doc(&mut self, field: DocField) -> Result<Value, OutOfBudget> {
        self.charge(CELL * (field.values.len() + 1))?;
        self.docs.push(field);
        Ok(Value::Doc(self.docs.len() - 1))
    }

    /// A map entry (`Map.Entry`) of `key` and `value`.
    pub fn new_entry(&mut self, key: Value, value: Value) -> Result<Value, OutOfBudget> {
        let entry = BTreeMap::from([("key".to_string(), key), ("value".to_string(), value)]);
        let made = self.new_map(entry)?;
        if let Value::Map(id) = made {
            self.entries.insert(id);
        }
        Ok(made)
    }

    /// Whether the map `id` is a map entry.
    pub fn is_entry(&self, id: usize) -> bool {
        self.entries.contains(&id)
    }

    /// The list behind a handle.
    pub fn list(&self, id: usize) -> &Vec<Value> {
        &self.lists[id]
    }

    /// The list behind a handle, to change; growth must be charged by the caller.
    pub fn list_mut(&mut self, id: usize) -> &mut Vec<Value> {
        &mut self.lists[id]
    }

    /// The map behind a handle.
    pub fn map(&self, id: usize) -> &BTreeMap<String, Value> {
        &self.maps[id]
    }

    /// The map behind a handle, to change; growth must be charged by the caller.
    pub fn map_mut(&mut self, id: usize) -> &mut BTreeMap<String, Value> {
        &mut self.maps[id]
    }

    /// The doc field behind a handle.
    pub fn doc(&self, id: usize) -> &DocField {
        &self.docs[id]
    }

    /// Converts JSON into heap values.
    pub fn load_json(&mut self, json: &Json) -> Result<Value, OutOfBudget> {
        self.load_json_at(json, 0)
    }

    fn load_json_at(&mut self, json: &Json, depth: usize) -> Result<Value, OutOfBudget> {
        Ok(match json {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => number(n),
            Json::String(s) => self.string(s.clone())?,
            // Deeper than any mapping allows: kept as null rather than recursing.
            _ if depth >= MAX_VALUE_DEPTH => Value::Null,
            Json::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.load_json_at(item, depth + 1)?);
                }
                self.new_list(out)?
            }
            Json::Object(entries) => {
                let mut out = BTreeMap::new();
                for (k, v) in entries {
                    out.insert(k.clone(), self.load_json_at(v, depth + 1)?);
                }
                self.new_map(out)?
            }
        })
    }

    /// Converts a value back to JSON; `None` when it nests deeper than
    /// [`MAX_VALUE_DEPTH`] (a cycle does).
    pub fn to_json(&self, value: &Value) -> Option<Json> {
        self.to_json_at(value, 0)
    }

    fn to_json_at(&self, value: &Value, depth: usize) -> Option<Json> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        Some(match value {
            Value::Null | Value::DocLookup => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(n) => Json::from(*n),
            Value::Double(f) => Number::from_f64(*f).map_or(Json::Null, Json::Number),
            Value::Str(s) => Json::String(s.to_string()),
            Value::Date(ms) => Json::String(crate::dates::iso(*ms)),
            Value::List(id) => Json::Array(
                self.lists[*id]
                    .iter()
                    .map(|v| self.to_json_at(v, depth + 1))
                    .collect::<Option<_>>()?,
            ),
            Value::Doc(id) => Json::Array(
                self.docs[*id]
                    .values
                    .iter()
                    .map(|v| self.to_json_at(v, depth + 1))
                    .collect::<Option<_>>()?,
            ),
            Value::Map(id) => {
                let mut out = Map::new();
                for (k, v) in &self.maps[*id] {
                    out.insert(k.clone(), self.to_json_at(v, depth + 1)?);
                }
                Json::Object(out)
            }
        })
    }
}

/// A JSON number as an int when it is whole and fits, else a double.
pub fn number(n: &Number) -> Value {
    match n.as_i64() {
        Some(i) => Value::Int(i),
        None => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Java's `Double.toString`: `1.0`, `0.5`, `1.0E10`, `NaN`, `Infinity`.
pub fn java_double(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let abs = f.abs();
    if abs == 0.0 || (1e-3..1e7).contains(&abs) {
        let text = format!("{f}");
        if text.contains('.') {
            text
        } else {
            format!("{text}.0")
        }
    } else {
        let text = format!("{f:E}");
        let (mantissa, exp) = text.split_once('E').unwrap_or((&text, "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.to_string()
        } else {
            format!("{mantissa}.0")
        };
        format!("{mantissa}E{exp}")
    }
}
