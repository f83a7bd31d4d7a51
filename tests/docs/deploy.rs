//! docs/DEPLOY.md, tried for real: its systemd units pass `systemd-analyze verify`; its
//! environment file starts a server; Debian's nginx with its site config, a self-signed
//! certificate in place of Let's Encrypt's, serves the service over TLS with the client's
//! address and scheme passed on; its backup unit's command makes a backup.
//!
//! The files are the document's fenced blocks marked `file=NAME`. Only what cannot be the
//! same here is changed (paths, ports, the binary's place). Without systemd-analyze, nginx or
//! openssl the tests say so loudly, and fail when SVC_TEST_REQUIRE_DEPLOY=1 (as CI sets it).

use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{Db, Server};
use crate::web::Browser;

/// The binary built here, in place of /usr/local/bin/svc.
fn bin() -> String {
    assert_cmd::cargo::cargo_bin!("svc").display().to_string()
}

/// The block of docs/DEPLOY.md marked `file=NAME`.
fn file(name: &str) -> String {
    let doc = std::fs::read_to_string(super::path("docs/DEPLOY.md")).unwrap();
    let marker = format!("file={name}");
    let mut lines = doc.lines();
    lines
        .by_ref()
        .find(|l| l.starts_with("```") && l.split_whitespace().any(|w| w == marker))
        .unwrap_or_else(|| panic!("docs/DEPLOY.md has no block marked {marker}"));
    let body: Vec<&str> = lines.take_while(|l| !l.starts_with("```")).collect();
    body.join("\n") + "\n"
}

/// The program `name`, or `None` after saying why the test cannot run (a failure where
/// SVC_TEST_REQUIRE_DEPLOY=1).
fn tool(name: &str, package: &str) -> Option<PathBuf> {
    let found = ["/usr/bin", "/usr/sbin", "/bin", "/sbin"]
        .iter()
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        let why = format!("{name} is not installed (Debian's {package})");
        if std::env::var("SVC_TEST_REQUIRE_DEPLOY").is_ok_and(|v| v == "1") {
            panic!("{why}, and SVC_TEST_REQUIRE_DEPLOY=1 requires it");
        }
        eprintln!("SKIPPED: {why}; the deployment guide is not tried");
    }
    found
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn the_units_pass_systemd_analyze_verify() {
    let Some(analyze) = tool("systemd-analyze", "systemd") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut units = Vec::new();
    for name in ["svc.service", "svc-backup.service", "svc-backup.timer"] {
        // verify checks that ExecStart names an executable: the one built here.
        let text = file(name).replace("/usr/local/bin/svc", &bin());
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        units.push(path);
    }
    let out = Command::new(analyze)
        .arg("verify")
        .arg("--man=no")
        .args(&units)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // verify only warns (exit 0) about a directive it does not know: a warning is a fault.
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| units.iter().any(|u| l.contains(&*u.to_string_lossy())) || l.contains("svc"))
        .collect();
    assert!(out.status.success(), "{stderr}");
    assert!(ours.is_empty(), "systemd-analyze verify: {stderr}");
}

/// `KEY=VALUE` lines of the environment file.
fn settings() -> Vec<(String, String)> {
    file("svc.env")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once('=').expect("KEY=VALUE");
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

#[test]
fn the_settings_the_proxy_and_the_backup_work_as_written() {
    let (Some(nginx), Some(openssl)) = (tool("nginx", "nginx-light"), tool("openssl", "openssl"))
    else {
        return;
    };
    let db = Db::fresh();
    let dir = db.dir.path().to_owned();
    let (http_port, https_port) = (free_port(), free_port());
    let public = format!("https://log.example.org:{https_port}");

    // The secret as the guide makes it.
    let secret = dir.join("secret");
    let made = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "head -c 48 /dev/urandom | base64 > {}",
            secret.display()
        ))
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o640)).unwrap();

    let env: Vec<(String, String)> = settings()
        .into_iter()
        .map(|(k, v)| {
            let v = match k.as_str() {
                "SVC_BIND" | "SVC_METRICS_BIND" => {
                    assert!(v.starts_with("127.0.0.1:"), "{k} stays on loopback: {v}");
                    "127.0.0.1:0".to_owned()
                }
                "SVC_DATABASE_URL" => db.url.clone(),
                "SVC_PUBLIC_URL" => {
                    assert_eq!(v, "https://log.example.org");
                    public.clone()
                }
                "SVC_SECRET_FILE" => secret.display().to_string(),
                _ => v,
            };
            (k, v)
        })
        .collect();
    assert!(
        env.iter()
            .any(|(k, v)| k == "SVC_TRUST_PROXY" && v == "true")
    );
    let server = Server::start_with_env(db, &env);
    let upstream = server.url.strip_prefix("http://").unwrap().to_owned();

    // nginx with the guide's site: its own ports and a self-signed certificate.
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = Command::new(openssl)
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=log.example.org", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(made.success());
    let site = file("svc.nginx")
        .lines()
        // No IPv6 is promised on a test machine.
        .filter(|l| !l.contains("listen [::]"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("listen 80;", &format!("listen 127.0.0.1:{http_port};"))
        .replace(
            "listen 443 ssl http2;",
            &format!("listen 127.0.0.1:{https_port} ssl http2;"),
        )
        .replace(
            "/etc/letsencrypt/live/log.example.org/fullchain.pem",
            &cert.display().to_string(),
        )
        .replace(
            "/etc/letsencrypt/live/log.example.org/privkey.pem",
            &key.display().to_string(),
        )
        .replace("127.0.0.1:8787", &upstream);
    assert!(site.contains(&upstream), "the site proxies to svc:\n{site}");
    let conf = dir.join("nginx.conf");
    let run_as = if unsafe { libc::geteuid() } == 0 {
        "user root;"
    } else {
        ""
    };
    let d = dir.display();
    std::fs::write(
        &conf,
        format!(
            "{run_as}\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/nginx-error.log;\n\
             events {{}}\nhttp {{\n access_log off;\n client_body_temp_path {d}/body;\n \
             proxy_temp_path {d}/proxy;\n fastcgi_temp_path {d}/fastcgi;\n uwsgi_temp_path {d}/uwsgi;\n \
             scgi_temp_path {d}/scgi;\n{site}\n}}\n"
        ),
    )
    .unwrap();
    let check = Command::new(&nginx)
        .arg("-t")
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&conf)
        .output()
        .unwrap();
    assert!(check.status.success(), "nginx -t: {check:?}");
    let proxy = Nginx(
        Command::new(&nginx)
            .args(["-g", "daemon off;", "-p"])
            .arg(&dir)
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let address: SocketAddr = format!("127.0.0.1:{https_port}").parse().unwrap();
    let browser = |from: &str| Browser::over_tls(&public, from, address);
    // nginx is up once it accepts connections.
    for _ in 0..200 {
        if std::net::TcpStream::connect(address).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let health = browser("127.0.0.1").get("/healthz");
    assert_eq!(health.status, 200, "{}", health.body);
    assert!(health.body.contains("\"status\":\"ok\""), "{}", health.body);

    // Plain HTTP is sent to HTTPS.
    let plain = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{redirect_url}",
        ])
        .arg(format!("http://127.0.0.1:{http_port}/keys"))
        .args(["-H", "Host: log.example.org"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&plain.stdout),
        "301 https://log.example.org/keys"
    );

    // Signing up through the proxy: the form's origin is the public address, the session
    // cookie is Secure.
    let owner = browser("127.0.0.1");
    let page = owner.sign_up("W1AW", crate::web::PASSWORD);
    assert_eq!(page.location(), "/keys", "{}", page.body);
    // Over HTTPS the cookie is Secure, and __Host- keeps it to this host.
    let cookie = page.set_cookie("__Host-svc_session").expect("a session");
    assert!(cookie.contains("; Secure"), "{cookie}");
    let (_, key) = owner.generate("shack", "elevated");
    let who = Command::new("curl")
        .args(["-sk", "--resolve"])
        .arg(format!("log.example.org:{https_port}:127.0.0.1"))
        .arg(format!("{public}/v1/whoami"))
        .arg("-H")
        .arg(format!("Authorization: Bearer {key}"))
        .output()
        .unwrap();
    let who: serde_json::Value = serde_json::from_slice(&who.stdout).unwrap();
    assert_eq!(who["callsign"], "W1AW", "{who}");

    // The sign-in limits count the client's address, which nginx passes on, not the proxy's.
    let page = browser("127.0.0.2").sign_in("W1AW", "not the password");
    page.expect(400, "The callsign or the password is wrong.");
    let scopes = crate::common::block_on(async {
        use sqlx::Connection;
        sqlx::any::install_default_drivers();
        let mut conn = sqlx::AnyConnection::connect(&server.db.url).await.unwrap();
        sqlx::query_scalar::<_, String>("SELECT scope FROM signin_attempts ORDER BY scope")
            .fetch_all(&mut conn)
            .await
            .unwrap()
    });
    assert!(
        scopes.iter().any(|s| s == "address:127.0.0.2"),
        "{scopes:?}"
    );
    assert!(
        !scopes.iter().any(|s| s == "address:127.0.0.1"),
        "the proxy's address is nobody's: {scopes:?}"
    );
    drop(proxy);

    // The metrics listener the settings open counted what came through the proxy.
    let line = server.printed().expect("the metrics address");
    let metrics = line
        .trim()
        .strip_prefix("metrics listening on ")
        .unwrap_or_else(|| panic!("{line:?}"));
    let scrape = reqwest::blocking::get(format!("{metrics}/metrics"))
        .unwrap()
        .text()
        .unwrap();
    assert!(
        scrape.contains(r#"svc_http_requests_total{route="/healthz",method="GET",status="200"} 1"#),
        "{scrape}"
    );

    // The backup unit's command, as systemd runs it (its %% and $$ unescaped), while the
    // server runs.
    let unit = file("svc-backup.service");
    let command = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart=/bin/sh -c '"))
        .and_then(|c| c.strip_suffix('\''))
        .expect("the backup's ExecStart");
    let backups = dir.join("state");
    let command = command
        .replace("%%", "%")
        .replace("$$", "$")
        .replace("/usr/local/bin/svc", &bin())
        .replace("/var/lib/svc", &backups.display().to_string());
    let out = Command::new("sh")
        .arg("-c")
        .arg(&command)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    assert!(out.status.success(), "{command}: {out:?}");
    let made: Vec<PathBuf> = std::fs::read_dir(backups.join("backups"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    let name = made[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("svc-")
            && name.ends_with("Z.db")
            && name.len() == "svc-20261125T031700Z.db".len(),
        "{name}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 accounts"),
        "{out:?}"
    );
}

/// Stops nginx when the test ends, however it ends.
struct Nginx(std::process::Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
