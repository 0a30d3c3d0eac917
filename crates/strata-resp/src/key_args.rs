//! [`key_args`]: where a request's keys are, from its command's row: the
//! key specifications, the keys a keyword finds (`SORT ... STORE`,
//! `XREAD ... STREAMS`), a script's `numkeys` keys (`EVAL`, `FCALL`) and
//! `MIGRATE`'s (one key, or those after `KEYS`).
//! One answer for `COMMAND GETKEYS`, `EXEC`'s shard locks and the cluster
//! mode's slot check.

use crate::args::Args;
use crate::number::parse_i64;
use crate::spec::CommandSpec;

/// Key-spec flags of a script's keys (Redis's for `EVAL`).
const SCRIPT_KEY_FLAGS: &[&str] = &["RW", "access", "update"];

/// The argument indexes of `args`' keys with their key-spec flags, in the
/// order Redis's key extraction gives them; `None` when a script's
/// `numkeys` is not a count of the arguments that follow it.
pub fn key_args(
    spec: &CommandSpec,
    args: &Args<'_>,
) -> Option<Vec<(usize, &'static [&'static str])>> {
    if spec.runs_script() {
        let numkeys = parse_i64(args.get(2))
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= args.len().saturating_sub(3))?;
        return Some((3..3 + numkeys).map(|i| (i, SCRIPT_KEY_FLAGS)).collect());
    }
    if spec.name == "migrate" {
        return Some(migrate_keys(args));
    }
    let mut keys = Vec::new();
    for key_spec in spec.keys.iter().filter(|k| !k.not_key()) {
        keys.extend(key_spec.positions(args).map(|i| (i, key_spec.flags)));
    }
    let keyword = spec.keyword_keys(args);
    keys.extend(keyword.positions.iter().map(|&i| (i, keyword.flags)));
    Some(keys)
}

/// Key-spec flags of `MIGRATE`'s keys.
const MIGRATE_KEY_FLAGS: &[&str] = &["RW", "access", "delete"];

/// `MIGRATE`'s keys as Redis's `migrateGetKeys` finds them: the key
/// argument, or with `KEYS` (past the options, skipping `AUTH`'s and
/// `AUTH2`'s values) every argument after it, and none when the key
/// argument is then not empty (the command refuses that).
fn migrate_keys(args: &Args<'_>) -> Vec<(usize, &'static [&'static str])> {
    let mut i = 6;
    while i < args.len() {
        let word = args.get(i);
        if word.eq_ignore_ascii_case(b"keys") {
            if !args.get(3).is_empty() {
                return Vec::new();
            }
            return (i + 1..args.len())
                .map(|k| (k, MIGRATE_KEY_FLAGS))
                .collect();
        }
        i += if word.eq_ignore_ascii_case(b"auth") {
            2
        } else if word.eq_ignore_ascii_case(b"auth2") {
            3
        } else {
            1
        };
    }
    vec![(3, MIGRATE_KEY_FLAGS)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::with_words;
    use crate::lookup::lookup;

    fn indexes(words: &str) -> Option<Vec<usize>> {
        let words: Vec<&[u8]> = words.split(' ').map(str::as_bytes).collect();
        with_words(&words, |args| {
            let spec = lookup(args.get(0)).unwrap();
            key_args(spec, args).map(|keys| keys.into_iter().map(|(i, _)| i).collect())
        })
    }

    #[test]
    fn specs_keywords_and_script_keys() {
        assert_eq!(indexes("mset a 1 b 2"), Some(vec![1, 3]));
        assert_eq!(indexes("sort l by w_* store dst"), Some(vec![1, 5]));
        assert_eq!(indexes("xread count 2 streams s1 s2 0 0"), Some(vec![4, 5]));
        assert_eq!(indexes("eval body 2 k1 k2 arg"), Some(vec![3, 4]));
        assert_eq!(indexes("eval body 3 k1 k2"), None);
        assert_eq!(indexes("ping"), Some(vec![]));
        assert_eq!(indexes("migrate h 1 k 0 10"), Some(vec![3]));
        assert_eq!(
            indexes("migrate h 1  0 10 auth pw keys a b"),
            Some(vec![9, 10])
        );
        assert_eq!(
            indexes("migrate h 1  0 10 auth2 u pw keys a"),
            Some(vec![10])
        );
        assert_eq!(indexes("migrate h 1  0 10 copy keys a b"), Some(vec![8, 9]));
        assert_eq!(indexes("migrate h 1 k 0 10 keys a"), Some(vec![]));
    }
}
