//! The classes of keyspace notifications and the `notify-keyspace-events`
//! string that selects them: Redis's letters, its parsing (every letter
//! must be known; `A` is every class but `m` and `n`) and its canonical
//! form (`CONFIG GET`: the classes, or `A` when all of `A` is on, then
//! `K`, `E`, `m`; like Redis it does not show `n` beside `A`).

/// `K`: publish to `__keyspace@0__:<key>`.
pub const KEYSPACE: u32 = 1 << 0;
/// `E`: publish to `__keyevent@0__:<event>`.
pub const KEYEVENT: u32 = 1 << 1;
/// `g`: generic commands (`del`, `expire`, `rename_from`, ...).
pub const GENERIC: u32 = 1 << 2;
/// `$`: string commands.
pub const STRING: u32 = 1 << 3;
/// `l`: list commands.
pub const LIST: u32 = 1 << 4;
/// `s`: set commands.
pub const SET: u32 = 1 << 5;
/// `h`: hash commands.
pub const HASH: u32 = 1 << 6;
/// `z`: sorted set commands.
pub const ZSET: u32 = 1 << 7;
/// `x`: `expired`.
pub const EXPIRED: u32 = 1 << 8;
/// `e`: `evicted`.
pub const EVICTED: u32 = 1 << 9;
/// `t`: stream commands.
pub const STREAM: u32 = 1 << 10;
/// `m`: key misses (accepted and shown; Strata sends no `keymiss`).
pub const KEY_MISS: u32 = 1 << 11;
/// `d`: module events (accepted and shown; Strata has no modules).
pub const MODULE: u32 = 1 << 13;
/// `n`: `new`, a key added to the database.
pub const NEW: u32 = 1 << 14;
/// `A`: every class except `m` and `n`.
pub const ALL: u32 =
    GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

/// The letters of the classes `A` covers (and `n`), in canonical order.
const CLASS_LETTERS: [(u32, u8); 11] = [
    (GENERIC, b'g'),
    (STRING, b'$'),
    (LIST, b'l'),
    (SET, b's'),
    (HASH, b'h'),
    (ZSET, b'z'),
    (EXPIRED, b'x'),
    (EVICTED, b'e'),
    (STREAM, b't'),
    (MODULE, b'd'),
    (NEW, b'n'),
];

/// The flags a `notify-keyspace-events` string selects; `None` when it
/// holds a letter Redis does not know (the empty string is all off).
pub fn parse(text: &[u8]) -> Option<u32> {
    text.iter().try_fold(0, |flags, &c| {
        let bit = match c {
            b'A' => ALL,
            b'K' => KEYSPACE,
            b'E' => KEYEVENT,
            b'm' => KEY_MISS,
            other => CLASS_LETTERS.iter().find(|(_, l)| *l == other)?.0,
        };
        Some(flags | bit)
    })
}

/// The canonical string of `flags`, as `CONFIG GET` shows it.
pub fn format(flags: u32) -> String {
    let mut out = String::new();
    if flags & ALL == ALL {
        // As in Redis (7.0 and 7.2), `n` is not shown beside `A`, though
        // it stays on.
        out.push('A');
    } else {
        for (bit, letter) in CLASS_LETTERS {
            if flags & bit != 0 {
                out.push(char::from(letter));
            }
        }
    }
    for (bit, letter) in [(KEYSPACE, 'K'), (KEYEVENT, 'E'), (KEY_MISS, 'm')] {
        if flags & bit != 0 {
            out.push(letter);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(text: &str) -> Option<String> {
        parse(text.as_bytes()).map(format)
    }

    #[test]
    fn parses_and_formats_as_redis() {
        assert_eq!(canonical(""), Some(String::new()));
        assert_eq!(canonical("AKE").as_deref(), Some("AKE"));
        assert_eq!(canonical("EKA").as_deref(), Some("AKE"));
        assert_eq!(canonical("KEg$lshzxetd").as_deref(), Some("AKE"));
        assert_eq!(canonical("Elg").as_deref(), Some("glE"));
        assert_eq!(canonical("xK").as_deref(), Some("xK"));
        assert_eq!(canonical("mnE").as_deref(), Some("nEm"));
        assert_eq!(canonical("K").as_deref(), Some("K"));
        assert_eq!(canonical("AnKE").as_deref(), Some("AKE"));
        assert_eq!(canonical("gg").as_deref(), Some("g"));
        assert_eq!(canonical("xyz"), None);
        assert_eq!(canonical("a"), None);
        assert_eq!(canonical("A "), None);
    }

    #[test]
    fn all_leaves_out_misses_and_new() {
        let all = parse(b"A").unwrap_or_default();
        assert_eq!(all & (KEY_MISS | NEW | KEYSPACE | KEYEVENT), 0);
        assert_eq!(all, ALL);
    }
}
