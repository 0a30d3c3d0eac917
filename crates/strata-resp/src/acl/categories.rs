//! ACL command categories, as Redis 7 names them. A command's categories
//! are those of its row in the command table (`COMMAND INFO` reports the
//! same), so `+@read` allows exactly the commands that say `@read`.
//! Categories without Strata commands yet (`@stream`, `@geo`, ...) are
//! accepted and simply hold nothing.

use crate::command::CommandSpec;

use super::command_set;

/// Every category, in the order `ACL CAT` lists them.
pub const CATEGORIES: &[&str] = &[
    "keyspace",
    "read",
    "write",
    "set",
    "sortedset",
    "list",
    "hash",
    "string",
    "bitmap",
    "hyperloglog",
    "geo",
    "stream",
    "pubsub",
    "admin",
    "fast",
    "slow",
    "blocking",
    "dangerous",
    "connection",
    "transaction",
    "scripting",
];

/// The category named `name` (case-insensitive, without `@`), as its
/// canonical lower-case name; `all` is accepted too.
pub fn canonical(name: &str) -> Option<&'static str> {
    if name.eq_ignore_ascii_case("all") {
        return Some("all");
    }
    CATEGORIES
        .iter()
        .copied()
        .find(|c| c.eq_ignore_ascii_case(name))
}

/// Whether `spec` belongs to `category` (a canonical name; `all` holds
/// every command).
pub fn contains(spec: &CommandSpec, category: &str) -> bool {
    category == "all"
        || spec
            .categories
            .iter()
            .any(|c| c.strip_prefix('@') == Some(category))
}

/// The commands and subcommands of `category`, in id order (`ACL CAT`).
pub fn members(category: &str) -> impl Iterator<Item = &'static CommandSpec> + '_ {
    command_set::all()
        .iter()
        .copied()
        .filter(move |spec| contains(spec, category))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_category_is_known() {
        for spec in command_set::all() {
            for c in spec.categories {
                let name = c.strip_prefix('@').unwrap_or(c);
                assert_eq!(canonical(name), Some(name), "{} of {}", c, spec.name);
            }
        }
    }

    #[test]
    fn membership() {
        let names: Vec<_> = members("transaction").map(|s| s.name).collect();
        for expected in ["discard", "exec", "multi", "unwatch", "watch"] {
            assert!(names.contains(&expected), "{expected}");
        }
        assert_eq!(canonical("READ"), Some("read"));
        assert_eq!(canonical("nosuch"), None);
        assert!(members("hash").any(|s| s.name == "hset"));
        assert!(members("blocking").any(|s| s.name == "blpop"));
        assert!(members("stream").any(|s| s.name == "xadd"));
        assert!(members("admin").any(|s| s.name == "config|set"));
    }
}
