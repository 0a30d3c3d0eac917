//! The command table's rows: [`Command`] (which handler runs, in
//! `command.rs`),
//! [`CommandSpec`] (name, arity, flags, key specifications, ACL
//! categories, as `COMMAND` reports them) and [`KeySpec`]. A leaf: the
//! table (`table.rs`), ACLs and the dispatcher build on it.

mod command;

pub use command::Command;

/// One row of the command table, reported as-is by `COMMAND`.
#[derive(Debug)]
pub struct CommandSpec {
    /// Lower-case name (`get`, `client|setname` for subcommands).
    pub name: &'static str,
    /// Which handler runs it.
    pub command: Command,
    /// Redis arity: `n` exactly n arguments (name included), `-n` at least n.
    pub arity: i32,
    /// Redis command flags (`write`, `readonly`, `fast`, `no_auth`, ...).
    pub flags: &'static [&'static str],
    /// Where the key arguments are and how each is used (Redis 7 key
    /// specifications); ACL key checks and `COMMAND INFO` both read them.
    pub keys: &'static [KeySpec],
    /// ACL categories (`@read`, `@string`, ...).
    pub categories: &'static [&'static str],
    /// Documentation group (`string`, `generic`, `server`, ...).
    pub group: &'static str,
    /// Redis version that introduced it.
    pub since: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Subcommands of a container command (CLIENT, CONFIG, COMMAND, ...).
    pub subcommands: &'static [CommandSpec],
    /// Redis 7 command tips (`nondeterministic_output`, `request_policy:…`,
    /// `response_policy:…`) in redis-server 7.0's order; clusters route by them.
    pub tips: &'static [&'static str],
}

/// One Redis 7 key specification: `begin_search` by index (`begin`), then
/// `find_keys` by range (keys from `begin` up to `last`: 0 only that one,
/// negative counted from the end, -1 being the last argument; every
/// `step` arguments) or, when `keynum`, by a key count (the argument at
/// `begin` counts the keys that follow it, every `step` arguments).
#[derive(Debug)]
pub struct KeySpec {
    /// Redis key-spec flags (`RO`/`RW`/`OW`/`RM`, then `access`, `insert`,
    /// `update`, `delete`, `variable_flags`).
    pub flags: &'static [&'static str],
    /// Index of the first key argument.
    pub begin: i32,
    /// `lastkey`, relative to `begin` when not negative.
    pub last: i32,
    /// `keystep`.
    pub step: i32,
    /// `find_keys` by `keynum` (`keynumidx` 0, `firstkey` 1) instead of
    /// by range; `last` is then unused.
    pub keynum: bool,
    /// Redis's note on the flags, shown by `COMMAND INFO`.
    pub notes: Option<&'static str>,
    /// How the first key is found: at `begin`, or (reported only) by a
    /// keyword or not at all.
    pub search: Search,
}

/// How a key specification's first key is found (`begin_search`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// At the argument `begin` (Redis's `index`).
    Index,
    /// After `keyword`, looked for from `startfrom` (negative: from the
    /// end); then `last`, `step` and `limit` as Redis's range. Reported by
    /// `COMMAND INFO`; the keys themselves are found by
    /// [`CommandSpec::keyword_keys`] and `key_args`.
    Keyword {
        /// The keyword (`STORE`, `STREAMS`, `KEYS`).
        keyword: &'static str,
        /// Where the search starts.
        startfrom: i32,
        /// Redis's range `limit` (2: the keys are half of what follows).
        limit: i32,
    },
    /// Nowhere a specification can say (`SORT`'s `BY`, `GET`, `STORE`);
    /// reported only.
    Unknown,
}

impl KeySpec {
    /// This specification with Redis's note on its flags.
    pub const fn noted(self, notes: &'static str) -> KeySpec {
        KeySpec {
            notes: Some(notes),
            ..self
        }
    }

    /// Whether the arguments found are no keys (`not_key`: `SPUBLISH`'s
    /// shard channel): reported by `COMMAND INFO` and in the first, last
    /// and step it gives, for clients that route by them, but neither
    /// checked against key permissions nor locked as keys.
    pub fn not_key(&self) -> bool {
        self.flags.contains(&"not_key")
    }

    /// Whether the command reads the keys' values (ACL `%R~` patterns).
    pub fn reads(&self) -> bool {
        self.flags.contains(&"access")
    }

    /// Whether the command changes or removes the keys (ACL `%W~` patterns).
    pub fn writes(&self) -> bool {
        self.flags
            .iter()
            .any(|f| matches!(*f, "insert" | "update" | "delete"))
    }

    /// The argument indexes holding keys in `args` (name included). A key
    /// count that is not a number or names more keys than follow gives
    /// none, as Redis's key extraction does (the command then fails).
    pub fn positions(&self, args: &crate::args::Args<'_>) -> impl Iterator<Item = usize> {
        // Keys a keyword finds are found by `keyword_keys` instead.
        let argc = if self.search == Search::Index {
            args.len() as i64
        } else {
            0
        };
        let begin = i64::from(self.begin);
        let step = i64::from(self.step.max(1));
        let span = if self.keynum {
            usize::try_from(begin)
                .ok()
                .filter(|&i| i < args.len())
                .and_then(|i| crate::number::parse_i64(args.get(i)))
                .filter(|&n| n >= 0 && begin + n * step < argc)
                .map(|n| (begin + 1, begin + n * step))
        } else if self.last >= 0 {
            Some((begin, begin + i64::from(self.last)))
        } else {
            Some((begin, argc + i64::from(self.last)))
        };
        let (first, last) = span.unwrap_or((1, 0));
        let last = last.min(argc - 1);
        let step = usize::try_from(step).unwrap_or(1);
        (first..=last)
            .step_by(step)
            .filter_map(|i| usize::try_from(i).ok())
    }
}

/// Flags of a key found by keyword ([`CommandSpec::keyword_keys`]):
/// `GEORADIUS`'s and `SORT`'s `STORE` destination.
pub const KEYWORD_KEY_FLAGS: &[&str] = &["OW", "update"];

/// Flags of the keys after `XREAD`'s and `XREADGROUP`'s `STREAMS`.
pub const STREAMS_KEY_FLAGS: &[&str] = &["RO", "access"];

/// Keys the key specifications cannot describe because a keyword finds
/// them ([`CommandSpec::keyword_keys`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeywordKeys {
    /// Their argument indexes.
    pub positions: Vec<usize>,
    /// How the command uses them (key-spec flags).
    pub flags: &'static [&'static str],
}

impl CommandSpec {
    /// The argument indexes of keys the key specifications cannot describe
    /// because a keyword names them: `GEORADIUS`'s and
    /// `GEORADIUSBYMEMBER`'s `STORE` or `STOREDIST` destination (the
    /// last one given, as the command takes it), `SORT`'s `STORE`
    /// destination, and the first half of the arguments after `XREAD`'s
    /// and `XREADGROUP`'s `STREAMS`. ACLs,
    /// `EXEC`'s locks and `COMMAND GETKEYS` count them with the declared
    /// keys.
    pub fn keyword_keys(&self, args: &crate::args::Args<'_>) -> KeywordKeys {
        match self.name {
            "georadius" => store_key(args, 6),
            "georadiusbymember" => store_key(args, 5),
            "sort" => sort_store_key(args),
            "xread" | "xreadgroup" => streams_keys(args),
            _ => KeywordKeys::default(),
        }
    }

    /// Redis's legacy `(first key, last key, step)` triple, derived from the
    /// range key specifications as Redis derives it (keys found by a count
    /// are left out): `(0, 0, 0)` without such keys.
    pub fn legacy_keys(&self) -> (i32, i32, i32) {
        let mut ranges = self
            .keys
            .iter()
            .filter(|k| !k.keynum && k.search == Search::Index);
        let (Some(first), Some(final_spec)) = (ranges.clone().next(), ranges.next_back()) else {
            return (0, 0, 0);
        };
        let last = if final_spec.last < 0 {
            final_spec.last
        } else {
            final_spec.begin + final_spec.last
        };
        (first.begin, last, first.step)
    }

    /// True when `argc` arguments (name included) satisfy the arity.
    pub fn arity_ok(&self, argc: usize) -> bool {
        let argc = argc as i64;
        let arity = i64::from(self.arity);
        if arity >= 0 {
            argc == arity
        } else {
            argc >= -arity
        }
    }

    /// True for commands allowed before authentication.
    pub fn no_auth(&self) -> bool {
        self.flags.contains(&"no_auth")
    }

    /// True for commands that modify the keyspace.
    pub fn is_write(&self) -> bool {
        self.flags.contains(&"write")
    }

    /// The subcommand spec for `name` (case-insensitive), if any.
    pub fn subcommand(&self, name: &[u8]) -> Option<&'static CommandSpec> {
        self.subcommands.iter().find(|s| {
            s.name
                .split_once('|')
                .is_some_and(|(_, sub)| sub.as_bytes().eq_ignore_ascii_case(name))
        })
    }

    /// The row Redis checks and runs for `args`: a container's subcommand
    /// (`None` when unknown; the container itself without one), or the
    /// command itself.
    pub fn effective(&'static self, args: &crate::args::Args<'_>) -> Option<&'static CommandSpec> {
        match self.subcommands {
            [] => Some(self),
            _ if args.len() < 2 => Some(self),
            _ => self.subcommand(args.get(1)),
        }
    }

    /// `EVAL`, `FCALL` and their forms: commands that run a script.
    pub fn runs_script(&self) -> bool {
        matches!(
            self.command,
            Command::Eval
                | Command::EvalSha
                | Command::EvalRo
                | Command::EvalShaRo
                | Command::FCall
                | Command::FCallRo
        )
    }
}

/// `GEORADIUS`'s `STORE`/`STOREDIST` key: the last one given after the
/// fixed arguments, skipping `COUNT`'s number.
fn store_key(args: &crate::args::Args<'_>, options_from: usize) -> KeywordKeys {
    let mut found = None;
    let mut i = options_from;
    while i + 1 < args.len() {
        let word = args.get(i);
        if word.eq_ignore_ascii_case(b"store") || word.eq_ignore_ascii_case(b"storedist") {
            found = Some(i + 1);
            i += 1;
        } else if word.eq_ignore_ascii_case(b"count") {
            i += 1;
        }
        i += 1;
    }
    KeywordKeys {
        positions: found.into_iter().collect(),
        flags: KEYWORD_KEY_FLAGS,
    }
}

/// `SORT`'s `STORE` destination as Redis's `sortGetKeys` finds it: from
/// argument 2, `LIMIT` skips two arguments, `GET` and `BY` one, and each
/// `STORE` with an argument after it names that argument (the last one
/// wins) without skipping it. Words compare as C strings (up to a NUL).
fn sort_store_key(args: &crate::args::Args<'_>) -> KeywordKeys {
    let is = |word: &[u8], name: &[u8]| {
        let end = word.iter().position(|&b| b == 0).unwrap_or(word.len());
        word[..end].eq_ignore_ascii_case(name)
    };
    let mut found = None;
    let mut i = 2;
    while i < args.len() {
        let word = args.get(i);
        if is(word, b"limit") {
            i += 2;
        } else if is(word, b"store") && i + 1 < args.len() {
            found = Some(i + 1);
        } else if is(word, b"get") || is(word, b"by") {
            i += 1;
        }
        i += 1;
    }
    KeywordKeys {
        positions: found.into_iter().collect(),
        flags: KEYWORD_KEY_FLAGS,
    }
}

/// The keys after `STREAMS` (the first option word so named, options
/// before it skipped with their arguments as `XREAD` parses them): the
/// first half of what follows; none when the halves are unbalanced.
fn streams_keys(args: &crate::args::Args<'_>) -> KeywordKeys {
    let mut i = 1;
    while i < args.len() {
        let word = args.get(i);
        if word.eq_ignore_ascii_case(b"streams") {
            let rest = args.len() - i - 1;
            let positions = if rest > 0 && rest % 2 == 0 {
                (i + 1..i + 1 + rest / 2).collect()
            } else {
                Vec::new()
            };
            return KeywordKeys {
                positions,
                flags: STREAMS_KEY_FLAGS,
            };
        }
        i += if word.eq_ignore_ascii_case(b"group") {
            3
        } else if word.eq_ignore_ascii_case(b"count") || word.eq_ignore_ascii_case(b"block") {
            2
        } else {
            1
        };
    }
    KeywordKeys::default()
}
