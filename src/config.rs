//! The player's configuration: who they are, where their games and outbox live, and how
//! to reach their SMTP relay. It is a YAML file in the usual per-user config place
//! (`$PBEM_CONFIG`, else `$XDG_CONFIG_HOME/pbem/config.yaml`, else
//! `~/.config/pbem/config.yaml`), or the file `--config` names.
//!
//! This module turns the file's text into validated [`Settings`]; reading the file and
//! running a password command happen at the edge (the command line). The password is
//! never in the file: `password_env` names an environment variable, or
//! `password_command` a command that prints it.
//!
//! ```yaml
//! player:
//!   name: Alice
//!   email: alice@example.org
//! games: games            # relative to the config file's folder; ~ is the home folder
//! outbox: outbox
//! smtp:                   # optional: without it, `pbem send` only writes to the outbox
//!   host: smtp.example.org
//!   port: 587             # default 587 for starttls, 465 for tls, 25 for plain
//!   security: starttls    # starttls | tls | plain (plain only to loopback, with allow_plain)
//!   user: alice@example.org
//!   password_env: PBEM_SMTP_PASSWORD
//!   # password_command: pass show mail/alice
//!   # ca_file: my-ca.pem  # an extra root certificate to trust
//!   timeout_seconds: 30
//! imap:                   # optional: where `pbem receive --imap` and `pbem sync` read mail
//!   host: imap.example.org
//!   port: 993             # default 993 for tls, 143 for starttls
//!   security: tls         # tls | starttls
//!   user: alice@example.org
//!   password_env: PBEM_IMAP_PASSWORD   # or password_command
//!   folder: INBOX         # the folder read (INBOX by default)
//!   after: seen           # what becomes of a mail taken in: seen | move | leave
//!   # move_to: pbem       # the folder for `after: move`
//! # maildir: ~/Maildir    # optional: `pbem sync` reads this Maildir when there is no imap
//! # shared_folder: ~/Sync/pbem   # optional: play without mail servers (see below)
//! # play:                 # optional: how `pbem play` behaves
//! #   send: auto          # mail a turn as soon as it is played on the page (default: button)
//! #   idle_minutes: 30    # stop the server after this many minutes without a request
//! ```
//!
//! `shared_folder` names a folder both players reach (synced by Syncthing or Dropbox, on
//! NFS, or one folder for two homes on one machine): `pbem send` delivers each mail into
//! it and `pbem sync` takes in the mails addressed to the player from it. It wins over the
//! mail servers: with it, `send` and `sync` use neither `smtp` nor `imap` nor `maildir`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// How the SMTP connection is protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SecurityMode {
    /// Plain connection upgraded with STARTTLS (port 587).
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
    /// No encryption: only to a loopback host, and only with `allow_plain: true`.
    Plain,
}

impl SecurityMode {
    /// The usual port for this mode.
    #[must_use]
    pub const fn default_port(self) -> u16 {
        match self {
            SecurityMode::Starttls => 587,
            SecurityMode::Tls => 465,
            SecurityMode::Plain => 25,
        }
    }
}

/// Where the SMTP password comes from. It is never stored in the config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PasswordSource {
    /// No login.
    None,
    /// The value of this environment variable.
    Environment(String),
    /// What this shell command prints on its first line.
    Command(String),
}

/// The SMTP relay, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmtpConfig {
    /// Host name or address.
    pub host: String,
    /// Port.
    pub port: u16,
    /// Encryption.
    pub security: SecurityMode,
    /// Login name, if the relay wants a login.
    pub user: Option<String>,
    /// Where the password comes from.
    pub password: PasswordSource,
    /// An extra root certificate (PEM) to trust.
    pub ca_file: Option<PathBuf>,
    /// How long to wait for the server.
    pub timeout: Duration,
    /// Whether plain text to a loopback host was asked for.
    pub allow_plain: bool,
}

/// How the IMAP connection is protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImapSecurityMode {
    /// TLS from the first byte (port 993).
    Tls,
    /// A plain connection upgraded with STARTTLS (port 143).
    Starttls,
}

/// What becomes of a mail on the IMAP server once `pbem` has taken it in (or found
/// nothing new in it). A mail that is not taken in is never changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AfterTaken {
    /// Flag it `\Seen`.
    Seen,
    /// Move it to the `move_to` folder.
    Move,
    /// Leave it as it is.
    Leave,
}

/// The IMAP server, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImapConfig {
    /// Host name or address.
    pub host: String,
    /// Port.
    pub port: u16,
    /// Encryption (always: tls or starttls).
    pub security: ImapSecurityMode,
    /// Login name.
    pub user: String,
    /// Where the password comes from (never `None`).
    pub password: PasswordSource,
    /// An extra root certificate (PEM) to trust.
    pub ca_file: Option<PathBuf>,
    /// How long to wait for the server.
    pub timeout: Duration,
    /// The folder read.
    pub folder: String,
    /// What becomes of a mail taken in.
    pub after: AfterTaken,
    /// The folder for [`AfterTaken::Move`].
    pub move_to: Option<String>,
}

/// The player, as their games name them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// The name written in the White or Black tag.
    pub name: String,
    /// The mail address (the WhiteNA or BlackNA tag).
    pub email: String,
}

/// A validated configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Who plays.
    pub player: Player,
    /// The folder of game files.
    pub games: PathBuf,
    /// The folder of mails waiting to be sent.
    pub outbox: PathBuf,
    /// The relay, if any.
    pub smtp: Option<SmtpConfig>,
    /// The IMAP server, if any.
    pub imap: Option<ImapConfig>,
    /// A local Maildir that `pbem sync` reads when there is no IMAP server.
    pub maildir: Option<PathBuf>,
    /// A folder shared with the opponents (a Maildir or a plain folder): `pbem send`
    /// delivers into it and `pbem sync` takes in from it, instead of SMTP and IMAP.
    pub shared_folder: Option<PathBuf>,
    /// Whether move mails carry a picture of the position (`pictures: false` turns it
    /// off; on by default).
    pub pictures: bool,
    /// What `pbem play` does (the `play:` section).
    pub play: PlaySettings,
}

/// The `play:` section: how the page of `pbem play` behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaySettings {
    /// Mail a turn as soon as it is played on the page (`send: auto`); otherwise the
    /// page's send button mails it (`send: button`, the default).
    pub auto_send: bool,
    /// Minutes without a request after which the server stops (`idle_minutes`, 30 by
    /// default; `--idle` overrides it).
    pub idle_minutes: u32,
}

impl Default for PlaySettings {
    fn default() -> PlaySettings {
        PlaySettings {
            auto_send: false,
            idle_minutes: 30,
        }
    }
}

/// When the page of `pbem play` mails a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum SendWhen {
    /// Right after the turn is played.
    Auto,
    /// When the player presses the send button.
    Button,
}

/// A config file that cannot be used, with the place and the cause.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The YAML does not parse or has unknown or missing fields.
    #[error("{path}: {message}")]
    Syntax {
        /// The config file.
        path: String,
        /// What the YAML reader said (it names the line and column).
        message: String,
    },
    /// A value is out of range or contradicts another.
    #[error("{path}: {field}: {message}")]
    Invalid {
        /// The config file.
        path: String,
        /// The field, as a YAML path (`smtp.port`).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    player: FilePlayer,
    games: Option<String>,
    outbox: Option<String>,
    smtp: Option<FileSmtp>,
    pictures: Option<bool>,
    imap: Option<FileImap>,
    maildir: Option<String>,
    shared_folder: Option<String>,
    play: Option<FilePlay>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePlay {
    send: Option<SendWhen>,
    idle_minutes: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileImap {
    host: String,
    port: Option<u16>,
    security: Option<ImapSecurityMode>,
    user: String,
    password_env: Option<String>,
    password_command: Option<String>,
    ca_file: Option<String>,
    timeout_seconds: Option<u64>,
    folder: Option<String>,
    after: Option<AfterTaken>,
    move_to: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePlayer {
    name: String,
    email: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSmtp {
    host: String,
    port: Option<u16>,
    security: Option<SecurityMode>,
    user: Option<String>,
    password_env: Option<String>,
    password_command: Option<String>,
    ca_file: Option<String>,
    timeout_seconds: Option<u64>,
    #[serde(default)]
    allow_plain: bool,
}

impl Settings {
    /// Reads a config file's text. `path` names the file in messages and anchors relative
    /// paths; `home` expands a leading `~`.
    pub fn from_yaml(
        text: &str,
        path: &Path,
        home: Option<&Path>,
    ) -> Result<Settings, ConfigError> {
        let shown = path.display().to_string();
        let file: FileConfig = serde_yaml::from_str(text).map_err(|error| ConfigError::Syntax {
            path: shown.clone(),
            message: error.to_string(),
        })?;
        let invalid = |field: &'static str, message: String| ConfigError::Invalid {
            path: shown.clone(),
            field,
            message,
        };
        let base = path.parent().unwrap_or(Path::new("."));
        let resolve = |value: &str| -> PathBuf {
            match (value.strip_prefix("~/"), home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ if value == "~" && home.is_some() => {
                    home.map(Path::to_path_buf).unwrap_or_default()
                }
                _ => base.join(value),
            }
        };

        let name = file.player.name.trim().to_owned();
        if name.is_empty() {
            return Err(invalid("player.name", "must not be empty".to_owned()));
        }
        let email = file.player.email.trim().to_owned();
        if !is_plausible_address(&email) {
            return Err(invalid(
                "player.email",
                format!("\"{email}\" is not a mail address (expected name@domain)"),
            ));
        }
        let smtp = match file.smtp {
            None => None,
            Some(smtp) => {
                let security = smtp.security.unwrap_or(SecurityMode::Starttls);
                if smtp.host.trim().is_empty() {
                    return Err(invalid("smtp.host", "must not be empty".to_owned()));
                }
                if security == SecurityMode::Plain && !smtp.allow_plain {
                    return Err(invalid(
                        "smtp.security",
                        "plain sends the password and the mail unencrypted; set allow_plain: true \
                         (accepted only for a loopback host)"
                            .to_owned(),
                    ));
                }
                let password = match (smtp.password_env, smtp.password_command) {
                    (Some(_), Some(_)) => {
                        return Err(invalid(
                            "smtp.password_env",
                            "give password_env or password_command, not both".to_owned(),
                        ));
                    }
                    (Some(variable), None) => PasswordSource::Environment(variable),
                    (None, Some(command)) => PasswordSource::Command(command),
                    (None, None) => PasswordSource::None,
                };
                if password != PasswordSource::None && smtp.user.is_none() {
                    return Err(invalid(
                        "smtp.user",
                        "a password is configured but no user to log in as".to_owned(),
                    ));
                }
                let timeout = smtp.timeout_seconds.unwrap_or(30);
                if timeout == 0 {
                    return Err(invalid(
                        "smtp.timeout_seconds",
                        "must be at least 1".to_owned(),
                    ));
                }
                Some(SmtpConfig {
                    host: smtp.host.trim().to_owned(),
                    port: smtp.port.unwrap_or(security.default_port()),
                    security,
                    user: smtp.user,
                    password,
                    ca_file: smtp.ca_file.as_deref().map(resolve),
                    timeout: Duration::from_secs(timeout),
                    allow_plain: smtp.allow_plain,
                })
            }
        };
        let imap = match file.imap {
            None => None,
            Some(imap) => {
                let security = imap.security.unwrap_or(ImapSecurityMode::Tls);
                if imap.host.trim().is_empty() {
                    return Err(invalid("imap.host", "must not be empty".to_owned()));
                }
                if imap.user.trim().is_empty() {
                    return Err(invalid("imap.user", "must not be empty".to_owned()));
                }
                let password = match (imap.password_env, imap.password_command) {
                    (Some(_), Some(_)) => {
                        return Err(invalid(
                            "imap.password_env",
                            "give password_env or password_command, not both".to_owned(),
                        ));
                    }
                    (Some(variable), None) => PasswordSource::Environment(variable),
                    (None, Some(command)) => PasswordSource::Command(command),
                    (None, None) => {
                        return Err(invalid(
                            "imap.password_env",
                            "an imap login needs password_env or password_command".to_owned(),
                        ));
                    }
                };
                let timeout = imap.timeout_seconds.unwrap_or(30);
                if timeout == 0 {
                    return Err(invalid(
                        "imap.timeout_seconds",
                        "must be at least 1".to_owned(),
                    ));
                }
                let after = imap.after.unwrap_or(AfterTaken::Seen);
                let move_to = imap.move_to.map(|folder| folder.trim().to_owned());
                if after == AfterTaken::Move && move_to.as_deref().is_none_or(str::is_empty) {
                    return Err(invalid(
                        "imap.move_to",
                        "after: move needs the folder to move mails to".to_owned(),
                    ));
                }
                Some(ImapConfig {
                    host: imap.host.trim().to_owned(),
                    port: imap.port.unwrap_or(match security {
                        ImapSecurityMode::Tls => 993,
                        ImapSecurityMode::Starttls => 143,
                    }),
                    security,
                    user: imap.user.trim().to_owned(),
                    password,
                    ca_file: imap.ca_file.as_deref().map(resolve),
                    timeout: Duration::from_secs(timeout),
                    folder: imap
                        .folder
                        .map_or_else(|| "INBOX".to_owned(), |folder| folder.trim().to_owned()),
                    after,
                    move_to,
                })
            }
        };
        let shared_folder = match file.shared_folder.as_deref().map(str::trim) {
            Some("") => {
                return Err(invalid(
                    "shared_folder",
                    "must name a folder (or leave the line out)".to_owned(),
                ));
            }
            other => other.map(resolve),
        };
        let play = match file.play {
            None => PlaySettings::default(),
            Some(play) => {
                let idle_minutes = play.idle_minutes.unwrap_or(30);
                if idle_minutes == 0 {
                    return Err(invalid(
                        "play.idle_minutes",
                        "must be at least 1".to_owned(),
                    ));
                }
                PlaySettings {
                    auto_send: play.send == Some(SendWhen::Auto),
                    idle_minutes,
                }
            }
        };
        Ok(Settings {
            player: Player { name, email },
            games: resolve(file.games.as_deref().unwrap_or("games")),
            outbox: resolve(file.outbox.as_deref().unwrap_or("outbox")),
            smtp,
            imap,
            maildir: file.maildir.as_deref().map(resolve),
            shared_folder,
            pictures: file.pictures.unwrap_or(true),
            play,
        })
    }

    /// A minimal config file's text for a new player, written by the YAML library (so
    /// any name or folder reads back as it was given), with the sections left to fill in
    /// as comments. With `shared_folder`, the player plays through that folder (no mail
    /// servers needed).
    pub fn template(
        name: &str,
        email: &str,
        shared_folder: Option<&str>,
    ) -> Result<String, String> {
        #[derive(serde::Serialize)]
        struct Template<'a> {
            player: TemplatePlayer<'a>,
            games: &'a str,
            outbox: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            shared_folder: Option<&'a str>,
        }
        #[derive(serde::Serialize)]
        struct TemplatePlayer<'a> {
            name: &'a str,
            email: &'a str,
        }
        let yaml = serde_yaml::to_string(&Template {
            player: TemplatePlayer { name, email },
            games: "games",
            outbox: "outbox",
            shared_folder,
        })
        .map_err(|error| error.to_string())?;
        let shared = if shared_folder.is_some() {
            "# shared_folder: `pbem send` delivers into it and `pbem sync` takes in from it;\n\
             # it wins over the smtp, imap and maildir settings below\n"
        } else {
            "# shared_folder: ~/Sync/pbem   # play without mail servers: `pbem send` delivers\n\
             #   into this folder (a Maildir or a plain folder both players reach) and\n\
             #   `pbem sync` takes in from it; it wins over smtp, imap and maildir\n"
        };
        Ok(format!(
            "# pbem configuration (see README.md, \"Play a game by email\")\n{yaml}{shared}\
             # smtp:\n#   host: smtp.example.org\n#   port: 587\n#   security: starttls   # starttls | tls | plain\n\
             #   user: you@example.org\n#   password_env: PBEM_SMTP_PASSWORD   # or password_command: pass show mail\n\
             #   ca_file: my-ca.pem   # an extra root certificate to trust\n\
             #   allow_plain: false   # plain only to a loopback host, and only with this true\n\
             # imap:\n#   host: imap.example.org\n#   security: tls   # tls | starttls\n\
             #   user: you@example.org\n#   password_env: PBEM_IMAP_PASSWORD   # or password_command\n\
             #   folder: INBOX\n#   after: seen   # seen | move (with move_to: FOLDER) | leave\n\
             # maildir: ~/Maildir   # read by `pbem sync` when there is no imap section\n"
        ))
    }
}

/// An address lettre can send to (`local@domain`, checked by lettre's `Address`): enough to
/// catch a name typed where the address belongs.
#[must_use]
pub fn is_plausible_address(address: &str) -> bool {
    address.parse::<lettre::Address>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Settings, ConfigError> {
        Settings::from_yaml(
            text,
            Path::new("/home/a/.config/pbem/config.yaml"),
            Some(Path::new("/home/a")),
        )
    }

    #[test]
    fn a_full_config_reads_with_defaults_and_resolved_paths() {
        let settings = read(
            "player: {name: Alice, email: alice@example.org}\n\
             outbox: ~/mail/outbox\n\
             smtp:\n  host: smtp.example.org\n  user: alice\n  password_env: PW\n  ca_file: ca.pem\n",
        )
        .unwrap();
        assert_eq!(settings.player.name, "Alice");
        assert_eq!(settings.games, PathBuf::from("/home/a/.config/pbem/games"));
        assert_eq!(settings.outbox, PathBuf::from("/home/a/mail/outbox"));
        let smtp = settings.smtp.unwrap();
        assert_eq!(smtp.port, 587);
        assert_eq!(smtp.security, SecurityMode::Starttls);
        assert_eq!(smtp.password, PasswordSource::Environment("PW".to_owned()));
        assert_eq!(
            smtp.ca_file,
            Some(PathBuf::from("/home/a/.config/pbem/ca.pem"))
        );
        assert_eq!(smtp.timeout, Duration::from_secs(30));
    }

    #[test]
    fn an_imap_section_reads_with_defaults() {
        let settings = read(
            "player: {name: A, email: a@b}\nimap: {host: imap.h, user: u, password_env: PW, security: starttls}\nmaildir: ~/Maildir\n",
        )
        .unwrap();
        let imap = settings.imap.unwrap();
        assert_eq!(imap.port, 143);
        assert_eq!(imap.folder, "INBOX");
        assert_eq!(imap.after, AfterTaken::Seen);
        assert_eq!(imap.password, PasswordSource::Environment("PW".to_owned()));
        assert!(settings.maildir.is_some_and(|dir| dir.ends_with("Maildir")));
    }

    #[test]
    fn mistakes_name_the_field() {
        let cases = [
            ("player: {name: A, email: nobody}\n", "player.email"),
            ("player: {name: '', email: a@b}\n", "player.name"),
            (
                "player: {name: A, email: a@b}\nsmtp: {host: h, security: plain}\n",
                "smtp.security",
            ),
            (
                "player: {name: A, email: a@b}\nsmtp: {host: h, password_env: X}\n",
                "smtp.user",
            ),
            (
                "player: {name: A, email: a@b}\nsmtp: {host: h, user: u, password_env: X, password_command: y}\n",
                "smtp.password_env",
            ),
            (
                "player: {name: A, email: a@b}\nimap: {host: h, user: u}\n",
                "imap.password_env",
            ),
            (
                "player: {name: A, email: a@b}\nimap: {host: h, user: u, password_env: X, after: move}\n",
                "imap.move_to",
            ),
            (
                "player: {name: A, email: a@b}\nplay: {idle_minutes: 0}\n",
                "play.idle_minutes",
            ),
        ];
        for (text, field) in cases {
            let error = read(text).unwrap_err().to_string();
            assert!(error.contains(field), "{text}: {error}");
            assert!(
                error.starts_with("/home/a/.config/pbem/config.yaml"),
                "{error}"
            );
        }
    }

    #[test]
    fn the_play_section_reads_with_defaults() {
        let plain = read("player: {name: A, email: a@b}\n").unwrap();
        assert_eq!(plain.play, PlaySettings::default());
        assert!(!plain.play.auto_send);
        assert_eq!(plain.play.idle_minutes, 30);
        let set =
            read("player: {name: A, email: a@b}\nplay: {send: auto, idle_minutes: 5}\n").unwrap();
        assert!(set.play.auto_send);
        assert_eq!(set.play.idle_minutes, 5);
        let button = read("player: {name: A, email: a@b}\nplay: {send: button}\n").unwrap();
        assert!(!button.play.auto_send);
        let error = read("player: {name: A, email: a@b}\nplay: {send: later}\n").unwrap_err();
        assert!(matches!(error, ConfigError::Syntax { .. }), "{error}");
    }

    #[test]
    fn unknown_fields_and_bad_yaml_are_syntax_errors_with_a_place() {
        let error = read("player: {name: A, email: a@b}\npasword: x\n").unwrap_err();
        assert!(matches!(error, ConfigError::Syntax { .. }), "{error}");
        assert!(error.to_string().contains("pasword"), "{error}");
        let error = read("player: [unclosed\n").unwrap_err();
        assert!(error.to_string().contains("line"), "{error}");
    }

    #[test]
    fn the_template_reads_back_whatever_the_name() {
        for name in [
            "Bob \"B\" Smith",
            "Bell\u{7}Tab\tNul\u{0}",
            "line\nbreak: # not a comment",
            "- [x]: {y} & *z ! %",
            "'quoted' \\ back",
            "Ünïcödé 名前",
        ] {
            let text = Settings::template(name, "bob@example.org", None).unwrap();
            let settings = read(&text).unwrap_or_else(|error| panic!("{name:?}: {error}\n{text}"));
            assert_eq!(settings.player.name, name.trim(), "{text}");
            assert_eq!(settings.player.email, "bob@example.org");
            assert_eq!(settings.smtp, None);
            assert_eq!(settings.shared_folder, None);
            // What is not YAML data is a comment from the first column.
            assert!(
                text.lines()
                    .all(|line| !line.trim_start().starts_with('#') || line.starts_with('#')),
                "{text}"
            );
            let text = Settings::template(name, "bob@example.org", Some(name)).unwrap();
            let settings = read(&text).unwrap_or_else(|error| panic!("{name:?}: {error}\n{text}"));
            let folder = Path::new("/home/a/.config/pbem").join(name.trim());
            assert_eq!(settings.shared_folder, Some(folder), "{text}");
        }
    }
}
