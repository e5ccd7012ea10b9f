//! The web config's parser: what node_exporter's files hold is read, every
//! refusal names its field.

use super::*;

const HASH: &str = "$2y$10$X0h1gDsPszWURQaxFN.jsOTgNZ9FrvbQVFYFYaDCgRNm6h2yySKGq";

fn field_of(text: &str) -> String {
    match parse_web_config(text) {
        Err(e) => e.field,
        Ok(c) => panic!("accepted: {c:?}"),
    }
}

#[test]
fn node_exporters_example_file_is_read() {
    let text = format!(
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
         client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  \
         min_version: TLS12\n  max_version: TLS13\n  \
         cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n  \
         curve_preferences: [X25519, CurveP256]\n  prefer_server_cipher_suites: true\n\
         http_server_config:\n  http2: true\n  headers:\n    X-Frame-Options: deny\n    \
         Strict-Transport-Security: max-age=31536000\n\
         basic_auth_users:\n  prometheus: '{HASH}'\n"
    );
    let c = parse_web_config(&text).unwrap();
    let tls = c.tls.unwrap();
    assert_eq!(tls.cert_file, PathBuf::from("server.crt"));
    assert_eq!(tls.client_auth, ClientAuth::Require("ca.crt".into()));
    assert_eq!(tls.curves, Some(vec![Curve::X25519, Curve::P256]));
    assert!(tls.prefer_server_order);
    assert_eq!(c.users.len(), 1);
    assert_eq!(c.users[0].cost, 10);
    assert_eq!(c.headers.len(), 2);
}

#[test]
fn an_empty_file_or_section_is_plain_http() {
    assert_eq!(parse_web_config("").unwrap(), WebConfig::default());
    assert_eq!(
        parse_web_config("# nothing\n---\n").unwrap(),
        WebConfig::default()
    );
    assert_eq!(
        parse_web_config("tls_server_config: {}\n").unwrap().tls,
        None
    );
}

#[test]
fn every_refusal_names_its_field() {
    let cases = [
        ("bogus: 1\n", ""),
        ("tls_server_config:\n  cert_fiel: a\n", ""),
        (
            "tls_server_config:\n  key_file: k\n",
            "tls_server_config.cert_file",
        ),
        (
            "tls_server_config:\n  cert_file: c\n",
            "tls_server_config.key_file",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  client_auth_type: Bogus\n",
            "tls_server_config.client_auth_type",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  client_auth_type: RequireAnyClientCert\n",
            "tls_server_config.client_auth_type",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  client_auth_type: RequireAndVerifyClientCert\n",
            "tls_server_config.client_ca_file",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  client_ca_file: ca\n",
            "tls_server_config.client_auth_type",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS14\n",
            "tls_server_config.min_version",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  max_version: TLS11\n",
            "tls_server_config.max_version",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS13\n  max_version: TLS12\n",
            "tls_server_config.max_version",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n",
            "tls_server_config.cipher_suites",
        ),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  curve_preferences: [CurveP521]\n",
            "tls_server_config.curve_preferences",
        ),
        (
            "tls_server_config:\n  cert: abc\n",
            "tls_server_config.cert",
        ),
        (
            "tls_server_config:\n  client_allowed_sans: [a]\n",
            "tls_server_config.client_allowed_sans",
        ),
        (
            "basic_auth_users:\n  alice: plain\n",
            "basic_auth_users.alice",
        ),
        (
            "basic_auth_users:\n  alice: '$2y$31$X0h1gDsPszWURQaxFN.jsOTgNZ9FrvbQVFYFYaDCgRNm6h2yySKGq'\n",
            "basic_auth_users.alice",
        ),
        (
            "http_server_config:\n  headers:\n    Set-Cookie: a\n",
            "http_server_config.headers.Set-Cookie",
        ),
        (
            "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
            "http_server_config.headers.X-Frame-Options",
        ),
    ];
    for (text, field) in cases {
        assert_eq!(field_of(text), field, "{text}");
    }
}

#[test]
fn unknown_fields_are_named_in_the_message() {
    let e = parse_web_config("tls_server_config:\n  cert_fiel: a\n").unwrap_err();
    assert!(e.message.contains("cert_fiel"), "{e}");
    assert!(!e.message.contains('\n'), "{e}");
}

#[test]
fn a_message_never_echoes_a_hash() {
    let e = parse_web_config(&format!("basic_auth_users: [{HASH}\n")).unwrap_err();
    assert!(!e.message.contains("X0h1g"), "{e}");
}
