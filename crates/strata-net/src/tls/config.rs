//! PEM files to a rustls [`ServerConfig`]: TLS 1.2 and 1.3 with rustls's
//! safe defaults on the ring provider; client certificates checked
//! against the CA file as [`ClientAuth`] says.

use std::path::Path;
use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls::server::{danger::ClientCertVerifier, WebPkiClientVerifier};
use rustls::{RootCertStore, ServerConfig};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use super::files::{ClientAuth, TlsFiles};
use crate::error::TlsError;

/// Builds the configuration `files` describe.
pub fn server_config(files: &TlsFiles) -> Result<Arc<ServerConfig>, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs = certificates("certificate", &files.cert)?;
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| TlsError::File {
        role: "private key",
        path: files.key.clone(),
        message: pem_message(&e),
    })?;
    let verifier = client_verifier(files, &provider)?;
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Rustls(e.to_string()))?
        .with_client_cert_verifier(verifier)
        .with_single_cert(certs, key)
        .map_err(|e| TlsError::Rustls(format!("certificate and key: {e}")))?;
    Ok(Arc::new(config))
}

fn client_verifier(
    files: &TlsFiles,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<dyn ClientCertVerifier>, TlsError> {
    if files.client_auth == ClientAuth::No {
        return Ok(WebPkiClientVerifier::no_client_auth());
    }
    let ca = files.ca.as_deref().ok_or(TlsError::NoCa)?;
    let mut roots = RootCertStore::empty();
    for cert in certificates("CA certificate", ca)? {
        roots.add(cert).map_err(|e| TlsError::File {
            role: "CA certificate",
            path: ca.to_owned(),
            message: e.to_string(),
        })?;
    }
    let builder = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone());
    let builder = match files.client_auth {
        ClientAuth::Optional => builder.allow_unauthenticated(),
        _ => builder,
    };
    builder
        .build()
        .map_err(|e| TlsError::Rustls(format!("client certificate verification: {e}")))
}

/// Every certificate in a PEM file; at least one.
fn certificates(role: &'static str, path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let error = |message: String| TlsError::File {
        role,
        path: path.to_owned(),
        message,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| error(pem_message(&e)))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| error(pem_message(&e)))?;
    if certs.is_empty() {
        return Err(error("no PEM certificate in it".into()));
    }
    Ok(certs)
}

fn pem_message(err: &rustls_pki_types::pem::Error) -> String {
    match err {
        rustls_pki_types::pem::Error::Io(io) => io.to_string(),
        rustls_pki_types::pem::Error::NoItemsFound => "no PEM object of this kind in it".into(),
        other => format!("not valid PEM: {other:?}"),
    }
}
