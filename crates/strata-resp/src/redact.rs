//! [`redacted`]: which arguments of a command hold secrets, as Redis 7.2
//! hides them from the slow log and from `MONITOR` (its
//! `redactClientCommandArgument`, called by the command while it runs, so
//! an argument is hidden only once the command got as far as reading it).
//! A leaf: the slow log and the monitor feed both ask it.

use crate::args::Args;
use crate::number::parse_i64;

/// What a hidden argument shows instead.
pub const REDACTED: &[u8] = b"(redacted)";

/// The arguments (of the first 64) Redis 7.2 replaces with
/// [`REDACTED`], a bit per argument:
/// - `AUTH password` and `AUTH user password` (not `AUTH` with more
///   arguments, which Redis refuses before reading them);
/// - `HELLO 2|3 ... AUTH user password ...`, when the options before
///   `AUTH` are well formed (Redis reads them in order and stops at the
///   first bad one);
/// - `ACL SETUSER`'s user and rules;
/// - the value of `CONFIG SET requirepass`;
/// - `MIGRATE`'s `AUTH` password and `AUTH2` user and password.
pub fn redacted(args: &Args<'_>) -> u64 {
    let is = |i: usize, word: &[u8]| args.get(i).eq_ignore_ascii_case(word);
    let argc = args.len().min(64);
    let from = |first: usize| (first..argc).fold(0u64, |mask, i| mask | 1 << i);
    if is(0, b"auth") {
        return match args.len() {
            2 | 3 => from(1),
            _ => 0,
        };
    }
    if is(0, b"hello") {
        return hello(args);
    }
    if is(0, b"migrate") {
        return migrate(args);
    }
    if is(0, b"acl") && is(1, b"setuser") {
        // Redis hides the user name too.
        return from(2);
    }
    if is(0, b"config") && is(1, b"set") {
        return (2..argc.saturating_sub(1))
            .step_by(2)
            .filter(|&i| is(i, b"requirepass"))
            .fold(0, |mask, i| mask | 1 << (i + 1));
    }
    0
}

/// `HELLO [protover [AUTH username password] [SETNAME name]]` as Redis
/// 7.2's `helloCommand` reads it: nothing is hidden unless the version is
/// 2 or 3; options are read left to right, and the first malformed one
/// (an unknown word, `AUTH` without two arguments, a bad `SETNAME`) ends
/// the reading.
fn hello(args: &Args<'_>) -> u64 {
    if args.len() < 2 || !matches!(parse_i64(args.get(1)), Some(2 | 3)) {
        return 0;
    }
    let mut mask = 0u64;
    let mut i = 2;
    while i < args.len() {
        let opt = args.get(i);
        let more = args.len() - 1 - i;
        if opt.eq_ignore_ascii_case(b"auth") && more >= 2 {
            for j in [i + 1, i + 2] {
                if j < 64 {
                    mask |= 1 << j;
                }
            }
            i += 3;
        } else if opt.eq_ignore_ascii_case(b"setname") && more >= 1 {
            let name = args.get(i + 1);
            if !name.iter().all(|c| (b'!'..=b'~').contains(c)) {
                break;
            }
            i += 2;
        } else {
            break;
        }
    }
    mask
}

/// `MIGRATE`'s options from the sixth argument, read as its command reads
/// them until `KEYS` or a word it does not know: `AUTH password` and
/// `AUTH2 username password` hidden when complete.
fn migrate(args: &Args<'_>) -> u64 {
    let mut mask = 0u64;
    let mut i = 6;
    while i < args.len() {
        let word = args.get(i);
        let more = args.len() - 1 - i;
        let hidden = if word.eq_ignore_ascii_case(b"auth") && more >= 1 {
            1
        } else if word.eq_ignore_ascii_case(b"auth2") && more >= 2 {
            2
        } else if word.eq_ignore_ascii_case(b"copy") || word.eq_ignore_ascii_case(b"replace") {
            0
        } else {
            break;
        };
        for j in i + 1..=i + hidden {
            if j < 64 {
                mask |= 1 << j;
            }
        }
        i += 1 + hidden;
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(words: &[&str]) -> u64 {
        let words: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
        crate::args::with_words(&words, redacted)
    }

    #[test]
    fn auth_is_hidden_in_its_two_forms_only() {
        assert_eq!(mask(&["AUTH", "pw"]), 0b10);
        assert_eq!(mask(&["auth", "u", "pw"]), 0b110);
        // Refused by Redis before it reads them: shown as sent.
        assert_eq!(mask(&["AUTH", "a", "b", "c"]), 0);
    }

    #[test]
    fn migrate_hides_auth_and_auth2_values() {
        let m = |rest: &[&str]| {
            let mut words = vec!["MIGRATE", "h", "1", "", "0", "10"];
            words.extend_from_slice(rest);
            mask(&words)
        };
        assert_eq!(m(&["AUTH", "pw", "KEYS", "a"]), 1 << 7);
        assert_eq!(m(&["COPY", "AUTH2", "u", "pw"]), 0b11 << 8);
        // Past KEYS or a word MIGRATE refuses: keys, shown.
        assert_eq!(m(&["KEYS", "auth", "x"]), 0);
        assert_eq!(m(&["BOGUS", "AUTH", "pw"]), 0);
        assert_eq!(m(&["AUTH"]), 0);
    }

    #[test]
    fn hello_hides_credentials_after_well_formed_options() {
        assert_eq!(mask(&["HELLO", "3", "AUTH", "u", "p"]), 0b11000);
        assert_eq!(
            mask(&["hello", "2", "setname", "n", "auth", "u", "p"]),
            0b110_0000
        );
        assert_eq!(
            mask(&["HELLO", "3", "AUTH", "u", "p", "SETNAME", "n"]),
            0b11000
        );
        // A bad version, a bad name, an unknown word or a short AUTH
        // stop Redis before the credentials.
        assert_eq!(mask(&["HELLO", "9", "AUTH", "u", "p"]), 0);
        assert_eq!(mask(&["HELLO", "x", "AUTH", "u", "p"]), 0);
        assert_eq!(mask(&["HELLO", "2", "SETNAME", "a b", "AUTH", "u", "p"]), 0);
        assert_eq!(mask(&["HELLO", "2", "FOO", "AUTH", "u", "p"]), 0);
        assert_eq!(mask(&["HELLO", "2", "AUTH", "u"]), 0);
        assert_eq!(mask(&["HELLO"]), 0);
    }

    #[test]
    fn admin_secrets() {
        assert_eq!(mask(&["config", "set", "requirepass", "s"]), 0b1000);
        assert_eq!(
            mask(&["config", "set", "timeout", "5", "requirepass", "s"]),
            0b10_0000
        );
        assert_eq!(mask(&["acl", "setuser", "bob", ">pw"]), 0b1100);
        assert_eq!(mask(&["GET", "auth"]), 0);
    }
}
