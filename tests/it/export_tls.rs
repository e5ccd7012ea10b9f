//! `restop export --web.config.file` with real tools: certificates made by
//! `openssl`, fetched with `curl` (with and without the CA, with and without a
//! client certificate, with right and wrong passwords), a real Prometheus
//! scraping over TLS with basic auth, and bad files refused with exit status 2
//! naming the file and the field. About 10 s (the Prometheus part most of it).

use crate::support::prometheus::{Killed, free_port, on_path, query, results, wait_for};
use std::fs;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A CA, a server certificate for 127.0.0.1 and localhost, and a client
/// certificate, all P-256, made by openssl in `dir`; `None` without openssl.
pub struct Pki {
    pub dir: PathBuf,
}

impl Pki {
    pub fn make(dir: &Path) -> Option<Pki> {
        on_path("openssl")?;
        let run = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        for ca in ["ca", "other-ca"] {
            let mut args = vec!["req", "-x509"];
            args.extend(ec);
            let (key, crt, subj) = (
                format!("{ca}.key"),
                format!("{ca}.crt"),
                format!("/CN=restop test {ca}"),
            );
            args.extend(["-keyout", &key, "-out", &crt, "-days", "2", "-subj", &subj]);
            args.extend(["-addext", "basicConstraints=critical,CA:TRUE"]);
            args.extend(["-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
            run(&args);
        }
        fs::write(
            dir.join("server.ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n\
             extendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        fs::write(
            dir.join("client.ext"),
            "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n",
        )
        .unwrap();
        for (name, ca) in [("server", "ca"), ("client", "ca"), ("stranger", "other-ca")] {
            let ext = if name == "server" {
                "server.ext"
            } else {
                "client.ext"
            };
            let (key, csr, crt, subj) = (
                format!("{name}.key"),
                format!("{name}.csr"),
                format!("{name}.crt"),
                format!("/CN={name}"),
            );
            let mut args = vec!["req"];
            args.extend(ec);
            args.extend(["-keyout", &key, "-out", &csr, "-subj", &subj]);
            run(&args);
            let (ca_crt, ca_key) = (format!("{ca}.crt"), format!("{ca}.key"));
            run(&[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                &ca_crt,
                "-CAkey",
                &ca_key,
                "-CAcreateserial",
                "-out",
                &crt,
                "-days",
                "2",
                "-extfile",
                ext,
            ]);
        }
        Some(Pki {
            dir: dir.to_path_buf(),
        })
    }

    pub fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
}

/// A bcrypt hash at cost 5: real hashes, cheap enough for a debug build.
pub fn hash(password: &str) -> String {
    bcrypt::hash(password, 5).unwrap()
}

/// `restop export --demo` with a web config, serving on a free port.
struct Exporter {
    port: u16,
    _child: Killed,
}

impl Exporter {
    fn start(dir: &Path, web_config: &str) -> Exporter {
        let file = dir.join(format!("web-{}.yml", free_port()));
        fs::write(&file, web_config).unwrap();
        let port = free_port();
        let child = Command::new(env!("CARGO_BIN_EXE_restop"))
            .args(["export", "--demo", "-d", "1s", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--web.config.file")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the exporter did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        Exporter {
            port,
            _child: Killed(child),
        }
    }

    fn url(&self) -> String {
        format!("https://127.0.0.1:{}/metrics", self.port)
    }
}

/// curl's status code (0 when no HTTP answer) and its output.
fn curl(args: &[&str]) -> (u16, Output) {
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "10", "-o", "/dev/null", "-D", "-"])
        .args(["-w", "\nstatus=%{http_code}\n"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let code = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("status="))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, out)
}

fn setup() -> Option<(tempfile::TempDir, Pki)> {
    if on_path("curl").is_none() || on_path("openssl").is_none() {
        println!("skipped: needs curl and openssl");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::make(dir.path())?;
    Some((dir, pki))
}

#[test]
fn curl_with_the_ca_is_served_and_without_it_refused() {
    let Some((dir, pki)) = setup() else { return };
    let exporter = Exporter::start(
        dir.path(),
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n\
         http_server_config:\n  headers:\n    Strict-Transport-Security: max-age=60\n",
    );
    let (code, out) = curl(&["--cacert", &pki.path("ca.crt"), &exporter.url()]);
    assert_eq!(code, 200, "{out:?}");
    let head = String::from_utf8_lossy(&out.stdout).to_ascii_lowercase();
    assert!(
        head.contains("strict-transport-security: max-age=60"),
        "{head}"
    );

    // Without the CA, curl does not trust the certificate (exit 60).
    let (code, out) = curl(&[&exporter.url()]);
    assert_eq!(code, 0);
    assert_eq!(out.status.code(), Some(60), "{out:?}");
    // Nor with another CA.
    let (code, _) = curl(&["--cacert", &pki.path("other-ca.crt"), &exporter.url()]);
    assert_eq!(code, 0);
    // Plain HTTP gets no metrics.
    let (code, _) = curl(&[&format!("http://127.0.0.1:{}/metrics", exporter.port)]);
    assert_ne!(code, 200);
    // Below TLS 1.2 nothing is spoken.
    let (code, _) = curl(&[
        "--cacert",
        &pki.path("ca.crt"),
        "--tls-max",
        "1.1",
        &exporter.url(),
    ]);
    assert_eq!(code, 0);
    // And the body is restop's metrics.
    let body = Command::new("curl")
        .args(["-sS", "--cacert", &pki.path("ca.crt"), &exporter.url()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&body.stdout).contains("restop_up 1"));
}

#[test]
fn basic_auth_gives_401_to_wrong_passwords_and_200_to_the_right_one() {
    let Some((dir, pki)) = setup() else { return };
    let exporter = Exporter::start(
        dir.path(),
        &format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n\
             basic_auth_users:\n  prometheus: '{}'\n",
            hash("s3cret")
        ),
    );
    let ca = pki.path("ca.crt");
    let url = exporter.url();
    let (code, out) = curl(&["--cacert", &ca, &url]);
    assert_eq!(code, 401);
    let head = String::from_utf8_lossy(&out.stdout);
    assert!(
        head.contains("WWW-Authenticate: Basic realm=\"restop\""),
        "{head}"
    );
    assert_eq!(
        curl(&["--cacert", &ca, "-u", "prometheus:wrong", &url]).0,
        401
    );
    assert_eq!(curl(&["--cacert", &ca, "-u", "nobody:s3cret", &url]).0, 401);
    assert_eq!(
        curl(&["--cacert", &ca, "-u", "prometheus:s3cret", &url]).0,
        200
    );
    // Again (now remembered), and the index page is guarded too.
    assert_eq!(
        curl(&["--cacert", &ca, "-u", "prometheus:s3cret", &url]).0,
        200
    );
    let index = format!("https://127.0.0.1:{}/", exporter.port);
    assert_eq!(curl(&["--cacert", &ca, &index]).0, 401);
}

#[test]
fn mutual_tls_refuses_clients_without_a_certificate_of_the_ca() {
    let Some((dir, pki)) = setup() else { return };
    let exporter = Exporter::start(
        dir.path(),
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
         client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n",
    );
    let ca = pki.path("ca.crt");
    let url = exporter.url();
    let (code, out) = curl(&["--cacert", &ca, &url]);
    assert_eq!(code, 0, "no client certificate: {out:?}");
    let (code, _) = curl(&[
        "--cacert",
        &ca,
        "--cert",
        &pki.path("stranger.crt"),
        "--key",
        &pki.path("stranger.key"),
        &url,
    ]);
    assert_eq!(code, 0, "a certificate of another CA");
    let (code, out) = curl(&[
        "--cacert",
        &ca,
        "--cert",
        &pki.path("client.crt"),
        "--key",
        &pki.path("client.key"),
        &url,
    ]);
    assert_eq!(code, 200, "{out:?}");
}

#[test]
fn bad_web_config_files_exit_2_naming_the_file_and_the_field() {
    let Some((dir, _pki)) = setup() else { return };
    let d = dir.path();
    fs::write(d.join("garbage.crt"), "not a certificate\n").unwrap();
    let cases: [(&str, &str); 6] = [
        ("tls_server_config:\n  cert_fiel: server.crt\n", "cert_fiel"),
        (
            "tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n",
            "tls_server_config.cert_file",
        ),
        (
            "tls_server_config:\n  cert_file: garbage.crt\n  key_file: server.key\n",
            "tls_server_config.cert_file",
        ),
        (
            "tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n",
            "tls_server_config.key_file",
        ),
        (
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
             client_auth_type: RequireAndVerifyClientCert\n",
            "tls_server_config.client_ca_file",
        ),
        (
            "basic_auth_users:\n  prometheus: plaintext\n",
            "basic_auth_users.prometheus",
        ),
    ];
    let run = |file: &Path| {
        Command::new(env!("CARGO_BIN_EXE_restop"))
            .args([
                "export",
                "--demo",
                "--listen",
                "127.0.0.1:0",
                "--web.config.file",
            ])
            .arg(file)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for (i, (text, field)) in cases.iter().enumerate() {
        let file = d.join(format!("bad-{i}.yml"));
        fs::write(&file, text).unwrap();
        let out = run(&file);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(&file.display().to_string()), "{stderr}");
        assert!(stderr.contains(field), "{field}: {stderr}");
    }
    // Not a regular file, and none at all.
    for (file, what) in [
        ("/dev/zero", "character device"),
        ("/nonexistent/web.yml", "No such file"),
    ] {
        let out = run(Path::new(file));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(file) && stderr.contains(what), "{stderr}");
    }
}

#[test]
fn prometheus_scrapes_over_tls_with_basic_auth() {
    let Some(prometheus) = on_path("prometheus") else {
        println!("skipped: prometheus not installed (apt-get install prometheus)");
        return;
    };
    let Some((dir, pki)) = setup() else { return };
    let exporter = Exporter::start(
        dir.path(),
        &format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n\
             basic_auth_users:\n  prometheus: '{}'\n",
            hash("scrape-me")
        ),
    );
    let prom_port = free_port();
    let config = dir.path().join("prometheus.yml");
    fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n\
             scrape_configs:\n  - job_name: restop\n    scheme: https\n    \
             tls_config:\n      ca_file: {}\n    \
             basic_auth:\n      username: prometheus\n      password: scrape-me\n    \
             static_configs:\n      - targets: ['127.0.0.1:{}']\n  \
             - job_name: restop-wrong-password\n    scheme: https\n    \
             tls_config:\n      ca_file: {}\n    \
             basic_auth:\n      username: prometheus\n      password: guess\n    \
             static_configs:\n      - targets: ['127.0.0.1:{}']\n",
            pki.path("ca.crt"),
            exporter.port,
            pki.path("ca.crt"),
            exporter.port
        ),
    )
    .unwrap();
    let log = dir.path().join("prometheus.log");
    let _prometheus = Killed(
        Command::new(prometheus)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{prom_port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    let up = |job: &str| {
        let answer = query(prom_port, &format!("up{{job=\"{job}\"}}"))?;
        let found = results(&answer)?.first()?.clone();
        found["value"][1].as_str().map(str::to_string)
    };
    let series = wait_for("restop_up over TLS with basic auth", &log, || {
        let answer = query(prom_port, "restop_up{job=\"restop\"}")?;
        results(&answer)?.first().cloned()
    });
    assert_eq!(series["value"][1], "1");
    assert_eq!(up("restop").as_deref(), Some("1"));
    // The scrape with the wrong password fails (401), it does not hang.
    let down = wait_for("the wrong password's scrape", &log, || {
        up("restop-wrong-password")
    });
    assert_eq!(down, "0");
}

#[test]
fn the_helm_charts_web_config_values_mount_the_file_and_switch_the_probes() {
    if on_path("helm").is_none() {
        println!("skipped: helm not installed");
        return;
    }
    let chart = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/helm/restop");
    let out = Command::new("helm")
        .arg("template")
        .arg("restop")
        .arg(&chart)
        .args(["--namespace", "restop"])
        .args(["--set", "webConfig.tlsSecret=restop-tls"])
        .args([
            "--set",
            "webConfig.config.tls_server_config.cert_file=/etc/restop/tls/tls.crt",
        ])
        .args([
            "--set",
            "webConfig.config.tls_server_config.key_file=/etc/restop/tls/tls.key",
        ])
        .args(["--set", "serviceMonitor.enabled=true"])
        .args(["--set", "serviceMonitor.scheme=https"])
        .args(["--set", "serviceMonitor.tlsConfig.serverName=restop"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for expected in [
        "kind: Secret",
        "name: restop-web-config",
        "cert_file: /etc/restop/tls/tls.crt",
        "- --web.config.file=/etc/restop/web/web.yml",
        "mountPath: /etc/restop/web",
        "mountPath: /etc/restop/tls",
        "secretName: restop-tls",
        "tcpSocket:",
        "scheme: https",
        "serverName: restop",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
    assert!(
        !text.contains("httpGet:"),
        "HTTP probes behind TLS:\n{text}"
    );
    // The rendered web config is one restop reads.
    let web = text
        .split("web.yml: |\n")
        .nth(1)
        .unwrap()
        .split("\n---")
        .next()
        .unwrap()
        .lines()
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    let config = restop::export::web_config::parse_web_config(&web).unwrap();
    assert!(config.tls.is_some(), "{web}");
}

#[test]
fn the_config_files_web_config_is_relative_to_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("restop.toml"),
        "[export]\nweb_config_file = \"web.yml\"\n",
    )
    .unwrap();
    fs::write(
        d.join("web.yml"),
        "basic_auth_users:\n  prometheus: plaintext\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .arg("--config")
        .arg(d.join("restop.toml"))
        .args(["export", "--demo", "--listen", "127.0.0.1:0"])
        .current_dir("/")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&d.join("web.yml").display().to_string())
            && stderr.contains("basic_auth_users.prometheus"),
        "{stderr}"
    );
}
