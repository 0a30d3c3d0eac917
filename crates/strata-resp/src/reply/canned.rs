//! Whole error replies written to a connection outside any command (at
//! accept, or as a request kills its connection), ready to send.

/// The reply sent to a connection refused at `maxclients`.
pub const MAX_CLIENTS_REPLY: &[u8] = b"-ERR max number of clients reached\r\n";

/// Sent before closing a connection whose request made the server fail
/// (a bug, contained to the connection).
pub const INTERNAL_ERROR_REPLY: &[u8] =
    b"-ERR internal error: the server failed on this request and closed the connection\r\n";
/// The reply sent to a client protected mode refuses, Redis's words with
/// the remedies Strata has.
pub const PROTECTED_MODE_REPLY: &[u8] = b"-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Strata you may adopt one of the following solutions: 1) Set up an authentication password for the default user, with 'CONFIG SET requirepass <password>' from the loopback interface (by connecting from the same host the server is running on) or with the 'requirepass' option. 2) If you started the server manually just for testing, restart it with the '--protected-mode no' option, or set 'protected_mode = \"no\"' in its configuration file, making sure the server is not publicly accessible from the internet. 3) Bind the server to the loopback interface only. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n";
