//! [`Functions`]: the libraries of Redis functions (`FUNCTION LOAD`), by
//! library and by function name, with Redis 7's collision rules; and the
//! `FUNCTION DUMP` payload, in Redis's format (each library as an RDB
//! `FUNCTION2` opcode and its code, then the RDB version and a CRC-64), so
//! a dump moves between Strata and Redis. No Lua here: libraries arrive
//! evaluated (`library.rs`).
//!
//! Kept in memory only: libraries do not survive a restart (Redis keeps
//! them in its RDB and AOF; Strata's command log and checkpoints hold the
//! keyspace only).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::rdb;

/// Script flags Redis 7 knows (`redis.register_function{flags=...}`).
pub const FLAGS: &[&str] = &[
    "no-writes",
    "allow-oom",
    "allow-stale",
    "no-cluster",
    "allow-cross-slot-keys",
];

/// One registered function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionInfo {
    /// Its name (letters, digits, `_`).
    pub name: String,
    /// `description=` of the named form, if given.
    pub description: Option<Vec<u8>>,
    /// Indexes into [`FLAGS`], in [`FLAGS`]' order.
    pub flags: Vec<usize>,
}

impl FunctionInfo {
    /// Declared `no-writes`: runs read-only, also under `FCALL_RO`.
    pub fn no_writes(&self) -> bool {
        self.flags.contains(&0)
    }
}

/// One library: its name, its whole code (shebang included) and functions.
#[derive(Debug)]
pub struct Library {
    /// `name=` of the shebang.
    pub name: String,
    /// The code as loaded, shebang included (`FUNCTION LIST WITHCODE`).
    pub code: Arc<[u8]>,
    /// What it registered, in order.
    pub functions: Vec<FunctionInfo>,
    /// Unique per load: what a thread's evaluated copy is checked against.
    pub generation: u64,
}

/// How `FUNCTION RESTORE` treats existing libraries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestorePolicy {
    /// Every existing library goes first.
    Flush,
    /// Added; a library name already loaded fails the restore.
    Append,
    /// Added; a library of the same name is replaced.
    Replace,
}

#[derive(Debug, Default)]
struct Registry {
    libraries: BTreeMap<String, Arc<Library>>,
    /// Function name -> library name.
    functions: HashMap<String, String>,
}

impl Registry {
    fn link(&mut self, lib: Arc<Library>) {
        for f in &lib.functions {
            self.functions.insert(f.name.clone(), lib.name.clone());
        }
        self.libraries.insert(lib.name.clone(), lib);
    }

    fn unlink(&mut self, name: &str) -> Option<Arc<Library>> {
        let lib = self.libraries.remove(name)?;
        for f in &lib.functions {
            self.functions.remove(&f.name);
        }
        Some(lib)
    }

    /// Adds `new` libraries; on a name collision replaces with `replace`,
    /// else fails; fails if a function name is taken by another library.
    /// Nothing changes on failure.
    fn join(&mut self, new: Vec<Arc<Library>>, replace: bool) -> Result<(), String> {
        let mut removed = Vec::new();
        let mut result = Ok(());
        for lib in &new {
            if self.libraries.contains_key(&lib.name) {
                if !replace {
                    result = Err(format!("Library {} already exists", lib.name));
                    break;
                }
                removed.extend(self.unlink(&lib.name));
            }
        }
        if result.is_ok() {
            let taken = new
                .iter()
                .flat_map(|lib| lib.functions.iter())
                .find(|f| self.functions.contains_key(&f.name));
            if let Some(f) = taken {
                result = Err(format!("Function {} already exists", f.name));
            }
        }
        match result {
            Ok(()) => new.into_iter().for_each(|lib| self.link(lib)),
            Err(_) => removed.into_iter().for_each(|lib| self.link(lib)),
        }
        result
    }
}

/// Every library loaded, shared by all connections.
#[derive(Debug, Default)]
pub struct Functions {
    registry: Mutex<Registry>,
    generations: AtomicU64,
}

/// Library and function counts (`FUNCTION STATS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Libraries loaded.
    pub libraries: usize,
    /// Functions they registered.
    pub functions: usize,
}

impl Functions {
    /// A number never handed out before, for a newly evaluated library.
    pub fn next_generation(&self) -> u64 {
        self.generations.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// `FUNCTION LOAD`: adds `lib` (replacing one of its name with
    /// `replace`), with Redis's errors.
    pub fn load(&self, lib: Library, replace: bool) -> Result<(), String> {
        let mut registry = self.registry.lock();
        if registry.libraries.contains_key(&lib.name) && !replace {
            return Err(format!("Library '{}' already exists", lib.name));
        }
        let old = registry.unlink(&lib.name);
        if let Some(f) = lib
            .functions
            .iter()
            .find(|f| registry.functions.contains_key(&f.name))
        {
            let err = format!("Function {} already exists", f.name);
            if let Some(old) = old {
                registry.link(old);
            }
            return Err(err);
        }
        registry.link(Arc::new(lib));
        Ok(())
    }

    /// `FUNCTION DELETE`: false when there is no such library.
    pub fn delete(&self, name: &[u8]) -> bool {
        let name = String::from_utf8_lossy(name);
        self.registry.lock().unlink(&name).is_some()
    }

    /// `FUNCTION FLUSH`.
    pub fn flush(&self) {
        *self.registry.lock() = Registry::default();
    }

    /// The function `name` and its library.
    pub fn function(&self, name: &[u8]) -> Option<(Arc<Library>, FunctionInfo)> {
        let name = std::str::from_utf8(name).ok()?;
        let registry = self.registry.lock();
        let lib = registry
            .libraries
            .get(registry.functions.get(name)?)?
            .clone();
        let info = lib.functions.iter().find(|f| f.name == name)?.clone();
        Some((lib, info))
    }

    /// Whether library `name` is loaded.
    pub fn has_library(&self, name: &str) -> bool {
        self.registry.lock().libraries.contains_key(name)
    }

    /// Every library, by name.
    pub fn libraries(&self) -> Vec<Arc<Library>> {
        self.registry.lock().libraries.values().cloned().collect()
    }

    /// Libraries and functions loaded.
    pub fn counts(&self) -> Counts {
        let registry = self.registry.lock();
        Counts {
            libraries: registry.libraries.len(),
            functions: registry.functions.len(),
        }
    }

    /// Bytes the libraries hold: each one's name and code, and each of
    /// its functions' name and description (`MEMORY STATS`'
    /// `functions.caches`).
    pub fn bytes(&self) -> usize {
        let registry = self.registry.lock();
        let function = |f: &FunctionInfo| f.name.len() + f.description.as_ref().map_or(0, Vec::len);
        registry
            .libraries
            .values()
            .map(|lib| {
                lib.name.len() + lib.code.len() + lib.functions.iter().map(function).sum::<usize>()
            })
            .sum()
    }

    /// `FUNCTION RESTORE`'s last step: `libs` evaluated from a payload,
    /// added by `policy`.
    pub fn restore(&self, libs: Vec<Library>, policy: RestorePolicy) -> Result<(), String> {
        let libs: Vec<Arc<Library>> = libs.into_iter().map(Arc::new).collect();
        let mut fresh = Registry::default();
        // A payload naming a library or a function twice is refused whole.
        fresh.join(libs, false)?;
        let mut registry = self.registry.lock();
        match policy {
            RestorePolicy::Flush => {
                *registry = fresh;
                Ok(())
            }
            _ => {
                let libs = fresh.libraries.into_values().collect();
                registry.join(libs, policy == RestorePolicy::Replace)
            }
        }
    }

    /// `FUNCTION DUMP`: Redis's payload of every library (with
    /// [`rdb::VERSION`], so Redis 7.0 restores it too).
    pub fn dump(&self) -> Vec<u8> {
        let libs = self.libraries();
        let mut out = Vec::new();
        for lib in libs {
            out.push(OPCODE_FUNCTION2);
            rdb::put_string(&mut out, &lib.code);
        }
        rdb::seal(&mut out, rdb::VERSION);
        out
    }
}

/// RDB opcode before each library's code in a dump.
const OPCODE_FUNCTION2: u8 = 245;

/// The libraries' codes in a `FUNCTION DUMP` payload (Strata's or
/// Redis 7's, whose codes may be LZF-compressed), with Redis's errors.
pub fn parse_dump(payload: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let body = rdb::open(payload)
        .ok_or_else(|| "DUMP payload version or checksum are wrong".to_string())?;
    let mut reader = rdb::Reader::new(body, rdb::MAX_STRING);
    let mut codes = Vec::new();
    while !reader.at_end() {
        if reader.byte() != Some(OPCODE_FUNCTION2) {
            return Err("given type is not a function".into());
        }
        let code = reader
            .string()
            .ok_or_else(|| "failed loading the given functions payload".to_string())?;
        codes.push(code.into_owned());
    }
    Ok(codes)
}

#[cfg(test)]
#[path = "functions_tests.rs"]
mod tests;
