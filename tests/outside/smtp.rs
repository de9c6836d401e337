//! The SMTP client against a real SMTP server on loopback (`tests/smtp/server.py`, aiosmtpd).
//!
//! [`start`] starts one server per test on a port the system chooses; dropping the
//! [`SmtpServer`] kills it and removes its folder, also when the test fails. The tests
//! that need it declare [`Need::Smtp`]: without python3, aiosmtpd and openssl they show
//! as ignored (and fail under CI, where `.ci/smtp-setup` installs them).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::{Need, Test};
use pbem::mail::{
    Mailbox, Outgoing, Password, Security, SendError, SmtpSettings, check, compose, parse_mail,
    send,
};

pub fn tests() -> Vec<Test> {
    let mut tests = crate::tests![&[Need::Smtp];
        a_composed_mail_goes_through_starttls_with_login_and_reads_back,
        implicit_tls_works_too,
        a_refused_login_names_the_user_and_the_reply_but_not_the_password,
        a_server_without_starttls_is_refused_before_the_login,
        an_untrusted_certificate_is_a_tls_error,
        a_connection_dropped_mid_message_is_transient,
        a_rejected_message_carries_the_reply,
        plain_text_goes_to_loopback_only_when_allowed,
    ];
    tests.extend(crate::tests![&[]; nothing_listening_is_a_transient_connect_error, an_unknown_host_is_reported_as_such]);
    tests
}

/// How the test server behaves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// TLS from the first byte instead of STARTTLS.
    pub implicit_tls: bool,
    /// No TLS at all; AUTH in plain text.
    pub plain: bool,
    /// Plain text without STARTTLS offered.
    pub no_starttls: bool,
    /// Every login fails with 535.
    pub refuse_login: bool,
    /// The connection closes after the message data, before the server's 250.
    pub drop_mid_message: bool,
    /// The message is rejected with 554 after its data.
    pub reject_data: bool,
}

/// A running test server. Dropping it stops the server and removes its folder.
pub struct SmtpServer {
    /// The port it listens on, at 127.0.0.1.
    pub port: u16,
    /// The CA certificate (PEM) that signed the server's certificate.
    pub ca_file: PathBuf,
    /// The Maildir accepted messages are delivered to (files in `new/`).
    pub maildir: PathBuf,
    /// The user the server accepts.
    pub user: &'static str,
    /// That user's password.
    pub password: &'static str,
    folder: PathBuf,
    child: Child,
    // Held open: the server stops when its standard input closes.
    _stdin: ChildStdin,
}

/// The environment variable that the configs of [`SmtpServer::config_section`] read the
/// password from.
pub const PASSWORD_VARIABLE: &str = "PBEM_TEST_SMTP_PASSWORD";

impl SmtpServer {
    /// The smtp section of a config file for this server (STARTTLS, its user, the
    /// password from [`PASSWORD_VARIABLE`], its CA file, a short timeout).
    pub fn config_section(&self) -> String {
        format!(
            "smtp:\n  host: 127.0.0.1\n  port: {}\n  security: starttls\n  user: {}\n  password_env: {PASSWORD_VARIABLE}\n  ca_file: {}\n  timeout_seconds: 10\n",
            self.port,
            self.user,
            self.ca_file.display()
        )
    }

    /// Settings that reach this server as `security` with its user and password, the
    /// CA file and a short timeout.
    pub fn settings(&self, security: Security) -> SmtpSettings {
        SmtpSettings {
            host: "127.0.0.1".to_owned(),
            port: self.port,
            security,
            user: Some(self.user.to_owned()),
            password: Some(Password::new(self.password)),
            ca_file: Some(self.ca_file.clone()),
            timeout: Duration::from_secs(10),
            allow_plain: false,
        }
    }

    /// The messages delivered so far, as bytes, in no particular order.
    pub fn delivered(&self) -> Vec<Vec<u8>> {
        let Ok(entries) = std::fs::read_dir(self.maildir.join("new")) else {
            return Vec::new();
        };
        entries
            .map(|entry| std::fs::read(entry.expect("maildir entry").path()).expect("read mail"))
            .collect()
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// The python that has aiosmtpd: `$PBEM_SMTP_PYTHON`, else the venv `.ci/smtp-setup`
/// makes in the target folder, else `python3`.
pub fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("PBEM_SMTP_PYTHON") {
        return PathBuf::from(python);
    }
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../smtp-venv/bin/python3");
    if venv.is_file() {
        return venv;
    }
    PathBuf::from("python3")
}

/// Starts a test server; panics (failing the test) when it does not start, which the
/// harness's probe of [`Need::Smtp`] makes unlikely.
pub fn start(test: &str, options: Options) -> SmtpServer {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "smtp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("create the server's folder");
    let maildir = folder.join("maildir");
    let tls = folder.join("tls");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smtp/server.py");
    let python = python();

    let mut command = Command::new(&python);
    command
        .arg(script)
        .arg("--maildir")
        .arg(&maildir)
        .arg("--tls-dir")
        .arg(&tls)
        .args(["--user", "alice", "--password", "correct horse"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let flags = [
        (options.implicit_tls, "--implicit-tls"),
        (options.plain, "--plain"),
        (options.no_starttls, "--no-starttls"),
        (options.refuse_login, "--refuse-login"),
        (options.drop_mid_message, "--drop-mid-message"),
        (options.reject_data, "--reject-data"),
    ];
    for (on, flag) in flags {
        if on {
            command.arg(flag);
        }
    }

    let fail = |why: String| -> ! {
        let _ = std::fs::remove_dir_all(&folder);
        panic!("{test}: the test SMTP server did not start: {why}");
    };
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => fail(format!("cannot run {}: {error}", python.display())),
    };
    let stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut first = String::new();
    let _ = stdout.read_line(&mut first);
    let port = first
        .trim()
        .strip_prefix("PORT ")
        .and_then(|port| port.parse::<u16>().ok());
    let Some(port) = port else {
        let _ = child.kill();
        let _ = child.wait();
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        let last = stderr.lines().last().unwrap_or("no output").to_owned();
        fail(format!("{}: {last}", python.display()));
    };
    SmtpServer {
        port,
        ca_file: tls.join("ca.pem"),
        maildir,
        user: "alice",
        password: "correct horse",
        folder,
        child,
        _stdin: stdin,
    }
}

/// A port on loopback that nothing listens on (bound, then released).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    listener.local_addr().expect("local address").port()
}

const RECORD: &str = "[Event \"Casual game\"]\n[Site \"?\"]\n[Date \"2026.11.22\"]\n\
[Round \"-\"]\n[White \"Alice\"]\n[Black \"Bob\"]\n[Result \"*\"]\n\
[GameId \"g-20261122-ab12cd\"]\n\n1. e4 e5 2. Nf3 *\n";

/// The error of sending Alice's composed mail to Bob through `server` with STARTTLS,
/// which the test expects to fail.
fn refused_send(server: &SmtpServer) -> SendError {
    let settings = server.settings(Security::StartTls);
    send(
        &settings,
        "alice@example.org",
        &["bob@example.org"],
        &composed(),
    )
    .unwrap_err()
}

fn composed() -> Vec<u8> {
    let alice = Mailbox {
        name: "Alice".to_owned(),
        address: "alice@example.org".to_owned(),
    };
    let bob = Mailbox {
        name: "Bob".to_owned(),
        address: "bob@example.org".to_owned(),
    };
    compose(&Outgoing {
        game_id: "g-20261122-ab12cd",
        from: &alice,
        to: &bob,
        ply: 3,
        last_turn: Some("2. Nf3"),
        variant: "chess",
        diagram: "(diagram)",
        position: "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        record: RECORD,
        secret: Some(b"shared secret"),
        date: chrono::DateTime::from_timestamp(1_795_000_000, 0).unwrap(),
        note: None,
        answer: None,
    })
    .expect("compose")
}

/// Every error message must leave the password out.
fn assert_no_password(error: &SendError, password: &str) {
    let text = format!("{error} {error:?}");
    assert!(!text.contains(password), "the password leaks: {text}");
}

fn a_composed_mail_goes_through_starttls_with_login_and_reads_back() {
    let server = start("smtp starttls", Options::default());
    let settings = server.settings(Security::StartTls);
    check(&settings).expect("check");
    send(
        &settings,
        "alice@example.org",
        &["bob@example.org"],
        &composed(),
    )
    .expect("send");

    let delivered = server.delivered();
    assert_eq!(delivered.len(), 1);
    let incoming = parse_mail(&delivered[0]).expect("parse the delivered mail");
    assert_eq!(incoming.game_id, "g-20261122-ab12cd");
    assert_eq!(incoming.record, RECORD);
    assert_eq!(incoming.from.as_deref(), Some("alice@example.org"));
    incoming.verify(Some(b"shared secret")).expect("verify");
}

fn implicit_tls_works_too() {
    let server = start(
        "smtp implicit tls",
        Options {
            implicit_tls: true,
            ..Options::default()
        },
    );
    let settings = server.settings(Security::Tls);
    send(
        &settings,
        "alice@example.org",
        &["bob@example.org"],
        &composed(),
    )
    .expect("send");
    assert_eq!(server.delivered().len(), 1);
}

fn nothing_listening_is_a_transient_connect_error() {
    let port = free_port();
    let mut settings = SmtpSettings::new("127.0.0.1", Security::StartTls);
    settings.port = port;
    settings.user = Some("alice".to_owned());
    settings.password = Some(Password::new("correct horse"));
    settings.timeout = Duration::from_secs(5);
    let error = check(&settings).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot connect to 127.0.0.1:{port}: connection refused (nothing listens on that port)"
        )
    );
    assert!(error.is_transient());
    assert_no_password(&error, "correct horse");
}

fn an_unknown_host_is_reported_as_such() {
    let mut settings = SmtpSettings::new("no-such-host.invalid", Security::StartTls);
    settings.timeout = Duration::from_secs(5);
    let error = check(&settings).unwrap_err();
    assert!(
        matches!(&error, SendError::NoSuchHost { server, .. } if server == "no-such-host.invalid:587"),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .starts_with("cannot connect to no-such-host.invalid:587: no such host ("),
        "{error}"
    );
}

fn a_refused_login_names_the_user_and_the_reply_but_not_the_password() {
    let server = start(
        "smtp refused login",
        Options {
            refuse_login: true,
            ..Options::default()
        },
    );
    let error = refused_send(&server);
    match &error {
        SendError::LoginRefused { user, code, .. } => {
            assert_eq!(user, "alice");
            assert_eq!(*code, 535);
        }
        other => panic!("expected a refused login, got {other:?}"),
    }
    assert!(
        error.to_string().starts_with(&format!(
            "the smtp server 127.0.0.1:{} refused the login of user alice: 535 ",
            server.port
        )),
        "{error}"
    );
    assert!(!error.is_transient());
    assert_no_password(&error, server.password);
    assert!(server.delivered().is_empty());
}

fn a_server_without_starttls_is_refused_before_the_login() {
    let server = start(
        "smtp no starttls",
        Options {
            no_starttls: true,
            ..Options::default()
        },
    );
    let error = check(&server.settings(Security::StartTls)).unwrap_err();
    assert_eq!(
        error,
        SendError::StartTlsUnavailable {
            server: format!("127.0.0.1:{}", server.port)
        }
    );
    assert!(!error.is_transient());
    assert_no_password(&error, server.password);
}

fn an_untrusted_certificate_is_a_tls_error() {
    let server = start("smtp untrusted certificate", Options::default());
    let mut settings = server.settings(Security::StartTls);
    settings.ca_file = None;
    let error = check(&settings).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "tls with 127.0.0.1:{} failed: the server's certificate is not trusted: it is signed by an unknown issuer (for a private server, give its ca certificate as ca_file)",
            server.port
        )
    );
    assert!(matches!(error, SendError::Tls { .. }));
    assert_no_password(&error, server.password);
}

fn a_connection_dropped_mid_message_is_transient() {
    let server = start(
        "smtp dropped",
        Options {
            drop_mid_message: true,
            ..Options::default()
        },
    );
    let error = refused_send(&server);
    assert!(
        matches!(&error, SendError::Dropped { step, .. } if step.contains("before the server confirmed it")),
        "{error:?}"
    );
    assert!(error.is_transient());
    assert_no_password(&error, server.password);
    assert!(server.delivered().is_empty());
}

fn a_rejected_message_carries_the_reply() {
    let server = start(
        "smtp rejected",
        Options {
            reject_data: true,
            ..Options::default()
        },
    );
    let error = refused_send(&server);
    assert_eq!(
        error.to_string(),
        format!(
            "the smtp server 127.0.0.1:{} rejected the message: 554 5.6.0 message rejected by the test server",
            server.port
        )
    );
    assert!(!error.is_transient());
}

fn plain_text_goes_to_loopback_only_when_allowed() {
    let server = start(
        "smtp plain",
        Options {
            plain: true,
            ..Options::default()
        },
    );
    let mut settings = server.settings(Security::Plain);
    let error = check(&settings).unwrap_err();
    assert!(matches!(error, SendError::PlainRefused { .. }), "{error:?}");
    assert_no_password(&error, server.password);
    assert!(server.delivered().is_empty());

    settings.allow_plain = true;
    send(
        &settings,
        "alice@example.org",
        &["bob@example.org"],
        &composed(),
    )
    .expect("send");
    assert_eq!(server.delivered().len(), 1);
}
