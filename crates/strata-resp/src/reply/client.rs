//! [`ClientError`]: the refusals of the connection and node commands
//! (`CLIENT`, `CLUSTER` and its connection modes) and of a blocked client
//! ended by `CLIENT UNBLOCK`, Redis 7's texts byte for byte; a variant of
//! the reply table's [`RespError`](crate::reply::RespError). A leaf.

/// Refusals of the connection and node commands, Redis 7's texts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// CLIENT SETNAME with a space or control character.
    #[error("ERR Client names cannot contain spaces, newlines or special characters.")]
    BadClientName,
    /// CLIENT SETINFO value with a space or control character.
    #[error("ERR {0} cannot contain spaces, newlines or special characters.")]
    BadClientInfo(String),
    /// CLIENT SETINFO with an unknown attribute.
    #[error("ERR Unrecognized option '{0}'")]
    UnrecognizedOption(String),
    /// `CLIENT KILL ID` of zero, a negative or a non-number.
    #[error("ERR client-id should be greater than 0")]
    ClientIdNotPositive,
    /// `CLIENT KILL <addr>` (the old form) that matched no client.
    #[error("ERR No such client")]
    NoSuchClient,
    /// `CLIENT KILL USER` of a user that does not exist.
    #[error("ERR No such user '{0}'")]
    NoSuchUserToKill(String),
    /// CLIENT LIST/INFO option not understood.
    #[error("ERR Unknown client type '{0}'")]
    UnknownClientType(String),
    /// A blocked command ended by `CLIENT UNBLOCK id ERROR`.
    #[error("UNBLOCKED client unblocked via CLIENT UNBLOCK")]
    Unblocked,
    /// `CLUSTER`, `READONLY`, `READWRITE`, `ASKING` on a server that is not
    /// a cluster node, as Redis answers them without `cluster-enabled`.
    #[error("ERR This instance has cluster support disabled")]
    ClusterDisabled,
    /// `CLIENT UNBLOCK` with a reason other than `TIMEOUT` or `ERROR`.
    #[error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")]
    UnblockReason,
    /// `CLIENT PAUSE` with a mode other than `WRITE` or `ALL`.
    #[error("ERR CLIENT PAUSE mode must be WRITE or ALL")]
    PauseMode,
}
