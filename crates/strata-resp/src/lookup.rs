//! Finding a command's row in the static table by name
//! ([`lookup`], [`resolve_subcommand`]).
//!
//! Every request looks its command up, so the table is indexed once by a
//! hash map (a binary search over ~240 names with a `memcmp` per probe was
//! 5% of the server's CPU under pipelined `HSET`/`HGET`).

use std::sync::LazyLock;

use rustc_hash::FxHashMap;

use crate::args::Args;
use crate::reply::RespError;
use crate::spec::CommandSpec;
use crate::table::COMMANDS;

/// Longest command name the table holds a row for (longer names are
/// unknown without hashing them).
const MAX_NAME: usize = 24;

/// The table's rows by lower-case name.
static BY_NAME: LazyLock<FxHashMap<&'static [u8], &'static CommandSpec>> = LazyLock::new(|| {
    COMMANDS
        .iter()
        .map(|spec| (spec.name.as_bytes(), spec))
        .collect()
});

/// Looks a command up by name, case-insensitively.
pub fn lookup(name: &[u8]) -> Option<&'static CommandSpec> {
    let mut lower = [0u8; MAX_NAME];
    let lower = lower.get_mut(..name.len())?;
    for (dst, src) in lower.iter_mut().zip(name) {
        *dst = src.to_ascii_lowercase();
    }
    BY_NAME.get(&*lower).copied()
}

/// A command or a `container|subcommand` by name, case-insensitively
/// (`COMMAND INFO`/`DOCS`, ACL rules).
pub fn lookup_full(name: &[u8]) -> Option<&'static CommandSpec> {
    match name.iter().position(|&b| b == b'|') {
        None => lookup(name),
        Some(at) if at + 1 < name.len() => lookup(&name[..at])?.subcommand(&name[at + 1..]),
        Some(_) => None,
    }
}

/// The subcommand of container `container` named by `args[1]`, with its
/// arity checked against `args`.
pub fn resolve_subcommand(
    container: &'static str,
    args: &Args<'_>,
) -> Result<&'static CommandSpec, RespError> {
    let sub = lookup(container.as_bytes())
        .and_then(|spec| spec.subcommand(args.get(1)))
        .ok_or_else(|| RespError::unknown_subcommand(container, args.get(1)))?;
    if !sub.arity_ok(args.len()) {
        return Err(RespError::WrongArity(sub.name.to_string()));
    }
    Ok(sub)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::with_words;

    #[test]
    fn table_is_sorted_and_unique() {
        for pair in COMMANDS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} !< {}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn every_row_is_found_by_its_name() {
        assert!(COMMANDS.iter().all(|spec| spec.name.len() <= MAX_NAME));
        for spec in COMMANDS {
            let found = lookup(spec.name.to_ascii_uppercase().as_bytes());
            assert!(
                found.is_some_and(|f| std::ptr::eq(f, spec)),
                "{}",
                spec.name
            );
        }
    }

    #[test]
    fn lookup_is_case_insensitive() {
        assert_eq!(lookup(b"GET").map(|s| s.name), Some("get"));
        assert_eq!(lookup(b"gEt").map(|s| s.name), Some("get"));
        assert!(lookup(b"nosuchcommand").is_none());
        assert!(lookup(b"").is_none());
        assert!(lookup(&[b'a'; 100]).is_none());
    }

    #[test]
    fn arity() {
        let get = lookup(b"get")
            .map(|s| (s.arity_ok(2), s.arity_ok(3)))
            .unwrap_or_default();
        assert_eq!(get, (true, false));
        let set = lookup(b"set").map(|s| (s.arity_ok(2), s.arity_ok(3), s.arity_ok(9)));
        assert_eq!(set, Some((false, true, true)));
    }

    #[test]
    fn legacy_key_ranges_are_redis_ones() {
        for (name, legacy) in [
            ("get", (1, 1, 1)),
            ("del", (1, -1, 1)),
            ("mset", (1, -1, 2)),
            ("rename", (1, 2, 1)),
            ("ping", (0, 0, 0)),
        ] {
            assert_eq!(
                lookup(name.as_bytes()).map(|s| s.legacy_keys()),
                Some(legacy),
                "{name}"
            );
        }
    }

    #[test]
    fn key_positions() {
        let at = |words: &str| -> Vec<usize> {
            let words: Vec<&[u8]> = words.split(' ').map(str::as_bytes).collect();
            with_words(&words, |args| {
                let spec = lookup(args.get(0)).unwrap();
                spec.keys.iter().flat_map(|k| k.positions(args)).collect()
            })
        };
        assert_eq!(at("get k"), [1]);
        assert_eq!(at("del a b c"), [1, 2, 3]);
        assert_eq!(at("mset a 1 b 2"), [1, 3]);
        // A malformed MSET still has its keys checked, never more.
        assert_eq!(at("mset a 1 b"), [1, 3]);
        assert_eq!(at("rename a b"), [1, 2]);
        assert_eq!(at("rename a"), [1]);
        assert!(at("ping a b").is_empty());
        // Counted keys: the options after them are not keys.
        assert_eq!(at("zunionstore d 2 a b weights 1 2"), [1, 3, 4]);
        assert_eq!(at("sintercard 2 a b limit 5"), [2, 3]);
        // A count that is not a number, negative or too large: none.
        assert!(at("sintercard x a").is_empty());
        assert!(at("sintercard -1 a").is_empty());
        assert!(at("sintercard 3 a b").is_empty());
        assert_eq!(at("zunionstore d 3 a b"), [1]);
    }

    #[test]
    fn counted_keys_leave_the_legacy_range() {
        assert_eq!(
            lookup(b"zunionstore").map(|s| s.legacy_keys()),
            Some((1, 1, 1))
        );
        assert_eq!(
            lookup(b"sintercard").map(|s| s.legacy_keys()),
            Some((0, 0, 0))
        );
    }

    #[test]
    fn subcommands_resolve() {
        let client = lookup(b"client").map(|c| c.subcommand(b"SETNAME").map(|s| s.name));
        assert_eq!(client, Some(Some("client|setname")));
    }
}
