//! Sending mail over SMTP: the only module of the library that does network I/O.
//!
//! The session is driven step by step with lettre's `SmtpConnection` (connect and greet,
//! STARTTLS, login, `MAIL FROM`, `RCPT TO`, `DATA`, the message), rather than through
//! `SmtpTransport::send_raw`, so that each failure says which step failed: a refused
//! login, a refused recipient and a message rejected after `DATA` are different things
//! to tell the user. TLS is rustls (with the Mozilla roots of webpki-roots, plus the
//! certificate of `ca_file` when given); there is no OpenSSL.
//!
//! Errors name the server as `host:port` and the cause; the password never appears in
//! them (a server reply that quotes it would have it replaced by `***`).

use std::error::Error as _;
use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use lettre::Address;
use lettre::transport::smtp::Error as SmtpError;
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{Certificate, SmtpConnection, TlsParameters};
use lettre::transport::smtp::commands::{Data, Mail, Noop, Rcpt};
use lettre::transport::smtp::extension::{ClientId, Extension, MailBodyParameter, MailParameter};
use thiserror::Error;

/// How the connection to the server is protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Security {
    /// Plain connection upgraded with STARTTLS before anything else is sent; refused
    /// when the server does not offer it (usually port 587).
    StartTls,
    /// TLS from the first byte (implicit TLS, usually port 465).
    Tls,
    /// No encryption: only to a loopback host, and only with
    /// [`SmtpSettings::allow_plain`] set.
    Plain,
}

impl Security {
    /// The port usually used with this security: 587, 465 or 25.
    #[must_use]
    pub fn default_port(self) -> u16 {
        match self {
            Security::StartTls => 587,
            Security::Tls => 465,
            Security::Plain => 25,
        }
    }
}

/// A password. It prints as `***` with `{}` and `{:?}`, so it cannot end up in a log or
/// an error message by accident; [`Password::expose`] gives the text to the one place
/// that sends it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// Wraps a password.
    #[must_use]
    pub fn new(password: impl Into<String>) -> Password {
        Password(password.into())
    }

    /// The password itself.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Password {
    fn from(password: String) -> Password {
        Password(password)
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Where and how to send mail.
#[derive(Clone, Debug)]
pub struct SmtpSettings {
    /// The server's host name or IP address; TLS checks the certificate against it.
    pub host: String,
    /// The server's port.
    pub port: u16,
    /// How the connection is protected.
    pub security: Security,
    /// The login name, if the server wants a login.
    pub user: Option<String>,
    /// The login password (needed with `user`).
    pub password: Option<Password>,
    /// An extra root certificate (PEM) to trust, for a private server or the tests.
    pub ca_file: Option<PathBuf>,
    /// How long to wait for the connection and for each reply.
    pub timeout: Duration,
    /// Whether [`Security::Plain`] may be used (to a loopback host only).
    pub allow_plain: bool,
}

impl SmtpSettings {
    /// Settings for a host with the usual port for `security`, no login, no extra
    /// certificate, a 30 second timeout and plain text not allowed.
    #[must_use]
    pub fn new(host: impl Into<String>, security: Security) -> SmtpSettings {
        SmtpSettings {
            host: host.into(),
            port: security.default_port(),
            security,
            user: None,
            password: None,
            ca_file: None,
            timeout: Duration::from_secs(30),
            allow_plain: false,
        }
    }

    /// `host:port`, as errors name the server (`[::1]:25` for an IPv6 address).
    #[must_use]
    pub fn server(&self) -> String {
        super::server_name(&self.host, self.port)
    }
}

/// Why a mail could not be sent (or the server could not be checked).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SendError {
    /// The settings cannot work: a user without a password, an unreadable CA file, an
    /// invalid address.
    #[error("cannot send through {server}: {reason}")]
    Settings {
        /// `host:port`.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// Plain text was asked for where it is not allowed.
    #[error("plain text smtp to {server} refused: {reason}")]
    PlainRefused {
        /// `host:port`.
        server: String,
        /// Why it is not allowed.
        reason: String,
    },
    /// The host name does not resolve.
    #[error("cannot connect to {server}: no such host ({cause})")]
    NoSuchHost {
        /// `host:port`.
        server: String,
        /// The resolver's message.
        cause: String,
    },
    /// The connection could not be made or the server did not greet.
    #[error("cannot connect to {server}: {cause}")]
    Connect {
        /// `host:port`.
        server: String,
        /// Refused, unreachable, ...
        cause: String,
    },
    /// The server did not answer in time.
    #[error("the smtp server {server} did not answer within {seconds} s {step}")]
    Timeout {
        /// `host:port`.
        server: String,
        /// What pbem was doing.
        step: &'static str,
        /// The timeout.
        seconds: u64,
    },
    /// The server does not offer STARTTLS and it is required.
    #[error(
        "the smtp server {server} does not offer STARTTLS; pbem does not send the login or the mail unencrypted (use security tls for port 465)"
    )]
    StartTlsUnavailable {
        /// `host:port`.
        server: String,
    },
    /// TLS failed: the certificate is not trusted, or the handshake failed.
    #[error("tls with {server} failed: {cause}")]
    Tls {
        /// `host:port`.
        server: String,
        /// What rustls found.
        cause: String,
    },
    /// The server offers no login method pbem knows.
    #[error("the smtp server {server} offers no login method pbem knows (PLAIN or LOGIN)")]
    NoLoginMethod {
        /// `host:port`.
        server: String,
    },
    /// The server refused the login.
    #[error("the smtp server {server} refused the login of user {user}: {code} {reply}")]
    LoginRefused {
        /// `host:port`.
        server: String,
        /// The user name.
        user: String,
        /// The reply code, such as 535.
        code: u16,
        /// The reply text.
        reply: String,
    },
    /// The server rejected the sender, a recipient or the message.
    #[error("the smtp server {server} rejected {what}: {code} {reply}")]
    Rejected {
        /// `host:port`.
        server: String,
        /// "the sender <a@b>", "the recipient <c@d>" or "the message".
        what: String,
        /// The reply code.
        code: u16,
        /// The reply text.
        reply: String,
    },
    /// The connection broke before the server confirmed the message.
    #[error("the connection to {server} dropped {step}: {cause}")]
    Dropped {
        /// `host:port`.
        server: String,
        /// What pbem was doing.
        step: &'static str,
        /// What broke.
        cause: String,
    },
    /// The server answered something that is not SMTP, or lettre failed.
    #[error("the smtp server {server} answered unexpectedly {step}: {cause}")]
    Protocol {
        /// `host:port`.
        server: String,
        /// What pbem was doing.
        step: &'static str,
        /// What went wrong.
        cause: String,
    },
}

impl SendError {
    /// Whether sending again later may work: the network, a timeout, a dropped
    /// connection, or a 4xx reply. Otherwise the settings, the credentials or the message
    /// must change first.
    #[must_use]
    pub fn is_transient(&self) -> bool {
        match self {
            SendError::NoSuchHost { .. }
            | SendError::Connect { .. }
            | SendError::Timeout { .. }
            | SendError::Dropped { .. } => true,
            SendError::LoginRefused { code, .. } | SendError::Rejected { code, .. } => {
                (400..500).contains(code)
            }
            SendError::Settings { .. }
            | SendError::PlainRefused { .. }
            | SendError::StartTlsUnavailable { .. }
            | SendError::Tls { .. }
            | SendError::NoLoginMethod { .. }
            | SendError::Protocol { .. } => false,
        }
    }
}

/// Sends one message (RFC 5322 bytes, such as [`super::compose()`] writes) to `to`, with
/// `envelope_from` as the envelope sender.
///
/// # Errors
///
/// See [`SendError`]; [`SendError::is_transient`] tells whether to try again later.
pub fn send(
    settings: &SmtpSettings,
    envelope_from: &str,
    to: &[&str],
    message: &[u8],
) -> Result<(), SendError> {
    let server = settings.server();
    let parse = |address: &str, role: &str| {
        address
            .parse::<Address>()
            .map_err(|error| SendError::Settings {
                server: server.clone(),
                reason: format!("the {role} address {address:?} is invalid: {error}"),
            })
    };
    let sender = parse(envelope_from, "sender")?;
    let recipients = to
        .iter()
        .map(|address| parse(address, "recipient"))
        .collect::<Result<Vec<_>, _>>()?;
    if recipients.is_empty() {
        return Err(SendError::Settings {
            server,
            reason: "the message has no recipient".to_owned(),
        });
    }

    let mut session = Session::open(settings)?;
    let mut parameters = Vec::new();
    if !message.is_ascii() {
        if !session
            .connection
            .server_info()
            .supports_feature(Extension::EightBitMime)
        {
            return Err(SendError::Protocol {
                server,
                step: "before sending",
                cause:
                    "the message is not ASCII and the server does not accept 8-bit mail (8BITMIME)"
                        .to_owned(),
            });
        }
        parameters.push(MailParameter::Body(MailBodyParameter::EightBitMime));
    }
    let what = format!("the sender <{sender}>");
    session.step(Step::Envelope(what), |connection| {
        connection.command(Mail::new(Some(sender.clone()), parameters))
    })?;
    for recipient in recipients {
        let what = format!("the recipient <{recipient}>");
        session.step(Step::Envelope(what), |connection| {
            connection.command(Rcpt::new(recipient.clone(), Vec::new()))
        })?;
    }
    session.step(
        Step::Envelope("the message (DATA)".to_owned()),
        |connection| connection.command(Data),
    )?;
    session.step(Step::Message, |connection| connection.message(message))?;
    // The server has the message now; a failing QUIT changes nothing.
    let _ = session.connection.quit();
    Ok(())
}

/// Connects, sets up TLS and logs in as `settings` say, then says goodbye: whether
/// sending would get as far as the envelope.
///
/// # Errors
///
/// See [`SendError`].
pub fn check(settings: &SmtpSettings) -> Result<(), SendError> {
    let mut session = Session::open(settings)?;
    session.step(Step::Check, |connection| connection.command(Noop))?;
    let _ = session.connection.quit();
    Ok(())
}

/// What the client was doing when an error came, for the error message.
#[derive(Clone, Debug)]
enum Step {
    Connect,
    StartTls,
    Login,
    /// `MAIL FROM`, `RCPT TO` or `DATA`, naming what the server would reject.
    Envelope(String),
    Message,
    Check,
}

impl Step {
    fn describe(&self) -> &'static str {
        match self {
            Step::Connect => "while connecting",
            Step::StartTls => "during STARTTLS",
            Step::Login => "during the login",
            Step::Envelope(_) => "while giving the envelope",
            Step::Message => "while sending the message, before the server confirmed it",
            Step::Check => "while checking the connection",
        }
    }
}

/// A connection that is set up (encrypted as asked, logged in).
struct Session<'a> {
    settings: &'a SmtpSettings,
    connection: SmtpConnection,
}

impl<'a> Session<'a> {
    fn open(settings: &'a SmtpSettings) -> Result<Session<'a>, SendError> {
        let server = settings.server();
        let credentials = match (&settings.user, &settings.password) {
            (Some(user), Some(password)) => {
                Some(Credentials::new(user.clone(), password.expose().to_owned()))
            }
            (None, None) => None,
            (Some(user), None) => {
                return Err(SendError::Settings {
                    server,
                    reason: format!("user {user} is set but no password"),
                });
            }
            (None, Some(_)) => {
                return Err(SendError::Settings {
                    server,
                    reason: "a password is set but no user".to_owned(),
                });
            }
        };
        let addresses = resolve(settings)?;
        if settings.security == Security::Plain {
            plain_allowed(settings, &addresses)?;
        }
        let tls = match settings.security {
            Security::Plain => None,
            Security::StartTls | Security::Tls => Some(tls_parameters(settings)?),
        };
        let hello = ClientId::default();
        let wrapper = match settings.security {
            Security::Tls => tls.as_ref(),
            Security::StartTls | Security::Plain => None,
        };
        let connection = SmtpConnection::connect(
            addresses.as_slice(),
            Some(settings.timeout),
            &hello,
            wrapper,
            None,
        )
        .map_err(|error| classify(settings, &Step::Connect, &error))?;
        let mut session = Session {
            settings,
            connection,
        };
        if settings.security == Security::StartTls {
            if !session.connection.can_starttls() {
                return Err(SendError::StartTlsUnavailable { server });
            }
            let tls = tls.as_ref().expect("tls parameters are built for STARTTLS");
            session
                .connection
                .starttls(tls, &hello)
                .map_err(|error| classify(settings, &Step::StartTls, &error))?;
        }
        if let Some(credentials) = credentials {
            session.step(Step::Login, |connection| {
                connection.auth(&[Mechanism::Plain, Mechanism::Login], &credentials)
            })?;
        }
        Ok(session)
    }

    /// Runs one exchange with the server and turns its failure into a [`SendError`].
    fn step<T>(
        &mut self,
        step: Step,
        exchange: impl FnOnce(&mut SmtpConnection) -> Result<T, SmtpError>,
    ) -> Result<T, SendError> {
        exchange(&mut self.connection).map_err(|error| classify(self.settings, &step, &error))
    }
}

fn resolve(settings: &SmtpSettings) -> Result<Vec<SocketAddr>, SendError> {
    let server = settings.server();
    match (settings.host.as_str(), settings.port).to_socket_addrs() {
        Ok(addresses) => {
            let addresses: Vec<SocketAddr> = addresses.collect();
            if addresses.is_empty() {
                Err(SendError::NoSuchHost {
                    server,
                    cause: "the name has no address".to_owned(),
                })
            } else {
                Ok(addresses)
            }
        }
        Err(error) => Err(SendError::NoSuchHost {
            server,
            cause: error.to_string(),
        }),
    }
}

/// Plain text only when asked for, and only to a host that is loopback by its name and
/// by every address it resolves to.
fn plain_allowed(settings: &SmtpSettings, addresses: &[SocketAddr]) -> Result<(), SendError> {
    let server = settings.server();
    if !settings.allow_plain {
        return Err(SendError::PlainRefused {
            server,
            reason: "unencrypted smtp must be allowed explicitly (allow_plain), and only to a loopback host".to_owned(),
        });
    }
    let host = settings.host.trim_start_matches('[').trim_end_matches(']');
    let loopback_name = host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !loopback_name || !addresses.iter().all(|address| address.ip().is_loopback()) {
        return Err(SendError::PlainRefused {
            server,
            reason: format!(
                "{} is not a loopback host (127.0.0.0/8, ::1, localhost); mail and password would cross the network unencrypted",
                settings.host
            ),
        });
    }
    Ok(())
}

fn tls_parameters(settings: &SmtpSettings) -> Result<TlsParameters, SendError> {
    let server = settings.server();
    let mut builder = TlsParameters::builder(settings.host.clone());
    if let Some(path) = &settings.ca_file {
        let pem = std::fs::read(path).map_err(|error| SendError::Settings {
            server: server.clone(),
            reason: format!("cannot read the ca file {}: {error}", path.display()),
        })?;
        let certificate = Certificate::from_pem(&pem).map_err(|error| SendError::Settings {
            server: server.clone(),
            reason: format!(
                "the ca file {} holds no pem certificate: {}",
                path.display(),
                source_text(&error)
            ),
        })?;
        builder = builder.add_root_certificate(certificate);
    }
    builder.build_rustls().map_err(|error| SendError::Tls {
        server,
        cause: source_text(&error),
    })
}

/// Turns lettre's error at `step` into a [`SendError`].
fn classify(settings: &SmtpSettings, step: &Step, error: &SmtpError) -> SendError {
    let server = settings.server();
    let scrub = |text: String| scrub(settings, text);
    if let Some(tls) = rustls_error(error) {
        return SendError::Tls {
            server,
            cause: scrub(describe_tls(&settings.host, tls)),
        };
    }
    if let Some(code) = error.status() {
        let code = code_number(code);
        let reply = scrub(source_text(error));
        return match step {
            Step::Login => SendError::LoginRefused {
                server,
                user: settings.user.clone().unwrap_or_default(),
                code,
                reply,
            },
            Step::Envelope(what) => SendError::Rejected {
                server,
                what: what.clone(),
                code,
                reply,
            },
            Step::Message => SendError::Rejected {
                server,
                what: "the message".to_owned(),
                code,
                reply,
            },
            Step::Connect | Step::StartTls | Step::Check => SendError::Connect {
                server,
                cause: format!("the server refused the session: {code} {reply}"),
            },
        };
    }
    if let Some(io) = io_error(error) {
        if matches!(
            io.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        ) {
            return SendError::Timeout {
                server,
                step: step.describe(),
                seconds: settings.timeout.as_secs().max(1),
            };
        }
        if let Step::Connect = step {
            let cause = match io.kind() {
                io::ErrorKind::ConnectionRefused => {
                    "connection refused (nothing listens on that port)".to_owned()
                }
                _ => io.to_string(),
            };
            return SendError::Connect {
                server,
                cause: scrub(cause),
            };
        }
        return SendError::Dropped {
            server,
            step: step.describe(),
            cause: scrub(io.to_string()),
        };
    }
    let cause = scrub(source_text(error));
    if matches!(step, Step::Login) && cause.contains("No compatible authentication mechanism") {
        return SendError::NoLoginMethod { server };
    }
    if error.is_response() && cause.contains("incomplete response") {
        // The server closed the connection instead of answering.
        return match step {
            Step::Connect => SendError::Connect {
                server,
                cause: "the server closed the connection without greeting".to_owned(),
            },
            _ => SendError::Dropped {
                server,
                step: step.describe(),
                cause: "the server closed the connection".to_owned(),
            },
        };
    }
    SendError::Protocol {
        server,
        step: step.describe(),
        cause,
    }
}

/// The reply code as a number (lettre's `Code` prints as three digits).
fn code_number(code: lettre::transport::smtp::response::Code) -> u16 {
    code.to_string().parse().unwrap_or(0)
}

/// The text of lettre's error without its own kind prefix: the reply, or the cause.
fn source_text(error: &SmtpError) -> String {
    match error.source() {
        Some(source) => source.to_string().trim().to_owned(),
        None => error.to_string(),
    }
}

/// The first I/O error in the error's chain.
fn io_error(error: &SmtpError) -> Option<&io::Error> {
    let mut source = error.source();
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<io::Error>() {
            return Some(io);
        }
        source = current.source();
    }
    None
}

/// The rustls error in the chain, directly or inside an I/O error (rustls reports a
/// failed handshake as an I/O error of kind `InvalidData` on the next read or write).
fn rustls_error(error: &SmtpError) -> Option<&rustls::Error> {
    let mut source = error.source();
    while let Some(current) = source {
        if let Some(tls) = current.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        if let Some(io) = current.downcast_ref::<io::Error>()
            && let Some(tls) = io
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        {
            return Some(tls);
        }
        source = current.source();
    }
    None
}

/// A rustls error in words, for the server `host` (also used by the IMAP client).
pub(super) fn describe_tls(host: &str, error: &rustls::Error) -> String {
    use rustls::CertificateError;
    match error {
        rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            "the server's certificate is not trusted: it is signed by an unknown issuer (for a private server, give its ca certificate as ca_file)".to_owned()
        }
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => format!(
            "the server's certificate is not valid for the name {host}"
        ),
        rustls::Error::InvalidCertificate(
            CertificateError::Expired | CertificateError::ExpiredContext { .. },
        ) => "the server's certificate has expired".to_owned(),
        rustls::Error::InvalidCertificate(other) => {
            format!("the server's certificate is not trusted: {other:?}")
        }
        other => format!("the tls handshake failed: {other}"),
    }
}

/// Replaces the password, should a server reply quote it, with `***`.
fn scrub(settings: &SmtpSettings, text: String) -> String {
    match &settings.password {
        Some(password) if !password.expose().is_empty() => text.replace(password.expose(), "***"),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(host: &str, security: Security) -> SmtpSettings {
        let mut settings = SmtpSettings::new(host, security);
        settings.port = 2525;
        settings.password = Some(Password::new("hunter2"));
        settings.user = Some("alice".to_owned());
        settings
    }

    #[test]
    fn password_never_prints() {
        let password = Password::new("hunter2");
        assert_eq!(format!("{password} {password:?}"), "*** ***");
        let settings = settings("127.0.0.1", Security::StartTls);
        assert!(!format!("{settings:?}").contains("hunter2"));
        assert_eq!(password.expose(), "hunter2");
    }

    #[test]
    fn plain_needs_permission_and_loopback() {
        let mut plain = settings("127.0.0.1", Security::Plain);
        let addresses = resolve(&plain).unwrap();
        let refused = plain_allowed(&plain, &addresses).unwrap_err();
        assert!(
            refused.to_string().contains("allowed explicitly"),
            "{refused}"
        );
        plain.allow_plain = true;
        assert_eq!(plain_allowed(&plain, &addresses), Ok(()));

        let mut remote = settings("192.0.2.1", Security::Plain);
        remote.allow_plain = true;
        let addresses = resolve(&remote).unwrap();
        let refused = plain_allowed(&remote, &addresses).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "plain text smtp to 192.0.2.1:2525 refused: 192.0.2.1 is not a loopback host (127.0.0.0/8, ::1, localhost); mail and password would cross the network unencrypted"
        );
        assert!(!refused.is_transient());
    }

    #[test]
    fn ipv6_servers_are_bracketed() {
        assert_eq!(settings("::1", Security::Tls).server(), "[::1]:2525");
    }

    #[test]
    fn scrub_hides_the_password() {
        let settings = settings("127.0.0.1", Security::Tls);
        assert_eq!(
            scrub(&settings, "535 bad password hunter2".to_owned()),
            "535 bad password ***"
        );
    }

    #[test]
    fn transient_errors_are_the_retryable_ones() {
        let rejected = |code| SendError::Rejected {
            server: "h:1".to_owned(),
            what: "the message".to_owned(),
            code,
            reply: String::new(),
        };
        assert!(rejected(451).is_transient());
        assert!(!rejected(554).is_transient());
        assert!(
            SendError::Connect {
                server: "h:1".to_owned(),
                cause: String::new()
            }
            .is_transient()
        );
    }
}
