//! Commands as ACLs see them: every row of the command table, subcommands
//! included, gets a dense id, and a [`CommandSet`] is a bitmap over those
//! ids. `+config` sets the container's bit and its subcommands' bits;
//! `+config|get` only that subcommand's.

use std::sync::LazyLock;

use crate::command::CommandSpec;
use crate::lookup::lookup_full;
use crate::table::COMMANDS;

/// Most command ids a [`CommandSet`] holds (checked by a test against the
/// table; ids past it have no bit, so a rule naming them grants nothing).
pub const MAX_COMMANDS: usize = 384;

/// The slices of the table, in id order: the top-level rows, then the
/// subcommand rows of each container in table order.
static TABLES: LazyLock<Vec<&'static [CommandSpec]>> = LazyLock::new(|| {
    let mut tables: Vec<&'static [CommandSpec]> = vec![COMMANDS];
    tables.extend(
        COMMANDS
            .iter()
            .filter(|spec| !spec.subcommands.is_empty())
            .map(|spec| spec.subcommands),
    );
    tables
});

/// Every row in id order.
static ALL: LazyLock<Vec<&'static CommandSpec>> =
    LazyLock::new(|| TABLES.iter().flat_map(|table| table.iter()).collect());

/// Every command and subcommand row, in id order.
pub fn all() -> &'static [&'static CommandSpec] {
    &ALL
}

/// The id of a row of the command table. Rows are told apart by address:
/// every `&CommandSpec` the front end holds points into the static table.
/// `None` for a spec that is not a table row (never the case in practice).
pub fn id_of(spec: &CommandSpec) -> Option<usize> {
    let addr = spec as *const CommandSpec as usize;
    let size = std::mem::size_of::<CommandSpec>();
    let mut first_id = 0;
    for table in TABLES.iter() {
        let start = table.as_ptr() as usize;
        let end = start + std::mem::size_of_val(*table);
        if (start..end).contains(&addr) {
            return Some(first_id + (addr - start) / size);
        }
        first_id += table.len();
    }
    None
}

/// A command or `container|subcommand` by name, case-insensitively.
pub fn by_name(name: &str) -> Option<&'static CommandSpec> {
    lookup_full(name.as_bytes())
}

/// A set of command ids.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommandSet {
    bits: [u64; MAX_COMMANDS / 64],
}

impl CommandSet {
    /// Every command of the table.
    pub fn full() -> Self {
        let mut set = Self::default();
        for id in 0..ALL.len() {
            set.insert(id);
        }
        set
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: usize) -> bool {
        self.bits
            .get(id / 64)
            .is_some_and(|word| word & (1 << (id % 64)) != 0)
    }

    /// Adds `id`.
    pub fn insert(&mut self, id: usize) {
        if let Some(word) = self.bits.get_mut(id / 64) {
            *word |= 1 << (id % 64);
        }
    }

    /// Removes `id`.
    pub fn remove(&mut self, id: usize) {
        if let Some(word) = self.bits.get_mut(id / 64) {
            *word &= !(1 << (id % 64));
        }
    }

    /// Adds or removes `spec` and, for a container, all its subcommands.
    pub fn change(&mut self, spec: &CommandSpec, allow: bool) {
        let ids = std::iter::once(spec)
            .chain(spec.subcommands.iter())
            .filter_map(id_of);
        for id in ids {
            if allow {
                self.insert(id);
            } else {
                self.remove(id);
            }
        }
    }

    /// Whether every command of the table is in the set.
    pub fn is_full(&self) -> bool {
        (0..ALL.len()).all(|id| self.contains(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_distinct() {
        assert!(all().len() <= MAX_COMMANDS, "raise MAX_COMMANDS");
        for (id, spec) in all().iter().enumerate() {
            assert_eq!(id_of(spec), Some(id), "{}", spec.name);
        }
    }

    #[test]
    fn names_resolve() {
        assert_eq!(by_name("GET").map(|s| s.name), Some("get"));
        assert_eq!(by_name("config|GET").map(|s| s.name), Some("config|get"));
        assert!(by_name("config|").is_none());
        assert!(by_name("config|nope").is_none());
        assert!(by_name("get|x").is_none());
        assert!(by_name("nope").is_none());
    }

    #[test]
    fn containers_carry_their_subcommands() {
        let config = by_name("config").unwrap();
        let get = by_name("config|get").unwrap();
        let mut set = CommandSet::default();
        set.change(config, true);
        assert!(set.contains(id_of(get).unwrap()));
        set.change(get, false);
        assert!(set.contains(id_of(config).unwrap()));
        assert!(!set.contains(id_of(get).unwrap()));
        assert!(CommandSet::full().is_full());
        assert!(!set.is_full());
    }
}
