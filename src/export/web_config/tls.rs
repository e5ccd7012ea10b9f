//! `tls_server_config` as a rustls server configuration: the certificate
//! chain and key read from their PEM files, the client CA for mutual TLS, the
//! versions, suites and key-exchange groups asked for. One crypto provider for
//! all of restop: ring, the one `restop fleet`'s HTTP client uses.

use super::{ClientAuth, Curve, TlsSettings, TlsVersion, WebConfigError};
use rustls::RootCertStore;
use rustls::crypto::{CryptoProvider, ring};
use rustls::server::WebPkiClientVerifier;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;
use std::sync::Arc;

const S: &str = "tls_server_config";

fn refuse(field: &str, message: impl Into<String>) -> WebConfigError {
    WebConfigError {
        field: format!("{S}.{field}"),
        message: message.into(),
    }
}

/// Builds the server configuration; refusals name the field and the file.
pub fn server_config(tls: &TlsSettings) -> Result<Arc<rustls::ServerConfig>, WebConfigError> {
    let provider = Arc::new(provider(tls));
    let mut versions: Vec<&'static rustls::SupportedProtocolVersion> = Vec::new();
    if tls.min_version <= TlsVersion::Tls12 && tls.max_version >= TlsVersion::Tls12 {
        versions.push(&rustls::version::TLS12);
    }
    if tls.max_version >= TlsVersion::Tls13 {
        versions.push(&rustls::version::TLS13);
    }
    let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&versions)
        .map_err(|e| refuse("cipher_suites", format!("no usable suite: {e}")))?;
    let builder = match &tls.client_auth {
        ClientAuth::None => builder.with_no_client_auth(),
        ClientAuth::VerifyIfGiven(ca) | ClientAuth::Require(ca) => {
            let roots = Arc::new(client_roots(ca)?);
            let verifier =
                WebPkiClientVerifier::builder_with_provider(roots, Arc::clone(&provider));
            let verifier = if matches!(tls.client_auth, ClientAuth::VerifyIfGiven(_)) {
                verifier.allow_unauthenticated()
            } else {
                verifier
            };
            let verifier = verifier
                .build()
                .map_err(|e| refuse("client_ca_file", format!("{}: {e}", ca.display())))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let chain = certificates(&tls.cert_file, "cert_file")?;
    let key_pem = read_pem(&tls.key_file, "key_file")?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        refuse(
            "key_file",
            format!("{}: {}", tls.key_file.display(), pem_error(&e)),
        )
    })?;
    let mut config = builder.with_single_cert(chain, key).map_err(|e| {
        refuse(
            "key_file",
            format!(
                "{} cannot serve {}: {e}",
                tls.key_file.display(),
                tls.cert_file.display()
            ),
        )
    })?;
    config.ignore_client_order = tls.prefer_server_order;
    // HTTP/1.1 is all the server speaks; a client offering only h2 is told so.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// ring's provider narrowed to the suites and groups the file names.
fn provider(tls: &TlsSettings) -> CryptoProvider {
    let mut provider = ring::default_provider();
    if let Some(names) = &tls.cipher_suites {
        let tls13: Vec<_> = provider
            .cipher_suites
            .iter()
            .filter(|s| s.version() == &rustls::version::TLS13)
            .copied()
            .collect();
        let tls12 = names.iter().filter_map(|name| {
            ring::ALL_CIPHER_SUITES
                .iter()
                .find(|s| s.suite().as_str() == Some(name.as_str()))
                .filter(|s| s.version() == &rustls::version::TLS12)
                .copied()
        });
        provider.cipher_suites = tls13.into_iter().chain(tls12).collect();
    }
    if let Some(curves) = &tls.curves {
        provider.kx_groups = curves
            .iter()
            .map(|c| match c {
                Curve::X25519 => ring::kx_group::X25519,
                Curve::P256 => ring::kx_group::SECP256R1,
                Curve::P384 => ring::kx_group::SECP384R1,
            })
            .collect();
    }
    provider
}

fn certificates(path: &Path, field: &str) -> Result<Vec<CertificateDer<'static>>, WebConfigError> {
    let fail = |message: String| refuse(field, format!("{}: {message}", path.display()));
    let pem = read_pem(path, field)?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(pem_error(&e)))?;
    if chain.is_empty() {
        return Err(fail("no PEM certificate in it".to_string()));
    }
    Ok(chain)
}

fn read_pem(path: &Path, field: &str) -> Result<Vec<u8>, WebConfigError> {
    super::read_bounded(path, super::MAX_PEM_BYTES)
        .map_err(|message| refuse(field, format!("{}: {message}", path.display())))
}

fn client_roots(path: &Path) -> Result<RootCertStore, WebConfigError> {
    let mut roots = RootCertStore::empty();
    for cert in certificates(path, "client_ca_file")? {
        roots.add(cert).map_err(|e| {
            refuse(
                "client_ca_file",
                format!("{}: not a usable CA certificate: {e}", path.display()),
            )
        })?;
    }
    Ok(roots)
}

fn pem_error(e: &rustls_pki_types::pem::Error) -> String {
    match e {
        rustls_pki_types::pem::Error::Io(io) => io.to_string(),
        rustls_pki_types::pem::Error::NoItemsFound => "no PEM item of that kind in it".to_string(),
        rustls_pki_types::pem::Error::Base64Decode(_) => "not valid PEM (bad base64)".to_string(),
        other => format!("not valid PEM: {other}"),
    }
}
