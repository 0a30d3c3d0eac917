//! Throwaway certificates for tests (feature `test-certs`, never in the
//! server): a CA made fresh per test run, server certificates for
//! `localhost`, `127.0.0.1`, `::1` and the documentation address
//! `192.0.2.1`, client certificates, the PEM files a server is configured
//! with, and rustls client configurations trusting the test CAs.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose, SanType,
};
use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};

/// A certificate authority made for one test.
pub struct TestCa {
    cert: rcgen::Certificate,
    key: KeyPair,
}

/// A certificate issued by a [`TestCa`], with its key.
#[derive(Clone)]
pub struct Issued {
    /// The certificate, PEM.
    pub cert_pem: String,
    /// Its private key, PEM (PKCS#8).
    pub key_pem: String,
    /// The certificate, DER (what a peer sees).
    pub der: CertificateDer<'static>,
}

impl TestCa {
    /// A new self-signed CA called `name`.
    pub fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("CA key");
        let cert = params.self_signed(&key).expect("CA certificate");
        Self { cert, key }
    }

    /// The CA certificate, PEM.
    pub fn cert_pem(&self) -> String {
        self.cert.pem()
    }

    /// The CA certificate, DER.
    pub fn der(&self) -> CertificateDer<'static> {
        self.cert.der().clone()
    }

    /// A server certificate for the local test addresses.
    pub fn server_cert(&self) -> Issued {
        let mut params =
            CertificateParams::new(vec!["localhost".to_string()]).expect("server params");
        for ip in ["127.0.0.1", "::1", "192.0.2.1"] {
            params
                .subject_alt_names
                .push(SanType::IpAddress(ip.parse::<IpAddr>().unwrap()));
        }
        params
            .distinguished_name
            .push(DnType::CommonName, "strata test server");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        self.issue(params)
    }

    /// A client certificate called `name`.
    pub fn client_cert(&self, name: &str) -> Issued {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("client params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.issue(params)
    }

    fn issue(&self, params: CertificateParams) -> Issued {
        let key = KeyPair::generate().expect("key");
        let cert = params
            .signed_by(&key, &self.cert, &self.key)
            .expect("signed certificate");
        Issued {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            der: cert.der().clone(),
        }
    }

    /// Writes the CA certificate to `dir/<stem>.crt`.
    pub fn write(&self, dir: &Path, stem: &str) -> PathBuf {
        let path = dir.join(format!("{stem}.crt"));
        std::fs::write(&path, self.cert_pem()).expect("write CA certificate");
        path
    }
}

impl Issued {
    /// Writes `dir/<stem>.crt` and `dir/<stem>.key`; returns both paths.
    pub fn write(&self, dir: &Path, stem: &str) -> (PathBuf, PathBuf) {
        let cert = dir.join(format!("{stem}.crt"));
        let key = dir.join(format!("{stem}.key"));
        std::fs::write(&cert, &self.cert_pem).expect("write certificate");
        std::fs::write(&key, &self.key_pem).expect("write key");
        (cert, key)
    }

    fn key_der(&self) -> PrivateKeyDer<'static> {
        use rustls_pki_types::pem::PemObject;
        PrivateKeyDer::from_pem_slice(self.key_pem.as_bytes()).expect("key PEM")
    }
}

/// A rustls client configuration trusting `cas`, presenting `identity`
/// when given.
pub fn client_config(cas: &[&TestCa], identity: Option<&Issued>) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    for ca in cas {
        roots.add(ca.der()).expect("CA certificate");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots);
    let config = match identity {
        Some(id) => builder
            .with_client_auth_cert(vec![id.der.clone()], id.key_der())
            .expect("client identity"),
        None => builder.with_no_client_auth(),
    };
    Arc::new(config)
}

/// The server name tests connect to (`127.0.0.1`, in the certificate).
pub fn server_name() -> ServerName<'static> {
    ServerName::IpAddress("127.0.0.1".parse::<std::net::IpAddr>().unwrap().into())
}
