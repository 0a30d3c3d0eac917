//! [`TlsError`]: why a TLS configuration could not be built from its
//! files. At start it stops the server; on a reload it is logged and the
//! previous configuration stays in use.

use std::path::PathBuf;

/// A certificate, key or CA file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A file could not be read or holds no usable PEM object of its kind.
    #[error("{role} file {}: {message}", path.display())]
    File {
        /// `certificate`, `private key` or `CA certificate`.
        role: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Client certificates are asked for but no CA file is given to check them.
    #[error("verifying client certificates needs a CA certificate file")]
    NoCa,
    /// rustls refused the certificates or key (e.g. a key that does not
    /// match the certificate, an unsupported key type, an empty CA list).
    #[error("{0}")]
    Rustls(String),
}
