//! Whether a user may run a command: the command (or subcommand) must be
//! allowed, and every key argument, found through the command table's key
//! specifications, must match one of the user's key patterns granting the
//! access the command needs (`%R~` to read values, `%W~` to change them).
//!
//! As in Redis: commands flagged `no_auth` (`AUTH`, `HELLO`, `QUIT`,
//! `RESET`) are always allowed; patterns such as `SCAN`'s `MATCH` or
//! `KEYS`'s are not key arguments (those commands are allowed or not by
//! their categories); a key spec that names neither access nor change
//! (`EXISTS`, `TYPE`, `WATCH`) needs any pattern at all to match.

use crate::args::Args;
use crate::command::{CommandSpec, KeySpec};
use crate::glob;

use super::command_set;
use super::users::User;

/// Why a command is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// The command (or subcommand) is not allowed.
    Command,
    /// The key argument at this index is not allowed.
    Key(usize),
}

/// Checks `spec` (the subcommand's row for a container with a known
/// subcommand) with `args` against `user`.
pub fn check(user: &User, spec: &CommandSpec, args: &Args<'_>) -> Result<(), Denial> {
    if user.unrestricted() || spec.no_auth() {
        return Ok(());
    }
    if !user.all_commands {
        let allowed = command_set::id_of(spec).is_some_and(|id| user.commands.contains(id));
        if !allowed {
            return Err(Denial::Command);
        }
    }
    if user.all_keys {
        return Ok(());
    }
    // Shard channels (`not_key`) are checked as channels, not keys.
    for key_spec in spec.keys.iter().filter(|k| !k.not_key()) {
        let (read, write) = access(spec, key_spec, args);
        for index in key_spec.positions(args) {
            if !key_allowed(user, args.get(index), read, write) {
                return Err(Denial::Key(index));
            }
        }
    }
    let keyword = spec.keyword_keys(args);
    let read = keyword.flags.contains(&"access");
    let write = keyword
        .flags
        .iter()
        .any(|f| matches!(*f, "insert" | "update" | "delete"));
    for index in keyword.positions {
        if !key_allowed(user, args.get(index), read, write) {
            return Err(Denial::Key(index));
        }
    }
    Ok(())
}

/// What a key spec needs: reading, writing. `SET` reads the old value only
/// with its `GET` option (Redis's variable flags for SET).
fn access(spec: &CommandSpec, key_spec: &KeySpec, args: &Args<'_>) -> (bool, bool) {
    if key_spec.flags.contains(&"variable_flags") && spec.name == "set" {
        let get = args.iter_from(3).any(|a| a.eq_ignore_ascii_case(b"get"));
        return (get, true);
    }
    (key_spec.reads(), key_spec.writes())
}

/// Whether one of `user`'s patterns grants the access to `key`.
pub fn key_allowed(user: &User, key: &[u8], read: bool, write: bool) -> bool {
    user.all_keys
        || user
            .keys
            .iter()
            .any(|p| (p.read || !read) && (p.write || !write) && glob::matches(&p.pattern, key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acl::rules::apply_all;
    use crate::command::lookup;

    fn user(rules: &[&str]) -> User {
        let mut user = User::new(b"u", 1);
        apply_all(&mut user, rules.iter().map(|r| r.as_bytes())).unwrap();
        user
    }

    /// Checks `line` (space-separated, the container resolved as the
    /// session does) for `user`.
    fn run(user: &User, line: &str) -> Result<(), Denial> {
        let words: Vec<&[u8]> = line.split(' ').map(str::as_bytes).collect();
        let buf: Vec<u8> = words.concat();
        let mut ranges = Vec::new();
        let mut at = 0;
        for w in &words {
            ranges.push((at, at + w.len()));
            at += w.len();
        }
        let args = Args::new(&buf, &ranges);
        let top = lookup(words[0]).unwrap();
        let spec = match top.subcommands {
            [] => top,
            _ => top.subcommand(words[1]).unwrap(),
        };
        check(user, spec, &args)
    }

    #[test]
    fn commands() {
        let u = user(&["+@read", "~*"]);
        assert_eq!(run(&u, "get k"), Ok(()));
        assert_eq!(run(&u, "set k v"), Err(Denial::Command));
        assert_eq!(
            run(&u, "auth x"),
            Ok(()),
            "no_auth commands are always allowed"
        );
        assert_eq!(run(&u, "config get x"), Err(Denial::Command));
        let u = user(&["+config|get", "~*"]);
        assert_eq!(run(&u, "config get x"), Ok(()));
        assert_eq!(run(&u, "config set x y"), Err(Denial::Command));
    }

    #[test]
    fn every_key_argument_is_checked() {
        let u = user(&["+@all", "~cache:*"]);
        assert_eq!(run(&u, "get cache:1"), Ok(()));
        assert_eq!(run(&u, "get other"), Err(Denial::Key(1)));
        assert_eq!(run(&u, "mset cache:a 1 other 2"), Err(Denial::Key(3)));
        assert_eq!(
            run(&u, "mset cache:a other cache:b 2"),
            Ok(()),
            "values are not keys"
        );
        assert_eq!(run(&u, "rename cache:a other"), Err(Denial::Key(2)));
        assert_eq!(run(&u, "del cache:a cache:b x"), Err(Denial::Key(3)));
        assert_eq!(run(&u, "scan 0 match other*"), Ok(()), "MATCH is not a key");
        assert_eq!(run(&u, "keys *"), Ok(()), "KEYS goes by category only");
        assert_eq!(run(&u, "watch cache:1 x"), Err(Denial::Key(2)));
    }

    #[test]
    fn read_and_write_patterns() {
        let u = user(&["+@all", "%R~r:*", "%W~w:*"]);
        assert_eq!(run(&u, "get r:1"), Ok(()));
        assert_eq!(run(&u, "get w:1"), Err(Denial::Key(1)));
        assert_eq!(run(&u, "set w:1 v"), Ok(()), "SET without GET only writes");
        assert_eq!(run(&u, "set w:1 v GET"), Err(Denial::Key(1)));
        assert_eq!(run(&u, "set r:1 v"), Err(Denial::Key(1)));
        assert_eq!(
            run(&u, "incr w:1"),
            Err(Denial::Key(1)),
            "INCR reads and writes"
        );
        assert_eq!(run(&u, "del w:1"), Ok(()));
        assert_eq!(
            run(&u, "exists r:1 w:1"),
            Ok(()),
            "EXISTS needs any pattern"
        );
        assert_eq!(run(&u, "exists x"), Err(Denial::Key(1)));
        assert_eq!(
            run(&u, "rename r:1 w:1"),
            Err(Denial::Key(1)),
            "RENAME deletes its source"
        );
        let both = user(&["+@all", "%R~a:*", "%W~a:*"]);
        assert_eq!(run(&both, "rename a:1 a:2"), Ok(()));
    }

    #[test]
    fn georadius_store_needs_write_access_to_its_destination() {
        let u = user(&["+@all", "%R~src", "%W~out:*"]);
        assert_eq!(run(&u, "georadius src 1 1 10 km"), Ok(()));
        assert_eq!(
            run(&u, "georadius src 1 1 10 km count 3 store other"),
            Err(Denial::Key(9))
        );
        assert_eq!(run(&u, "georadius src 1 1 10 km storedist out:1"), Ok(()));
        assert_eq!(
            run(&u, "georadiusbymember src m 10 km store src"),
            Err(Denial::Key(6))
        );
    }

    #[test]
    fn sort_store_needs_write_access_to_its_destination() {
        let u = user(&["+@all", "%R~src", "%W~out:*"]);
        assert_eq!(run(&u, "sort src by nosort limit 0 1"), Ok(()));
        assert_eq!(run(&u, "sort src store out:1"), Ok(()));
        assert_eq!(run(&u, "sort src store src"), Err(Denial::Key(3)));
        assert_eq!(
            run(&u, "sort src store out:1 store other"),
            Err(Denial::Key(5)),
            "the last STORE is the one taken"
        );
        assert_eq!(
            run(&u, "sort src get store limit store x"),
            Ok(()),
            "GET and LIMIT skip their arguments"
        );
        assert_eq!(
            run(&u, "sort_ro src store x"),
            Ok(()),
            "SORT_RO has no STORE"
        );
    }
}
