//! The one table mapping every error a command can hit to its wire reply.
//!
//! Texts are Redis 7's, byte for byte, so clients that match on them (and
//! people used to them) see what they expect. Engine errors
//! ([`KvError`]) map here too; nowhere else writes an error text.
//! `client`: the refusals of `CLIENT`, `CLUSTER` and blocked clients;
//! `collection`: the refusals of the collection commands; `values`: those
//! of the bitmap, HyperLogLog and geospatial commands; `sorting`: those of
//! `SORT` and `LCS`; `dump`: those of `DUMP` and `RESTORE`; `canned`:
//! whole replies sent before closing a connection.

mod canned;
mod client;
mod collection;
mod dump;
mod sorting;
mod stream;
mod values;

use strata_kv::KvError;

use crate::codec::ProtocolError;
pub use canned::{INTERNAL_ERROR_REPLY, MAX_CLIENTS_REPLY, PROTECTED_MODE_REPLY};
pub use client::ClientError;
pub use collection::CollectionError;
pub use dump::DumpError;
pub use sorting::SortError;
pub use stream::StreamError;
pub use values::ValueError;

/// Why a command was refused. `Display` gives the full error line without
/// the leading `-` (code first: `ERR ...`, `NOAUTH ...`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RespError {
    /// The command name is not in the command table.
    #[error("ERR unknown command '{name}', with args beginning with: {args}")]
    UnknownCommand {
        /// The name as sent (at most 128 bytes).
        name: String,
        /// The first arguments, each quoted and followed by a space.
        args: String,
    },
    /// A container command (CLIENT, CONFIG, COMMAND) got an unknown subcommand.
    #[error("ERR unknown subcommand '{sub}'. Try {command} HELP.")]
    UnknownSubcommand {
        /// The subcommand as sent.
        sub: String,
        /// The container, upper case.
        command: String,
    },
    /// Wrong argument count for the command (`get`, `client|setname`).
    #[error("ERR wrong number of arguments for '{0}' command")]
    WrongArity(String),
    /// Bad option or option combination.
    #[error("ERR syntax error")]
    Syntax,
    /// `SLOWLOG GET` with a count below -1.
    #[error("ERR count should be greater than or equal to -1")]
    SlowlogCount,
    /// An argument or stored value that must be a 64-bit integer is not.
    #[error("ERR value is not an integer or out of range")]
    NotInteger,
    /// An integer argument outside the 32-bit range a command accepts.
    #[error("ERR value is out of range, value must between -2147483648 and 2147483647")]
    NotInt32,
    /// INCR/DECR family overflowed.
    #[error("ERR increment or decrement would overflow")]
    Overflow,
    /// An argument or stored value that must be a float is not.
    #[error("ERR value is not a valid float")]
    NotFloat,
    /// INCRBYFLOAT result is not finite.
    #[error("ERR increment would produce NaN or Infinity")]
    NanOrInfinity,
    /// HINCRBYFLOAT's increment is infinite.
    #[error("ERR value is NaN or Infinity")]
    IncrementNotFinite,
    /// Expire time not positive, or overflowing when made absolute.
    #[error("ERR invalid expire time in '{0}' command")]
    InvalidExpire(&'static str),
    /// EXPIRE with NX together with XX, GT or LT.
    #[error("ERR NX and XX, GT or LT options at the same time are not compatible")]
    ExpireNxConflict,
    /// EXPIRE with both GT and LT.
    #[error("ERR GT and LT options at the same time are not compatible")]
    ExpireGtLtConflict,
    /// EXPIRE with an unknown option.
    #[error("ERR Unsupported option {0}")]
    UnsupportedOption(String),
    /// SETRANGE/GETRANGE offset negative.
    #[error("ERR offset is out of range")]
    OffsetOutOfRange,
    /// A string would exceed `proto-max-bulk-len` (as Redis checks).
    #[error("ERR string exceeds maximum allowed size (proto-max-bulk-len)")]
    StringTooLong,
    /// RENAME of a missing key.
    #[error("ERR no such key")]
    NoSuchKey,
    /// SCAN cursor not a number.
    #[error("ERR invalid cursor")]
    InvalidCursor,
    /// `SWAPDB` with an index that is not a 32-bit integer (`first` or
    /// `second`).
    #[error("ERR invalid {0} DB index")]
    InvalidDbIndex(&'static str),
    /// SELECT of a database other than 0.
    #[error("ERR DB index is out of range")]
    DbIndexOutOfRange,
    /// A RESP2 connection in subscribed mode ran another command.
    #[error("ERR Can't execute '{0}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")]
    SubscribedMode(String),
    /// A script failed, or `EVAL`/`SCRIPT` refused it: the full line.
    #[error("{0}")]
    Script(String),
    /// A script failed re-raising the error of a command it ran, counted
    /// in the error statistics when that command failed (Redis's
    /// `ignore_error_stats_update`): the full line, not counted again.
    #[error("{0}")]
    ScriptCounted(String),
    /// `EVALSHA` of a script not cached.
    #[error("NOSCRIPT No matching script. Please use EVAL.")]
    NoScript,
    /// `EVAL` with a negative key count.
    #[error("ERR Number of keys can't be negative")]
    NegativeKeys,
    /// `EVAL` with more keys than arguments.
    #[error("ERR Number of keys can't be greater than number of args")]
    TooManyKeys,
    /// Another client's script has run past `busy-reply-threshold`.
    #[error(
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
    )]
    Busy,
    /// `SCRIPT KILL` with no script running.
    #[error("NOTBUSY No scripts in execution right now.")]
    NotBusy,
    /// `SCRIPT KILL` while a function runs.
    #[error(
        "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
    )]
    BusyFunction,
    /// `FUNCTION KILL` or `FUNCTION STATS` while an `EVAL` script runs.
    #[error(
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
    )]
    BusyScript,
    /// `SCRIPT KILL` of a script that wrote.
    #[error("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")]
    Unkillable,
    /// EXEC outside MULTI.
    #[error("ERR EXEC without MULTI")]
    ExecWithoutMulti,
    /// DISCARD outside MULTI.
    #[error("ERR DISCARD without MULTI")]
    DiscardWithoutMulti,
    /// MULTI inside MULTI.
    #[error("ERR MULTI calls can not be nested")]
    NestedMulti,
    /// WATCH inside MULTI.
    #[error("ERR WATCH inside MULTI is not allowed")]
    WatchInsideMulti,
    /// EXEC after a command was refused while queuing.
    #[error("EXECABORT Transaction discarded because of previous errors.")]
    ExecAbort,
    /// The MULTI queue reached its memory bound.
    #[error("ERR MULTI queue is too large (limit {0} bytes)")]
    QueueTooLarge(usize),
    /// WATCH reached its per-connection bound.
    #[error("ERR too many watched keys (limit {0})")]
    TooManyWatchedKeys(usize),
    /// A password is required and the client has not given it.
    #[error("NOAUTH Authentication required.")]
    NoAuth,
    /// HELLO without AUTH from an unauthenticated client.
    #[error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")]
    NoAuthHello,
    /// Wrong user or password.
    #[error("WRONGPASS invalid username-password pair or user is disabled.")]
    WrongPass,
    /// An ACL user may not run this command (Redis 7.2's text).
    #[error("NOPERM User {user} has no permissions to run the '{command}' command")]
    NoPermCommand {
        /// The user.
        user: String,
        /// The command's full name (`config|set`).
        command: String,
    },
    /// An ACL user may not touch one of the command's keys.
    #[error("NOPERM No permissions to access a key")]
    NoPermKey,
    /// `ACL SETUSER` with a rule that does not apply.
    #[error("ERR {0}")]
    AclRule(String),
    /// A user name with whitespace or NUL.
    #[error("ERR Usernames can't contain spaces or null characters")]
    BadUsername,
    /// `ACL DELUSER default`.
    #[error("ERR The 'default' user cannot be removed")]
    DeleteDefaultUser,
    /// `ACL LOAD`/`ACL SAVE` without `aclfile`.
    #[error("ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")]
    NoAclFile,
    /// `ACL LOAD` of a file with errors (each naming its line).
    #[error("ERR {0} WARNING: ACL errors detected, no change to the previously active ACL rules was performed")]
    AclLoad(String),
    /// `ACL SAVE` could not write the file (the cause is in the server log).
    #[error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")]
    AclSave,
    /// `ACL CAT` of an unknown category.
    #[error("ERR Unknown category '{0}'")]
    UnknownCategory(String),
    /// `ACL GENPASS` bits out of range.
    #[error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")]
    GenpassBits,
    /// `ACL GENPASS` without a source of randomness.
    #[error("ERR Failed to generate a password: the system's random source is unavailable")]
    NoRandomness,
    /// `ACL DRYRUN` of an unknown user.
    #[error("ERR User '{0}' not found")]
    NoSuchUser(String),
    /// `ACL DRYRUN` of an unknown command.
    #[error("ERR Command '{0}' not found")]
    NoSuchCommand(String),
    /// A subcommand with arguments it does not take (`ACL LOG 1 2`).
    #[error(
        "ERR unknown subcommand or wrong number of arguments for '{sub}'. Try {command} HELP."
    )]
    SubcommandArgs {
        /// The subcommand as sent.
        sub: String,
        /// The container, upper case.
        command: String,
    },
    /// `AUTH <password>` while no password is configured.
    #[error("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")]
    AuthNotConfigured,
    /// HELLO with a protocol version other than 2 or 3.
    #[error("NOPROTO unsupported protocol version")]
    NoProto,
    /// HELLO with a non-numeric protocol version.
    #[error("ERR Protocol version is not an integer or out of range")]
    ProtocolVersionNotInteger,
    /// HELLO with an unknown or incomplete option.
    #[error("ERR Syntax error in HELLO option '{0}'")]
    HelloSyntax(String),
    /// CONFIG SET of an unknown parameter.
    #[error("ERR Unknown option or number of arguments for CONFIG SET - '{0}'")]
    ConfigUnknown(String),
    /// CONFIG SET with a bad value.
    #[error("ERR CONFIG SET failed (possibly related to argument '{param}') - {reason}")]
    ConfigSetFailed {
        /// The parameter name.
        param: String,
        /// What is wrong with the value.
        reason: &'static str,
    },
    /// DECRBY of `i64::MIN` (its negation overflows).
    #[error("ERR decrement would overflow")]
    DecrementOverflow,
    /// CLIENT LIST ID with a non-numeric id.
    #[error("ERR Invalid client ID")]
    InvalidClientId,
    /// `LATENCY GRAPH` of an event without samples.
    #[error("ERR No samples available for event '{0}'")]
    NoSamples(String),
    /// A command Redis flags `no_multi` (`SAVE`) inside `MULTI`.
    #[error("ERR Command not allowed inside a transaction")]
    NotInTransaction,
    /// `MONITOR` inside `EXEC`, a client that expects a reply per command.
    #[error("ERR MONITOR isn't allowed for DENY BLOCKING client")]
    MonitorDenied,
    /// A monitoring connection ran a command on the keyspace.
    #[error("ERR Replica can't interact with the keyspace")]
    MonitorKeyspace,
    /// A checkpoint request failed (the cause is the persistence layer's).
    #[error("ERR {0}")]
    Persistence(String),
    /// `SHUTDOWN SAVE` whose checkpoint failed, without `FORCE`.
    #[error("ERR Errors trying to SHUTDOWN. Check logs.")]
    ShutdownFailed,
    /// `SHUTDOWN ABORT`: Strata never waits before stopping (no replicas).
    #[error("ERR No shutdown in progress.")]
    NoShutdownInProgress,
    /// CONFIG REWRITE: there is no config file to rewrite.
    #[error("ERR The server is running without a config file")]
    NoConfigFile,
    /// COPY onto itself.
    #[error("ERR source and destination objects are the same")]
    SameObject,
    /// The key holds a value of another type than the command works on.
    #[error("WRONGTYPE Operation against a key holding the wrong kind of value")]
    WrongType,
    /// A collection command's own refusal (see [`CollectionError`]).
    #[error("{0}")]
    Collection(CollectionError),
    /// A stream command's own refusal (see [`StreamError`]).
    #[error("{0}")]
    Stream(StreamError),
    /// A bitmap, HyperLogLog or geospatial command's own refusal (see
    /// [`ValueError`]).
    #[error("{0}")]
    Value(ValueError),
    /// A connection or node command's own refusal (see [`ClientError`]).
    #[error("{0}")]
    Client(ClientError),
    /// A `SORT` or `LCS` refusal (see [`SortError`]).
    #[error("{0}")]
    Sort(SortError),
    /// A `DUMP` or `RESTORE` refusal (see [`DumpError`]).
    #[error("{0}")]
    Dump(DumpError),
    /// A malformed request (the connection is closed after the reply).
    #[error("ERR Protocol error: {0}")]
    Protocol(ProtocolError),
    /// The engine refused the operation.
    #[error("{}", engine_text(.0))]
    Engine(KvError),
}

/// `From` for each family of refusals wrapped by a variant.
macro_rules! wrap {
    ($($family:ty => $variant:ident),* $(,)?) => {$(
        impl From<$family> for RespError {
            fn from(err: $family) -> Self {
                RespError::$variant(err)
            }
        }
    )*};
}

wrap! {
    ClientError => Client,
    CollectionError => Collection,
    StreamError => Stream,
    ValueError => Value,
    SortError => Sort,
    DumpError => Dump,
    KvError => Engine,
    ProtocolError => Protocol,
}

fn engine_text(err: &KvError) -> String {
    match err {
        KvError::OutOfMemory => "OOM command not allowed when used memory > 'maxmemory'.".into(),
        KvError::TooLarge { size, limit } => format!(
            "ERR string exceeds maximum allowed size (item of {size} bytes, max item size {limit})"
        ),
        KvError::BadKey { len } => format!("ERR invalid key length {len}"),
        // Redis's reply while its append-only file cannot be written.
        KvError::JournalStalled { cause } => {
            format!("MISCONF Errors writing to the AOF file: {cause}")
        }
        other => format!("ERR {other}"),
    }
}

impl RespError {
    /// The unknown-command error for `name` and its arguments, formatted as
    /// Redis does (each argument quoted, at most about 128 bytes in total).
    pub fn unknown_command<'a>(name: &[u8], args: impl Iterator<Item = &'a [u8]>) -> Self {
        let mut list = String::new();
        for arg in args {
            if list.len() >= 128 {
                break;
            }
            let room = 128 - list.len();
            let arg = String::from_utf8_lossy(&arg[..arg.len().min(room)]);
            list.push('\'');
            list.push_str(&arg);
            list.push_str("' ");
        }
        RespError::UnknownCommand {
            name: lossy_prefix(name, 128),
            args: list,
        }
    }

    /// The unknown-subcommand error for container `command`.
    pub fn unknown_subcommand(command: &str, sub: &[u8]) -> Self {
        RespError::UnknownSubcommand {
            sub: lossy_prefix(sub, 128),
            command: command.to_ascii_uppercase(),
        }
    }
}

/// At most `max` bytes of `bytes` as text.
pub fn lossy_prefix(bytes: &[u8], max: usize) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(max)]).into_owned()
}

#[cfg(test)]
mod tests;
