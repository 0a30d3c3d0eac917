//! The dispatcher: one [`Command`] variant per memcached command (or tight
//! family), parsed from the words of a command line.
//!
//! Parsing never touches the keyspace. Each command's own parser lives next
//! to its execution in [`crate::commands`]; this file only routes by name
//! and applies memcached's word-count rules, which decide between `ERROR`
//! and the command's own `CLIENT_ERROR`s.

use crate::codec::Tokens;
use crate::commands::{
    cache_memlimit::CacheMemlimit, delete::Delete, flush_all::FlushAll, get::Retrieve,
    incr::Arithmetic, meta_arithmetic::MetaArithmetic, meta_debug::MetaDebug,
    meta_delete::MetaDelete, meta_get::MetaGet, meta_set::MetaSet, stats::Stats, storage::Storage,
    touch::Touch, verbosity::Verbosity,
};
use crate::reply::Error;
pub use crate::syntax::{noreply_maybe, valid_key, ParseError, KEY_MAX};

/// A parsed request.
#[derive(Debug)]
pub enum Command<'a> {
    /// `get`, `gets`, `gat`, `gats`.
    Retrieve(Retrieve<'a>),
    /// `set`, `add`, `replace`, `append`, `prepend`, `cas` (a data block follows).
    Store(Storage<'a>),
    /// `delete`.
    Delete(Delete<'a>),
    /// `incr`, `decr`.
    Arithmetic(Arithmetic<'a>),
    /// `touch`.
    Touch(Touch<'a>),
    /// `flush_all`.
    FlushAll(FlushAll),
    /// `version`.
    Version,
    /// `verbosity`.
    Verbosity(Verbosity),
    /// `cache_memlimit`.
    CacheMemlimit(CacheMemlimit),
    /// `quit`: close the connection.
    Quit,
    /// `stats` and its subcommands.
    Stats(Stats),
    /// `mg`.
    MetaGet(MetaGet<'a>),
    /// `ms` (a data block follows).
    MetaSet(MetaSet<'a>),
    /// `md`.
    MetaDelete(MetaDelete<'a>),
    /// `ma`.
    MetaArithmetic(MetaArithmetic<'a>),
    /// `mn`.
    MetaNoop,
    /// `me`.
    MetaDebug(MetaDebug),
}

impl<'a> Command<'a> {
    /// Parses a command line.
    pub fn parse(line: &'a [u8]) -> Result<Self, ParseError> {
        let tokens = Tokens::split(line);
        let words = tokens.len();
        let name = tokens.get(0);
        let count = |min: usize, max: usize| -> Result<(), ParseError> {
            if (min..=max).contains(&words) {
                Ok(())
            } else {
                Err(Error::UnknownCommand.into())
            }
        };
        let cmd = match name {
            b"get" | b"gets" | b"gat" | b"gats" => {
                count(2, usize::MAX)?;
                Command::Retrieve(Retrieve::parse(tokens)?)
            }
            b"set" | b"add" | b"replace" | b"append" | b"prepend" => {
                count(5, 6)?;
                Command::Store(Storage::parse(tokens)?)
            }
            b"cas" => {
                count(6, 7)?;
                Command::Store(Storage::parse(tokens)?)
            }
            b"delete" => {
                count(2, 4)?;
                Command::Delete(Delete::parse(&tokens)?)
            }
            b"incr" | b"decr" => {
                count(3, 4)?;
                Command::Arithmetic(Arithmetic::parse(&tokens)?)
            }
            b"touch" => {
                count(3, 4)?;
                Command::Touch(Touch::parse(&tokens)?)
            }
            b"flush_all" => {
                count(1, 3)?;
                Command::FlushAll(FlushAll::parse(&tokens)?)
            }
            b"version" => Command::Version,
            b"verbosity" => {
                count(2, 3)?;
                Command::Verbosity(Verbosity::parse(&tokens)?)
            }
            b"cache_memlimit" => {
                count(2, 3)?;
                Command::CacheMemlimit(CacheMemlimit::parse(&tokens)?)
            }
            b"quit" => Command::Quit,
            b"stats" => Command::Stats(Stats::parse(&tokens)?),
            b"mn" => Command::MetaNoop,
            b"me" => Command::MetaDebug(MetaDebug::parse(&tokens)?),
            b"mg" | b"ms" | b"md" | b"ma" => {
                // Without a key memcached does not recognise the command.
                count(2, usize::MAX)?;
                match name {
                    b"mg" => Command::MetaGet(MetaGet::parse(&tokens)?),
                    b"ms" => Command::MetaSet(MetaSet::parse(&tokens)?),
                    b"md" => Command::MetaDelete(MetaDelete::parse(&tokens)?),
                    _ => Command::MetaArithmetic(MetaArithmetic::parse(&tokens)?),
                }
            }
            _ => return Err(Error::UnknownCommand.into()),
        };
        Ok(cmd)
    }

    /// Length of the data block that follows the line, for commands that
    /// carry one.
    pub fn data_len(&self) -> Option<usize> {
        match self {
            Command::Store(s) => Some(s.len),
            Command::MetaSet(s) => Some(s.len),
            _ => None,
        }
    }

    /// Short name for the client registry (`CLIENT LIST`-style reporting).
    pub fn name(&self) -> &'static str {
        match self {
            Command::Retrieve(r) => r.name(),
            Command::Store(s) => s.name(),
            Command::Delete(_) => "delete",
            Command::Arithmetic(a) => a.name(),
            Command::Touch(_) => "touch",
            Command::FlushAll(_) => "flush_all",
            Command::Version => "version",
            Command::Verbosity(_) => "verbosity",
            Command::CacheMemlimit(_) => "cache_memlimit",
            Command::Quit => "quit",
            Command::Stats(_) => "stats",
            Command::MetaGet(_) => "mg",
            Command::MetaSet(_) => "ms",
            Command::MetaDelete(_) => "md",
            Command::MetaArithmetic(_) => "ma",
            Command::MetaNoop => "mn",
            Command::MetaDebug(_) => "me",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(line: &str) -> ParseError {
        match Command::parse(line.as_bytes()) {
            Err(e) => e,
            Ok(cmd) => panic!("{line:?} parsed as {cmd:?}"),
        }
    }

    #[test]
    fn unknown_and_miscounted_commands_are_error() {
        for line in [
            "",
            "\r",
            "foo",
            "SET k 0 0 1",
            "get",
            "gets",
            "gat",
            "set",
            "set k 0 0",
            "set k 0 0 1 noreply extra",
            "cas k 0 0 1",
            "delete",
            "delete k 0 noreply x",
            "incr",
            "incr k",
            "incr k 1 2 3",
            "touch k",
            "flush_all 1 2 3",
            "verbosity",
            "verbosity 1 2 3",
            "mg",
            "ms",
            "md",
            "ma",
            "mx k",
        ] {
            assert_eq!(err(line).error, Error::UnknownCommand, "{line:?}");
        }
    }

    #[test]
    fn known_commands_parse() {
        for line in [
            "get a b c",
            "gets a",
            "gat 10 a",
            "gat 10",
            "gats 0 a b",
            "set k 0 0 1",
            "set k 0 0 1 noreply",
            "cas k 0 0 1 5",
            "delete k",
            "delete k 0",
            "delete k noreply",
            "delete k 0 noreply",
            "incr k 1",
            "decr k 1 noreply",
            "touch k 10",
            "flush_all",
            "flush_all 10 noreply",
            "version",
            "version extra words",
            "verbosity 1",
            "quit",
            "quit now",
            "stats",
            "stats settings",
            "mn",
            "mn x y",
            "mg k v",
            "ms k 1 T0",
            "md k q",
            "ma k D5",
            "me k",
        ] {
            assert!(Command::parse(line.as_bytes()).is_ok(), "{line:?}");
        }
    }

    #[test]
    fn data_lengths() {
        let cmd = Command::parse(b"set k 0 0 12").unwrap();
        assert_eq!(cmd.data_len(), Some(12));
        let cmd = Command::parse(b"ms k 7").unwrap();
        assert_eq!(cmd.data_len(), Some(7));
        assert_eq!(Command::parse(b"get k").unwrap().data_len(), None);
    }
}
