//! The one table from errors to memcached wire replies, plus the small
//! writers every command uses for its success replies.
//!
//! Every refusal a command can produce is an [`Error`]; [`Error::wire`] is
//! the only place its bytes are spelled, with memcached 1.6's exact text
//! (including its inconsistencies, such as the two spellings of "options
//! flags too long").

use bytes::{BufMut, BytesMut};
use strata_kv::KvError;

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Unknown command, or a known one with the wrong number of words.
    #[error("unknown command")]
    UnknownCommand,
    /// A malformed argument or key.
    #[error("bad command line format")]
    BadFormat,
    /// The data block was not followed by `\r\n`.
    #[error("bad data chunk")]
    BadDataChunk,
    /// `delete <key> <something other than 0>`.
    #[error("delete usage")]
    DeleteUsage,
    /// An expiration time that is not a number.
    #[error("invalid exptime argument")]
    InvalidExptime,
    /// An `incr`/`decr` delta that is not an unsigned 64-bit number.
    #[error("invalid numeric delta argument")]
    InvalidDelta,
    /// `incr`/`decr` on a value that is not a number.
    #[error("non-numeric value")]
    NonNumeric,
    /// A command line with no newline within the limit.
    #[error("line too long")]
    LineTooLong,
    /// `stats detail` with a bad argument.
    #[error("stats detail usage")]
    StatsDetailUsage,
    /// `stats cachedump` without its two arguments.
    #[error("bad command line")]
    BadCommandLine,
    /// `stats cachedump` with a class id past memcached's 63.
    #[error("illegal slab id")]
    IllegalSlabId,
    /// A meta flag memcached does not know for this command.
    #[error("invalid meta flag")]
    InvalidFlag,
    /// A meta flag given twice.
    #[error("duplicate meta flag")]
    DuplicateFlag,
    /// `md`/`ma`'s single message for any bad flag.
    #[error("invalid or duplicate meta flag")]
    InvalidOrDuplicateFlag,
    /// A meta flag token that is not a number.
    #[error("bad token")]
    BadToken,
    /// An opaque (`O`) token of 32 bytes or more.
    #[error("opaque token too long")]
    OpaqueTooLong,
    /// A base64 key (`b` flag) that does not decode.
    #[error("error decoding key")]
    KeyDecode,
    /// Too many flags on `mg`.
    #[error("options flags are too long")]
    TooManyGetFlags,
    /// Too many flags on `ms`, `md`, `ma`.
    #[error("options flags too long")]
    TooManyFlags,
    /// An `M` token that is not one character.
    #[error("incorrect length for M token")]
    ModeLength,
    /// An unknown `ms` mode.
    #[error("invalid mode for ms M token")]
    SetMode,
    /// An unknown `ma` mode.
    #[error("invalid mode for ma M token")]
    ArithmeticMode,
    /// A `D` token that is not an unsigned number.
    #[error("invalid numeric delta value")]
    DeltaValue,
    /// A `J` token that is not an unsigned number.
    #[error("invalid numeric initial value")]
    InitialValue,
    /// The item exceeds the maximum item size.
    #[error("object too large for cache")]
    TooLarge,
    /// No memory for the item (store mode, or nothing evictable).
    #[error("out of memory storing object")]
    OutOfMemory,
    /// The command log failed: writes are refused, reads go on.
    #[error("command log failed")]
    NotDurable,
    /// The command log cannot write (a full disk): writes are refused
    /// until it can, reads go on.
    #[error("command log cannot write")]
    LogStalled,
    /// The SSD tier has no room for new records.
    #[error("out of space storing object")]
    StorageFull,
    /// The SSD tier failed (device error or damage).
    #[error("storage error")]
    Storage,
}

impl From<KvError> for Error {
    fn from(err: KvError) -> Self {
        match err {
            KvError::TooLarge { .. } => Error::TooLarge,
            KvError::OutOfMemory => Error::OutOfMemory,
            KvError::BadKey { .. } => Error::BadFormat,
            KvError::NotDurable { .. } => Error::NotDurable,
            KvError::JournalStalled { .. } => Error::LogStalled,
            KvError::StorageFull => Error::StorageFull,
            // A deferred read's reply is discarded by the session.
            KvError::Storage { .. } | KvError::NotResident => Error::Storage,
            _ => Error::OutOfMemory,
        }
    }
}

impl Error {
    /// The exact reply line, terminator included.
    pub fn wire(self) -> &'static [u8] {
        match self {
            Error::UnknownCommand => b"ERROR\r\n",
            Error::BadFormat => b"CLIENT_ERROR bad command line format\r\n",
            Error::BadDataChunk => b"CLIENT_ERROR bad data chunk\r\n",
            Error::DeleteUsage => {
                b"CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n"
            }
            Error::InvalidExptime => b"CLIENT_ERROR invalid exptime argument\r\n",
            Error::InvalidDelta => b"CLIENT_ERROR invalid numeric delta argument\r\n",
            Error::NonNumeric => {
                b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n"
            }
            Error::LineTooLong => b"CLIENT_ERROR line too long\r\n",
            Error::StatsDetailUsage => b"CLIENT_ERROR usage: stats detail on|off|dump\r\n",
            Error::BadCommandLine => b"CLIENT_ERROR bad command line\r\n",
            Error::IllegalSlabId => b"CLIENT_ERROR Illegal slab id\r\n",
            Error::InvalidFlag => b"CLIENT_ERROR invalid flag\r\n",
            Error::DuplicateFlag => b"CLIENT_ERROR duplicate flag\r\n",
            Error::InvalidOrDuplicateFlag => b"CLIENT_ERROR invalid or duplicate flag\r\n",
            Error::BadToken => b"CLIENT_ERROR bad token in command line format\r\n",
            Error::OpaqueTooLong => b"CLIENT_ERROR opaque token too long\r\n",
            Error::KeyDecode => b"CLIENT_ERROR error decoding key\r\n",
            Error::TooManyGetFlags => b"CLIENT_ERROR options flags are too long\r\n",
            Error::TooManyFlags => b"CLIENT_ERROR options flags too long\r\n",
            Error::ModeLength => b"CLIENT_ERROR incorrect length for M token\r\n",
            Error::SetMode => b"CLIENT_ERROR invalid mode for ms M token\r\n",
            Error::ArithmeticMode => b"CLIENT_ERROR invalid mode for ma M token\r\n",
            Error::DeltaValue => b"CLIENT_ERROR invalid numeric delta value\r\n",
            Error::InitialValue => b"CLIENT_ERROR invalid numeric initial value\r\n",
            Error::TooLarge => b"SERVER_ERROR object too large for cache\r\n",
            Error::OutOfMemory => b"SERVER_ERROR out of memory storing object\r\n",
            Error::NotDurable => {
                b"SERVER_ERROR write refused: the command log failed (see stats log_error)\r\n"
            }
            Error::LogStalled => {
                b"SERVER_ERROR out of space: the command log cannot write; writes resume once space is freed\r\n"
            }
            Error::StorageFull => b"SERVER_ERROR out of space: the SSD tier is full\r\n",
            Error::Storage => b"SERVER_ERROR storage error: the SSD tier failed (see log)\r\n",
        }
    }
}

/// Appends `err`'s reply unless `noreply` hides it (classic commands hide
/// every reply, errors included, once `noreply` was parsed).
pub fn error(out: &mut BytesMut, err: Error, noreply: bool) {
    if !noreply {
        out.put_slice(err.wire());
    }
}

/// Appends a status line such as `STORED\r\n` unless `noreply`.
pub fn status(out: &mut BytesMut, line: &'static [u8], noreply: bool) {
    if !noreply {
        out.put_slice(line);
    }
}

/// Appends an unsigned number in decimal.
pub fn put_u64(out: &mut BytesMut, n: u64) {
    out.put_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends a signed number in decimal.
pub fn put_i64(out: &mut BytesMut, n: i64) {
    out.put_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// The reply sent to a client protected mode refuses: memcached has no
/// protected mode, so this follows Redis's, as a `SERVER_ERROR` line.
pub const PROTECTED_MODE_REPLY: &[u8] = b"SERVER_ERROR Strata is running in protected mode because protected mode is enabled and no authentication is set up for this memcached port. In this mode connections are only accepted from the loopback interface. To accept clients from other computers, set up authentication for this port, or restart the server with the '--protected-mode no' option, making sure it is not publicly accessible from the internet\r\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reply_is_one_terminated_line() {
        let all = [
            Error::UnknownCommand,
            Error::BadFormat,
            Error::BadDataChunk,
            Error::DeleteUsage,
            Error::InvalidExptime,
            Error::InvalidDelta,
            Error::NonNumeric,
            Error::LineTooLong,
            Error::StatsDetailUsage,
            Error::BadCommandLine,
            Error::IllegalSlabId,
            Error::InvalidFlag,
            Error::DuplicateFlag,
            Error::InvalidOrDuplicateFlag,
            Error::BadToken,
            Error::OpaqueTooLong,
            Error::KeyDecode,
            Error::TooManyGetFlags,
            Error::TooManyFlags,
            Error::ModeLength,
            Error::SetMode,
            Error::ArithmeticMode,
            Error::DeltaValue,
            Error::InitialValue,
            Error::TooLarge,
            Error::OutOfMemory,
        ];
        for e in all {
            let w = e.wire();
            assert!(w.ends_with(b"\r\n"), "{e:?}");
            assert_eq!(w.iter().filter(|&&b| b == b'\n').count(), 1, "{e:?}");
        }
    }

    #[test]
    fn engine_errors_map_to_server_errors() {
        assert_eq!(
            Error::from(KvError::TooLarge { size: 2, limit: 1 }).wire(),
            b"SERVER_ERROR object too large for cache\r\n"
        );
        assert_eq!(
            Error::from(KvError::OutOfMemory).wire(),
            b"SERVER_ERROR out of memory storing object\r\n"
        );
        assert_eq!(Error::from(KvError::BadKey { len: 0 }), Error::BadFormat);
    }

    #[test]
    fn noreply_hides_replies() {
        let mut out = BytesMut::new();
        error(&mut out, Error::BadFormat, true);
        status(&mut out, b"STORED\r\n", true);
        assert!(out.is_empty());
        error(&mut out, Error::BadFormat, false);
        status(&mut out, b"STORED\r\n", false);
        assert_eq!(
            &out[..],
            b"CLIENT_ERROR bad command line format\r\nSTORED\r\n"
        );
    }
}
