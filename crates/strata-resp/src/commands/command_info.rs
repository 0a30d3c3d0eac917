//! `COMMAND`, `COMMAND COUNT|INFO|DOCS|LIST|HELP`: the command table as
//! clients (redis-cli hints, cluster-aware libraries) discover it.

use strata_kv::Store;

use crate::args::Args;
use crate::command::{lookup, resolve_subcommand, CommandSpec, Ctx, KeySpec, Search};
use crate::commands::client::write_help;
use crate::glob;
use crate::key_args::key_args;
use crate::lookup::lookup_full;
use crate::reply::RespError;
use crate::table::COMMANDS;
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "(no subcommand)",
    "    Return details about all commands.",
    "COUNT",
    "    Return the total number of commands in this server.",
    "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
    "    Return a list of all commands in this server.",
    "INFO [<command-name> ...]",
    "    Return details about multiple commands.",
    "    If no command names are given, documentation details for all",
    "    commands are returned.",
    "DOCS [<command-name> ...]",
    "    Return documentation details about multiple commands.",
    "    If no command names are given, documentation details for all",
    "    commands are returned.",
    "GETKEYS <full-command>",
    "    Return the keys from a full Redis command.",
    "GETKEYSANDFLAGS <full-command>",
    "    Return the keys and the access flags from a full Redis command.",
    "HELP",
    "    Print this help.",
];

/// The 10-element `COMMAND INFO` entry of one command.
fn write_entry(out: &mut ReplyWriter<'_>, spec: &CommandSpec) {
    out.array(10);
    out.bulk(spec.name.as_bytes());
    out.integer(i64::from(spec.arity));
    out.set(spec.flags.len());
    for flag in spec.flags {
        out.simple(flag);
    }
    let (first, last, step) = spec.legacy_keys();
    out.integer(i64::from(first));
    out.integer(i64::from(last));
    out.integer(i64::from(step));
    out.set(spec.categories.len());
    for category in spec.categories {
        out.simple(category);
    }
    // Tips and key specs are sets in RESP3, and so is an empty list of
    // subcommands; a command's subcommands are an array (as Redis 7 sends
    // them).
    out.set(spec.tips.len());
    spec.tips.iter().for_each(|tip| out.bulk(tip.as_bytes()));
    out.set(spec.keys.len());
    for key_spec in spec.keys {
        write_key_spec(out, key_spec);
    }
    if spec.subcommands.is_empty() {
        out.set(0);
    } else {
        out.array(spec.subcommands.len());
    }
    for sub in spec.subcommands {
        write_entry(out, sub);
    }
}

/// One key specification as Redis 7 reports it: `begin_search` by
/// index, keyword or unknown, then `find_keys` by range, by a key count
/// or unknown.
fn write_key_spec(out: &mut ReplyWriter<'_>, key_spec: &KeySpec) {
    match key_spec.notes {
        Some(notes) => {
            out.map(4);
            out.bulk(b"notes");
            out.bulk(notes.as_bytes());
        }
        None => out.map(3),
    }
    out.bulk(b"flags");
    out.set(key_spec.flags.len());
    for flag in key_spec.flags {
        out.simple(flag);
    }
    out.bulk(b"begin_search");
    out.map(2);
    out.bulk(b"type");
    let mut limit = 0;
    match key_spec.search {
        Search::Index => {
            out.bulk(b"index");
            out.bulk(b"spec");
            out.map(1);
            out.bulk(b"index");
            out.integer(i64::from(key_spec.begin));
        }
        Search::Keyword {
            keyword,
            startfrom,
            limit: keys_limit,
        } => {
            limit = keys_limit;
            out.bulk(b"keyword");
            out.bulk(b"spec");
            out.map(2);
            out.bulk(b"keyword");
            out.bulk(keyword.as_bytes());
            out.bulk(b"startfrom");
            out.integer(i64::from(startfrom));
        }
        Search::Unknown => {
            out.bulk(b"unknown");
            out.bulk(b"spec");
            out.map(0);
            out.bulk(b"find_keys");
            out.map(2);
            out.bulk(b"type");
            out.bulk(b"unknown");
            out.bulk(b"spec");
            out.map(0);
            return;
        }
    }
    out.bulk(b"find_keys");
    out.map(2);
    out.bulk(b"type");
    if key_spec.keynum {
        out.bulk(b"keynum");
        out.bulk(b"spec");
        out.map(3);
        out.bulk(b"keynumidx");
        out.integer(0);
        out.bulk(b"firstkey");
        out.integer(1);
    } else {
        out.bulk(b"range");
        out.bulk(b"spec");
        out.map(3);
        out.bulk(b"lastkey");
        out.integer(i64::from(key_spec.last));
    }
    out.bulk(b"keystep");
    out.integer(i64::from(key_spec.step));
    if !key_spec.keynum {
        out.bulk(b"limit");
        out.integer(i64::from(limit));
    }
}

fn write_docs(out: &mut ReplyWriter<'_>, spec: &CommandSpec) {
    out.bulk(spec.name.as_bytes());
    let has_subs = !spec.subcommands.is_empty();
    out.map(3 + usize::from(has_subs));
    out.bulk(b"summary");
    out.bulk(spec.summary.as_bytes());
    out.bulk(b"since");
    out.bulk(spec.since.as_bytes());
    out.bulk(b"group");
    out.bulk(spec.group.as_bytes());
    if has_subs {
        out.bulk(b"subcommands");
        out.map(spec.subcommands.len());
        for sub in spec.subcommands {
            write_docs(out, sub);
        }
    }
}

/// `COMMAND [subcommand ...]`.
pub fn command<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if args.len() == 1 {
        out.array(COMMANDS.len());
        COMMANDS.iter().for_each(|spec| write_entry(out, spec));
        return Ok(());
    }
    let sub = resolve_subcommand("command", &args)?;
    let named = || args.iter_from(2);
    match sub.name {
        "command|count" => out.integer(COMMANDS.len() as i64),
        "command|list" => {
            let filter = list_filter(&args)?;
            let names: Vec<&str> = COMMANDS
                .iter()
                .flat_map(|spec| std::iter::once(spec).chain(spec.subcommands))
                .filter(|spec| filter.accepts(spec))
                .map(|spec| spec.name)
                .collect();
            out.array(names.len());
            names.iter().for_each(|name| out.bulk(name.as_bytes()));
        }
        "command|getkeys" | "command|getkeysandflags" => {
            let full = args.tail(2);
            let keys = keys_of(&full)?;
            out.array(keys.len());
            for (key, flags) in keys {
                if sub.name == "command|getkeys" {
                    out.bulk(key);
                } else {
                    out.array(2);
                    out.bulk(key);
                    out.set(flags.len());
                    flags.iter().for_each(|flag| out.simple(flag));
                }
            }
        }
        "command|info" if args.len() == 2 => {
            out.array(COMMANDS.len());
            COMMANDS.iter().for_each(|spec| write_entry(out, spec));
        }
        "command|info" => {
            out.array(args.len() - 2);
            for name in named() {
                match lookup_full(name) {
                    Some(spec) => write_entry(out, spec),
                    None => out.null(),
                }
            }
        }
        "command|docs" => {
            let specs: Vec<&CommandSpec> = if args.len() == 2 {
                COMMANDS.iter().collect()
            } else {
                named().filter_map(lookup_full).collect()
            };
            out.map(specs.len());
            specs.into_iter().for_each(|spec| write_docs(out, spec));
        }
        _ => write_help(out, HELP),
    }
    Ok(())
}

/// A key argument and its key-spec flags.
type KeyAndFlags<'a> = (&'a [u8], &'static [&'static str]);

/// `COMMAND LIST`'s filter.
enum ListFilter<'a> {
    All,
    /// `MODULE name`: Strata loads no modules, so nothing matches.
    Module,
    AclCategory(String),
    Pattern(&'a [u8]),
}

impl ListFilter<'_> {
    fn accepts(&self, spec: &CommandSpec) -> bool {
        match self {
            ListFilter::All => true,
            ListFilter::Module => false,
            ListFilter::AclCategory(cat) => spec.categories.iter().any(|c| c[1..] == **cat),
            ListFilter::Pattern(pattern) => glob::matches_nocase(pattern, spec.name.as_bytes()),
        }
    }
}

fn list_filter<'a>(args: &Args<'a>) -> Result<ListFilter<'a>, RespError> {
    match args.len() {
        2 => Ok(ListFilter::All),
        5 if args.get(2).eq_ignore_ascii_case(b"filterby") => {
            let value = args.get(4);
            match args.get(3).to_ascii_lowercase().as_slice() {
                b"module" => Ok(ListFilter::Module),
                b"aclcat" => Ok(ListFilter::AclCategory(
                    String::from_utf8_lossy(value).to_ascii_lowercase(),
                )),
                b"pattern" => Ok(ListFilter::Pattern(value)),
                _ => Err(RespError::Syntax),
            }
        }
        _ => Err(RespError::Syntax),
    }
}

/// The keys of a full command and their key-spec flags, as `COMMAND
/// GETKEYS` finds them, with Redis's errors in Redis's order: an unknown
/// command, one without key specifications (but shard channels), a wrong
/// arity, then no key
/// found (an empty answer for a command whose keys are optional, `EVAL
/// body 0`).
fn keys_of<'a>(full: &Args<'a>) -> Result<Vec<KeyAndFlags<'a>>, RespError> {
    let spec = lookup(full.get(0))
        .ok_or_else(|| RespError::Script("ERR Invalid command specified".into()))?;
    let spec = spec.effective(full).unwrap_or(spec);
    // Shard channels (`not_key`) are no keys.
    if spec.keys.iter().all(|k| k.not_key()) {
        return Err(RespError::Script(
            "ERR The command has no key arguments".into(),
        ));
    }
    if !spec.arity_ok(full.len()) {
        return Err(RespError::Script(
            "ERR Invalid number of arguments specified for command".into(),
        ));
    }
    let invalid = || RespError::Script("ERR Invalid arguments specified for command".into());
    let keys: Vec<KeyAndFlags<'a>> = key_args(spec, full)
        .ok_or_else(invalid)?
        .into_iter()
        .map(|(i, flags)| (full.get(i), flags))
        .collect();
    if keys.is_empty() && !spec.flags.contains(&"no_mandatory_keys") {
        return Err(invalid());
    }
    Ok(keys)
}
