//! [`Protected`]: Redis's setting for a dangerous command (`enable-debug-
//! command`): refused (the default), allowed, or allowed only from local
//! connections. Fixed at start, as in Redis. A leaf.

use std::net::SocketAddr;

/// Who may run a protected command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protected {
    /// Nobody (`no`).
    #[default]
    No,
    /// Every connection (`yes`).
    Yes,
    /// Connections from a loopback address (`local`).
    Local,
}

impl Protected {
    /// The setting as `CONFIG GET` shows it.
    pub fn name(self) -> &'static str {
        match self {
            Protected::No => "no",
            Protected::Yes => "yes",
            Protected::Local => "local",
        }
    }

    /// Whether a connection from `peer` may run the command.
    pub fn allows(self, peer: SocketAddr) -> bool {
        match self {
            Protected::No => false,
            Protected::Yes => true,
            Protected::Local => peer.ip().is_loopback(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_means_loopback_only() {
        let local: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let local6: SocketAddr = "[::1]:5000".parse().unwrap();
        let remote: SocketAddr = "10.1.2.3:5000".parse().unwrap();
        assert!(Protected::Local.allows(local) && Protected::Local.allows(local6));
        assert!(!Protected::Local.allows(remote));
        assert!(Protected::Yes.allows(remote));
        assert!(!Protected::No.allows(local));
        assert_eq!(Protected::default().name(), "no");
    }
}
