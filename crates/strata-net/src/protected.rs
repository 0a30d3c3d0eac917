//! Protected mode, as Redis has it: a port that asks no authentication
//! serves only clients on the loopback interface unless protected mode is
//! switched off. Bound to 127.0.0.1 nothing else can reach the port
//! anyway; bound to another address (`0.0.0.0`, a public interface),
//! protected mode is what keeps a server started without a password from
//! being open to the network.
//!
//! Whether a port asks authentication is the server's to say, per port and
//! per connection (a password may be set at run time): [`Authentication`].

use std::net::IpAddr;
use std::sync::Arc;

/// Whether protected mode is on (Redis's `protected-mode yes|no`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtectedMode {
    /// Non-loopback clients are refused on ports without authentication.
    #[default]
    On,
    /// Every client is served.
    Off,
}

/// Whether a port makes its clients authenticate before anything else.
/// Asked for every new connection, so a password set at run time counts.
pub trait Authentication: Send + Sync + 'static {
    /// True when every client of the port must authenticate.
    fn required(&self) -> bool;
}

impl<F> Authentication for F
where
    F: Fn() -> bool + Send + Sync + 'static,
{
    fn required(&self) -> bool {
        self()
    }
}

/// Protected mode for one port: the mode and the port's authentication.
#[derive(Clone)]
pub struct Protection {
    mode: ProtectedMode,
    authentication: Arc<dyn Authentication>,
}

impl std::fmt::Debug for Protection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Protection")
            .field("mode", &self.mode)
            .field("authentication_required", &self.authentication.required())
            .finish()
    }
}

impl Protection {
    /// Protected mode `mode` on a port whose authentication `authentication` reports.
    pub fn new(mode: ProtectedMode, authentication: Arc<dyn Authentication>) -> Self {
        Self {
            mode,
            authentication,
        }
    }

    /// No protection: every client is served (protected mode off).
    pub fn off() -> Self {
        Self::new(ProtectedMode::Off, Arc::new(|| false))
    }

    /// The mode.
    pub fn mode(&self) -> ProtectedMode {
        self.mode
    }

    /// True when the port asks authentication now.
    pub fn authentication_required(&self) -> bool {
        self.authentication.required()
    }

    /// True when a client at `peer` must be refused now.
    pub fn refuses(&self, peer: IpAddr) -> bool {
        self.mode == ProtectedMode::On && !is_loopback(peer) && !self.authentication.required()
    }
}

/// True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (`::ffff:127.0.0.1`,
/// what a dual-stack socket reports for an IPv4 loopback client).
pub fn is_loopback(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn loopback_addresses() {
        for text in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            assert!(is_loopback(ip(text)), "{text}");
        }
        for text in [
            "0.0.0.0",
            "::",
            "10.0.0.1",
            "192.0.2.1",
            "::ffff:10.0.0.1",
            "fe80::1",
        ] {
            assert!(!is_loopback(ip(text)), "{text}");
        }
    }

    #[test]
    fn refuses_only_non_loopback_clients_of_ports_without_authentication() {
        let password_set = Arc::new(AtomicBool::new(false));
        let flag = password_set.clone();
        let protection = Protection::new(
            ProtectedMode::On,
            Arc::new(move || flag.load(Ordering::Relaxed)),
        );
        assert!(protection.refuses(ip("192.0.2.1")));
        assert!(protection.refuses(ip("::ffff:192.0.2.1")));
        assert!(!protection.refuses(ip("127.0.0.1")));
        assert!(!protection.refuses(ip("::1")));
        // A password set at run time lets the next clients in.
        password_set.store(true, Ordering::Relaxed);
        assert!(!protection.refuses(ip("192.0.2.1")));

        let off = Protection::new(ProtectedMode::Off, Arc::new(|| false));
        assert!(!off.refuses(ip("192.0.2.1")));
        assert!(!Protection::off().refuses(ip("192.0.2.1")));
    }
}
