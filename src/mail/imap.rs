//! Reading a mailbox over IMAP: the second module of the library that does network I/O.
//!
//! The client is async-imap (maintained, on tokio); TLS is rustls with the Mozilla roots
//! of webpki-roots plus the certificate of `ca_file` when given, as for SMTP. The async
//! part stays in here: [`Mailbox::open`] starts a single-threaded tokio runtime of its
//! own and every call blocks until the server has answered (or the timeout has passed).
//!
//! Only TLS connections are made: `tls` (port 993, TLS from the first byte) or
//! `starttls` (port 143, upgraded before the login); the password never crosses the
//! network unencrypted. Each [`ImapError`] names `host:port`, the step and the cause,
//! never the password.
//!
//! Mails are read with `BODY.PEEK[]`, which does not set `\Seen`: a mail that is not taken
//! in stays exactly as it was on the server.

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::TryStreamExt;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use thiserror::Error;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use super::smtp::describe_tls;
use super::{GAME_HEADER, Password};

/// How the IMAP connection is protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImapSecurity {
    /// TLS from the first byte (port 993).
    Tls,
    /// A plain connection upgraded with STARTTLS before the login (port 143).
    StartTls,
}

impl ImapSecurity {
    /// The usual port for this mode.
    #[must_use]
    pub const fn default_port(self) -> u16 {
        match self {
            ImapSecurity::Tls => 993,
            ImapSecurity::StartTls => 143,
        }
    }
}

/// Where and how to log in.
#[derive(Clone)]
pub struct ImapSettings {
    /// Host name or address.
    pub host: String,
    /// Port.
    pub port: u16,
    /// TLS or STARTTLS.
    pub security: ImapSecurity,
    /// Login name.
    pub user: String,
    /// The password.
    pub password: Password,
    /// An extra root certificate (PEM) to trust.
    pub ca_file: Option<PathBuf>,
    /// How long to wait for each answer.
    pub timeout: Duration,
    /// The folder to read (`INBOX`).
    pub folder: String,
}

impl fmt::Debug for ImapSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapSettings")
            .field("server", &self.server())
            .field("security", &self.security)
            .field("user", &self.user)
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

impl ImapSettings {
    /// `host:port`, as messages name the server (an IPv6 address in brackets).
    #[must_use]
    pub fn server(&self) -> String {
        super::server_name(&self.host, self.port)
    }
}

/// Why talking to the IMAP server failed. Every message names the server.
#[derive(Debug, Error)]
pub enum ImapError {
    /// The settings cannot be used (an unreadable ca file).
    #[error("imap server {server}: {reason}")]
    Settings {
        /// `host:port`.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// No TCP connection.
    #[error("cannot connect to the imap server {server}: {cause}")]
    Connect {
        /// `host:port`.
        server: String,
        /// The system's reason.
        cause: String,
    },
    /// The TLS handshake failed.
    #[error("imap server {server}: {cause}")]
    Tls {
        /// `host:port`.
        server: String,
        /// What rustls found, in words.
        cause: String,
    },
    /// The server refused the login.
    #[error(
        "imap server {server} refused the login as {user}: {cause} (check imap.user and the password)"
    )]
    Login {
        /// `host:port`.
        server: String,
        /// The login name.
        user: String,
        /// The server's answer.
        cause: String,
    },
    /// A command failed.
    #[error("imap server {server}: {step} failed: {cause}")]
    Step {
        /// `host:port`.
        server: String,
        /// What pbem was doing.
        step: String,
        /// The server's answer or the connection's error.
        cause: String,
    },
    /// No answer in time.
    #[error("imap server {server}: no answer within {seconds} s while {step}")]
    Timeout {
        /// `host:port`.
        server: String,
        /// What pbem was doing.
        step: String,
        /// The timeout.
        seconds: u64,
    },
}

type Session = async_imap::Session<TlsStream<TcpStream>>;

/// A logged-in connection with a folder selected.
pub struct Mailbox {
    runtime: tokio::runtime::Runtime,
    session: Session,
    settings: ImapSettings,
    uid_validity: u32,
    can_move: bool,
}

impl fmt::Debug for Mailbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mailbox")
            .field("settings", &self.settings)
            .field("uid_validity", &self.uid_validity)
            .finish_non_exhaustive()
    }
}

/// The IMAP search for the mails that may be pbem's: pbem mails (the game header, the
/// `[pbem ` subject) and replies to them (pbem's message ids in `In-Reply-To` or
/// `References`). Other mail is not even fetched.
#[must_use]
pub fn pbem_search() -> String {
    format!(
        "OR OR OR HEADER {GAME_HEADER} \"\" SUBJECT \"[pbem \" HEADER In-Reply-To \"@pbem.invalid\" HEADER References \"@pbem.invalid\""
    )
}

impl Mailbox {
    /// Connects, logs in and selects the settings' folder.
    ///
    /// # Errors
    ///
    /// An [`ImapError`] naming the step that failed.
    pub fn open(settings: &ImapSettings) -> Result<Mailbox, ImapError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|error| ImapError::Settings {
                server: settings.server(),
                reason: format!("cannot start the network runtime: {error}"),
            })?;
        let mut session = runtime.block_on(login(settings))?;
        let folder = settings.folder.clone();
        let selected = runtime.block_on(step(
            settings,
            &format!("selecting the folder {folder}"),
            session.select(&folder),
        ))?;
        let can_move = runtime
            .block_on(step(
                settings,
                "asking for capabilities",
                session.capabilities(),
            ))?
            .has_str("MOVE");
        Ok(Mailbox {
            runtime,
            session,
            settings: settings.clone(),
            uid_validity: selected.uid_validity.unwrap_or(0),
            can_move,
        })
    }

    /// The folder's UIDVALIDITY: with a UID, it names a mail for good.
    #[must_use]
    pub fn uid_validity(&self) -> u32 {
        self.uid_validity
    }

    /// The UIDs of the mails that [`pbem_search`] finds, lowest (oldest) first.
    ///
    /// # Errors
    ///
    /// When the search fails.
    pub fn search(&mut self) -> Result<Vec<u32>, ImapError> {
        let query = pbem_search();
        let found = self.runtime.block_on(step(
            &self.settings,
            "searching for pbem mail",
            self.session.uid_search(&query),
        ))?;
        let mut uids: Vec<u32> = found.into_iter().collect();
        uids.sort_unstable();
        Ok(uids)
    }

    /// The UIDs of the mails that [`pbem_search`] finds and that are not flagged `\Seen`,
    /// lowest first.
    ///
    /// # Errors
    ///
    /// When the search fails.
    pub fn unseen(&mut self) -> Result<Vec<u32>, ImapError> {
        let query = format!("UNSEEN {}", pbem_search());
        let found = self.runtime.block_on(step(
            &self.settings,
            "searching for unseen pbem mail",
            self.session.uid_search(&query),
        ))?;
        let mut uids: Vec<u32> = found.into_iter().collect();
        uids.sort_unstable();
        Ok(uids)
    }

    /// The whole message with this UID, without setting `\Seen`; `None` when the server no
    /// longer has it (deleted since the search).
    ///
    /// # Errors
    ///
    /// When the fetch fails (the connection dropped, say).
    pub fn fetch(&mut self, uid: u32) -> Result<Option<Vec<u8>>, ImapError> {
        let settings = &self.settings;
        let session = &mut self.session;
        self.runtime.block_on(step(
            settings,
            &format!("fetching the mail with uid {uid}"),
            async move {
                let fetches: Vec<_> = session
                    .uid_fetch(uid.to_string(), "(UID BODY.PEEK[])")
                    .await?
                    .try_collect()
                    .await?;
                Ok(fetches
                    .iter()
                    .find(|fetch| fetch.uid == Some(uid))
                    .and_then(|fetch| fetch.body().map(<[u8]>::to_vec)))
            },
        ))
    }

    /// Flags the mail `\Seen`.
    ///
    /// # Errors
    ///
    /// When the server refuses.
    pub fn mark_seen(&mut self, uid: u32) -> Result<(), ImapError> {
        let settings = &self.settings;
        let session = &mut self.session;
        self.runtime.block_on(step(
            settings,
            &format!("flagging the mail with uid {uid} seen"),
            async move {
                let _: Vec<_> = session
                    .uid_store(uid.to_string(), "+FLAGS (\\Seen)")
                    .await?
                    .try_collect()
                    .await?;
                Ok(())
            },
        ))
    }

    /// Moves the mail to `folder` (made if it does not exist): `UID MOVE` where the
    /// server has it, else copy, flag `\Deleted` and expunge that UID alone.
    ///
    /// # Errors
    ///
    /// When the server refuses; the mail is then still in the folder read.
    pub fn move_to(&mut self, uid: u32, folder: &str) -> Result<(), ImapError> {
        let settings = &self.settings;
        let session = &mut self.session;
        let can_move = self.can_move;
        let uid_set = uid.to_string();
        self.runtime.block_on(step(
            settings,
            &format!("moving the mail with uid {uid} to {folder}"),
            async move {
                // CREATE fails when the folder exists; the move then says whether it is
                // usable.
                let _ = session.create(folder).await;
                if can_move {
                    session.uid_mv(&uid_set, folder).await?;
                } else {
                    session.uid_copy(&uid_set, folder).await?;
                    let _: Vec<_> = session
                        .uid_store(&uid_set, "+FLAGS (\\Deleted)")
                        .await?
                        .try_collect()
                        .await?;
                    let _: Vec<_> = session.uid_expunge(&uid_set).await?.try_collect().await?;
                }
                Ok(())
            },
        ))
    }

    /// Logs out (errors are of no interest then).
    pub fn logout(mut self) {
        let timeout = self.settings.timeout;
        let session = &mut self.session;
        // The timer is made inside the runtime, which drives it.
        let _ = self
            .runtime
            .block_on(async move { tokio::time::timeout(timeout, session.logout()).await });
    }
}

/// Connects, logs in and looks at the folder, then logs out: what `pbem config check`
/// does.
///
/// # Errors
///
/// An [`ImapError`] naming the step that failed.
pub fn check(settings: &ImapSettings) -> Result<(), ImapError> {
    Mailbox::open(settings)?.logout();
    Ok(())
}

/// Runs one step with the timeout, turning its error into an [`ImapError::Step`].
async fn step<T>(
    settings: &ImapSettings,
    what: &str,
    future: impl Future<Output = async_imap::error::Result<T>>,
) -> Result<T, ImapError> {
    match tokio::time::timeout(settings.timeout, future).await {
        Err(_) => Err(ImapError::Timeout {
            server: settings.server(),
            step: what.to_owned(),
            seconds: settings.timeout.as_secs(),
        }),
        Ok(Err(error)) => Err(ImapError::Step {
            server: settings.server(),
            step: what.to_owned(),
            cause: scrub(settings, imap_cause(&error)),
        }),
        Ok(Ok(value)) => Ok(value),
    }
}

fn imap_cause(error: &async_imap::error::Error) -> String {
    match error {
        async_imap::error::Error::Io(io) => describe_io(io),
        other => other.to_string(),
    }
}

fn describe_io(error: &std::io::Error) -> String {
    match error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        Some(tls) => format!("tls: {tls}"),
        None => match error.kind() {
            std::io::ErrorKind::UnexpectedEof => "the connection was closed".to_owned(),
            _ => error.to_string(),
        },
    }
}

/// The TLS client of the settings: webpki's roots and the ca file.
fn tls_connector(settings: &ImapSettings) -> Result<TlsConnector, ImapError> {
    let server = settings.server();
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = &settings.ca_file {
        let pem = std::fs::read(path).map_err(|error| ImapError::Settings {
            server: server.clone(),
            reason: format!("cannot read the ca file {}: {error}", path.display()),
        })?;
        let mut added = 0;
        for certificate in CertificateDer::pem_slice_iter(&pem) {
            let certificate = certificate.map_err(|error| ImapError::Settings {
                server: server.clone(),
                reason: format!("the ca file {} does not read: {error}", path.display()),
            })?;
            roots
                .add(certificate)
                .map_err(|error| ImapError::Settings {
                    server: server.clone(),
                    reason: format!("the ca file {}: {error}", path.display()),
                })?;
            added += 1;
        }
        if added == 0 {
            return Err(ImapError::Settings {
                server,
                reason: format!("the ca file {} holds no pem certificate", path.display()),
            });
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|error| ImapError::Tls {
        server: server.clone(),
        cause: error.to_string(),
    })?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

/// TCP, TLS (at once or after STARTTLS), then the login.
async fn login(settings: &ImapSettings) -> Result<Session, ImapError> {
    let server = settings.server();
    let seconds = settings.timeout.as_secs();
    let timed_out = |step: &str| ImapError::Timeout {
        server: server.clone(),
        step: step.to_owned(),
        seconds,
    };
    let connector = tls_connector(settings)?;
    let name = ServerName::try_from(settings.host.clone()).map_err(|_| ImapError::Settings {
        server: server.clone(),
        reason: format!("{} is not a host name or address", settings.host),
    })?;
    let tcp = tokio::time::timeout(
        settings.timeout,
        TcpStream::connect((settings.host.as_str(), settings.port)),
    )
    .await
    .map_err(|_| timed_out("connecting"))?
    .map_err(|error| ImapError::Connect {
        server: server.clone(),
        cause: error.to_string(),
    })?;
    let tcp = match settings.security {
        ImapSecurity::Tls => tcp,
        ImapSecurity::StartTls => {
            let mut client = async_imap::Client::new(tcp);
            greeting(settings, &mut client).await?;
            step(
                settings,
                "asking for STARTTLS",
                client.run_command_and_check_ok("STARTTLS", None),
            )
            .await?;
            client.into_inner()
        }
    };
    let tls = tokio::time::timeout(settings.timeout, connector.connect(name, tcp))
        .await
        .map_err(|_| timed_out("the tls handshake"))?
        .map_err(|error| ImapError::Tls {
            server: server.clone(),
            cause: match error
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            {
                Some(tls) => describe_tls(&settings.host, tls),
                None => format!("the tls handshake failed: {}", describe_io(&error)),
            },
        })?;
    let mut client = async_imap::Client::new(tls);
    if settings.security == ImapSecurity::Tls {
        greeting(settings, &mut client).await?;
    }
    match tokio::time::timeout(
        settings.timeout,
        client.login(&settings.user, settings.password.expose()),
    )
    .await
    {
        Err(_) => Err(timed_out("logging in")),
        Ok(Err((error, _))) => Err(ImapError::Login {
            server,
            user: settings.user.clone(),
            cause: scrub(settings, imap_cause(&error)),
        }),
        Ok(Ok(session)) => Ok(session),
    }
}

/// Reads the server's greeting.
async fn greeting<T>(
    settings: &ImapSettings,
    client: &mut async_imap::Client<T>,
) -> Result<(), ImapError>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + fmt::Debug + Send,
{
    let answer = tokio::time::timeout(settings.timeout, client.read_response())
        .await
        .map_err(|_| ImapError::Timeout {
            server: settings.server(),
            step: "waiting for the greeting".to_owned(),
            seconds: settings.timeout.as_secs(),
        })?;
    match answer {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(ImapError::Step {
            server: settings.server(),
            step: "waiting for the greeting".to_owned(),
            cause: "the server closed the connection".to_owned(),
        }),
        Err(error) => Err(ImapError::Step {
            server: settings.server(),
            step: "waiting for the greeting".to_owned(),
            cause: describe_io(&error),
        }),
    }
}

/// Replaces the password, should a server reply quote it, with `***`.
fn scrub(settings: &ImapSettings, text: String) -> String {
    let password = settings.password.expose();
    if password.is_empty() {
        text
    } else {
        text.replace(password, "***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_asks_for_pbem_mail_and_replies_only() {
        let query = pbem_search();
        assert!(
            query.starts_with("OR OR OR HEADER X-Pbem-Game \"\""),
            "{query}"
        );
        assert!(
            query.contains("HEADER References \"@pbem.invalid\""),
            "{query}"
        );
    }

    #[test]
    fn settings_never_show_the_password() {
        let settings = ImapSettings {
            host: "::1".to_owned(),
            port: 993,
            security: ImapSecurity::Tls,
            user: "alice".to_owned(),
            password: Password::new("hunter2"),
            ca_file: None,
            timeout: Duration::from_secs(5),
            folder: "INBOX".to_owned(),
        };
        assert_eq!(settings.server(), "[::1]:993");
        assert!(!format!("{settings:?}").contains("hunter2"));
        assert_eq!(scrub(&settings, "no hunter2".to_owned()), "no ***");
    }
}
