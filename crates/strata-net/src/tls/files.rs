//! Where a TLS configuration comes from ([`TlsFiles`]) and whether client
//! certificates are asked for ([`ClientAuth`]). A leaf: the loader
//! (`config.rs`) and the acceptor build on it.

use std::path::PathBuf;

/// Whether clients must present a certificate signed by the CA (Redis's
/// `tls-auth-clients`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// Client certificates are neither asked for nor accepted.
    No,
    /// A client may present one; if it does, it must be valid.
    Optional,
    /// Every client must present a valid certificate.
    Required,
}

/// Where a TLS configuration comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The server's certificate chain (PEM, leaf first).
    pub cert: PathBuf,
    /// The server's private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// CA certificates (PEM) that client certificates must chain to.
    pub ca: Option<PathBuf>,
    /// Whether client certificates are asked for.
    pub client_auth: ClientAuth,
}

impl TlsFiles {
    /// Every file the configuration reads.
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut paths = vec![self.cert.clone(), self.key.clone()];
        paths.extend(self.ca.clone());
        paths
    }
}
