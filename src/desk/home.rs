//! The player's home: the config file and what it names (games folder, outbox, mail
//! servers), and the data lock. A config file that others can write (or replace) is
//! refused, as ssh refuses its own: see `check_only_yours`.
//!
//! A caller that changes the player's data opens the home with [`Home::open`]: it takes
//! the data lock (waiting up to `PBEM_LOCK_WAIT` seconds, 5 by default, for another pbem
//! to finish), then repairs what a killed pbem left: it finishes the game steps left in
//! journals, gives outbox messages whose envelope was not written their envelope again
//! (so `pbem send --retry` sends them), and removes stale temporary files. What it
//! repaired, or left alone for the player to remove (a symbolic link planted in the
//! outbox), is in [`Home::repaired`], for the caller to tell.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::DeskError;
use crate::config::{
    ImapConfig, ImapSecurityMode, PasswordSource, SecurityMode, Settings, SmtpConfig,
};
use crate::mail::{self, Password, Security, SmtpSettings};
use crate::notation::Record;
use crate::store::lock::DataLock;
use crate::store::{GameFiles, Outbox};

/// A loaded configuration with the folders it names.
pub struct Home {
    /// The config file.
    pub path: PathBuf,
    /// Its validated settings.
    pub settings: Settings,
    /// The games folder.
    pub games: GameFiles,
    /// The outbox.
    pub outbox: Outbox,
    /// What [`Home::open`] repaired of an interrupted pbem's work, in words, one line each.
    pub repaired: Vec<String>,
    /// The data lock, for a home opened to change it (held until the home is dropped).
    _lock: Option<DataLock>,
}

/// The config file: `flag` (`--config`), else `$PBEM_CONFIG`, else the per-user config
/// place (`$XDG_CONFIG_HOME/pbem/config.yaml`, else `~/.config/pbem/config.yaml`).
pub fn config_path(flag: Option<&Path>) -> Result<PathBuf, DeskError> {
    if let Some(path) = flag {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = std::env::var_os("PBEM_CONFIG").filter(|value| !value.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    if let Some(base) = std::env::var_os("XDG_CONFIG_HOME").filter(|value| !value.is_empty()) {
        return Ok(PathBuf::from(base).join("pbem/config.yaml"));
    }
    match home_dir() {
        Some(home) => Ok(home.join(".config/pbem/config.yaml")),
        None => Err(DeskError::Cannot(
            "cannot tell where the config file is: HOME is not set (give --config PATH)".to_owned(),
        )),
    }
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

impl Home {
    /// Loads the config file (`config`, or where [`config_path`] finds it), without the
    /// lock: for reading only.
    pub fn load(config: Option<&Path>) -> Result<Home, DeskError> {
        let path = config_path(config)?;
        let text = std::fs::read_to_string(&path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                DeskError::Cannot(format!(
                    "no config file at {} (create one with `pbem config init --name NAME --email ADDRESS`)",
                    path.display()
                ))
            } else {
                DeskError::Io {
                    path: path.display().to_string(),
                    source,
                }
            }
        })?;
        check_only_yours(&path)?;
        let settings = Settings::from_yaml(&text, &path, home_dir().as_deref())
            .map_err(|error| DeskError::Cannot(error.to_string()))?;
        Ok(Home {
            games: GameFiles::new(&settings.games),
            outbox: Outbox::new(&settings.outbox),
            path,
            settings,
            repaired: Vec::new(),
            _lock: None,
        })
    }

    /// Loads the config file, takes the player's data lock and repairs what an
    /// interrupted pbem left (see the module's text).
    pub fn open(config: Option<&Path>) -> Result<Home, DeskError> {
        let mut home = Home::load(config)?;
        let lock = DataLock::acquire(home.games.dir(), lock_wait()?)?;
        home._lock = Some(lock);
        home.repaired = home.repair()?;
        crate::store::hook::pause_at("locked");
        Ok(home)
    }

    fn repair(&self) -> Result<Vec<String>, DeskError> {
        let mut told = Vec::new();
        for id in self.games.recover()? {
            told.push(format!(
                "{id}: finished saving a turn that an interrupted pbem had begun"
            ));
        }
        let orphans = self.outbox.orphans()?;
        for stranger in &orphans.strangers {
            let path = stranger.display();
            told.push(format!(
                "{path}: ignored: named like an outbox mail but a symbolic link (or not a regular file), which pbem never follows nor removes (another user's, or left by hand); the other games and mails go on (remove it: rm '{path}')"
            ));
        }
        for message in orphans.messages {
            let bytes = std::fs::read(&message).map_err(|source| DeskError::Io {
                path: message.display().to_string(),
                source,
            })?;
            match crate::mail::envelope_of(&bytes) {
                Some((from, to)) => {
                    let pending = self.outbox.adopt(&message, &from, &to)?;
                    told.push(format!(
                        "{} (ply {}): a mail an interrupted pbem was putting in the outbox waits there again; `pbem send --retry` sends it",
                        pending.game_id, pending.ply
                    ));
                }
                None => told.push(format!(
                    "{}: an outbox mail without its envelope whose addresses cannot be read; left as it is",
                    message.display()
                )),
            }
        }
        let mut removed = 0;
        for folder in [self.games.dir(), self.settings.outbox.as_path()] {
            removed +=
                crate::store::remove_stale_temporaries(folder).map_err(|source| DeskError::Io {
                    path: folder.display().to_string(),
                    source,
                })?;
        }
        if removed > 0 {
            told.push(format!(
                "removed {removed} temporary file{} left by an interrupted pbem",
                if removed == 1 { "" } else { "s" }
            ));
        }
        Ok(told)
    }

    /// The game `game` names (its file, its id, or the start of its id): its file, its
    /// record and its id.
    pub fn game(&self, game: &str) -> Result<(PathBuf, Record, String), DeskError> {
        let path = self.games.find(game)?;
        let record = self.games.load(&path)?;
        let id = game_id_of(&record, &path)?;
        Ok((path, record, id))
    }

    /// The SMTP settings of the config's smtp section, with the password fetched now.
    pub fn smtp_settings(smtp: &SmtpConfig) -> Result<SmtpSettings, DeskError> {
        let password = match &smtp.password {
            PasswordSource::None => None,
            PasswordSource::Environment(variable) => {
                Some(Password::new(std::env::var(variable).map_err(|_| {
                    DeskError::Cannot(format!(
                        "smtp.password_env names {variable}, which is not set in the environment"
                    ))
                })?))
            }
            PasswordSource::Command(command) => {
                Some(Password::new(run_password_command("smtp", command)?))
            }
        };
        Ok(SmtpSettings {
            host: smtp.host.clone(),
            port: smtp.port,
            security: match smtp.security {
                SecurityMode::Starttls => Security::StartTls,
                SecurityMode::Tls => Security::Tls,
                SecurityMode::Plain => Security::Plain,
            },
            user: smtp.user.clone(),
            password,
            ca_file: smtp.ca_file.clone(),
            timeout: smtp.timeout,
            allow_plain: smtp.allow_plain,
        })
    }

    /// The IMAP settings of the config's imap section, with the password fetched now.
    pub fn imap_settings(imap: &ImapConfig) -> Result<mail::ImapSettings, DeskError> {
        let password = match &imap.password {
            PasswordSource::Environment(variable) => std::env::var(variable).map_err(|_| {
                DeskError::Cannot(format!(
                    "imap.password_env names {variable}, which is not set in the environment"
                ))
            })?,
            PasswordSource::Command(command) => run_password_command("imap", command)?,
            PasswordSource::None => String::new(),
        };
        Ok(mail::ImapSettings {
            host: imap.host.clone(),
            port: imap.port,
            security: match imap.security {
                ImapSecurityMode::Tls => mail::ImapSecurity::Tls,
                ImapSecurityMode::Starttls => mail::ImapSecurity::StartTls,
            },
            user: imap.user.clone(),
            password: Password::new(password),
            ca_file: imap.ca_file.clone(),
            timeout: imap.timeout,
            folder: imap.folder.clone(),
        })
    }
}

/// The game's id from its `GameId` tag.
pub(crate) fn game_id_of(record: &Record, path: &Path) -> Result<String, DeskError> {
    crate::correspondence::game_id(record)
        .map(str::to_owned)
        .ok_or_else(|| {
            DeskError::Cannot(format!(
                "{}: no GameId tag; this is not a game started with `pbem new`",
                path.display()
            ))
        })
}

/// Runs the password command and takes its first line. Its output is never shown.
fn run_password_command(section: &str, command: &str) -> Result<String, DeskError> {
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|error| {
            DeskError::Cannot(format!("cannot run {section}.password_command: {error}"))
        })?;
    if !output.status.success() {
        return Err(DeskError::Cannot(format!(
            "{section}.password_command failed ({})",
            output.status
        )));
    }
    let text = String::from_utf8(output.stdout).map_err(|_| {
        DeskError::Cannot(format!(
            "{section}.password_command printed something that is not UTF-8"
        ))
    })?;
    let password = text.lines().next().unwrap_or("").to_owned();
    if password.is_empty() {
        return Err(DeskError::Cannot(format!(
            "{section}.password_command printed nothing"
        )));
    }
    Ok(password)
}

/// Refuses a config file that someone other than the user (or root) owns or may write,
/// or that lies in a folder others may write without the sticky bit (so they could put
/// another file in its place), as ssh does with its own files: the config names the
/// `password_command` that pbem runs, the mail servers it gives passwords to and the
/// folders it writes. Links are followed: the file read and its real folder are checked.
#[cfg(unix)]
fn check_only_yours(path: &Path) -> Result<(), DeskError> {
    use std::os::unix::fs::MetadataExt;
    let io_error = |at: &Path| {
        let at = at.display().to_string();
        move |source| DeskError::Io { path: at, source }
    };
    let real = std::fs::canonicalize(path).map_err(io_error(path))?;
    let file = std::fs::metadata(&real).map_err(io_error(&real))?;
    let user = rustix::process::geteuid().as_raw();
    let shown = path.display();
    let why = "pbem runs its password_command and trusts the servers and folders it names";
    if file.uid() != user && file.uid() != 0 {
        return Err(DeskError::Cannot(format!(
            "config file {shown} belongs to another user (uid {}), and {why}: pbem reads only \
             a config file of yours (copy it to a file of your own, then `chmod 600` it)",
            file.uid()
        )));
    }
    if file.mode() & 0o022 != 0 {
        let mode = file.mode() & 0o777;
        return Err(DeskError::Cannot(format!(
            "config file {shown} can be written by others (mode {mode:o}), and {why}: pbem \
             refuses it until it is yours alone (`chmod 600 {shown}`, and read it over)"
        )));
    }
    let Some(folder) = real.parent() else {
        return Ok(());
    };
    let holder = std::fs::metadata(folder).map_err(io_error(folder))?;
    let sticky = holder.mode() & 0o1000 != 0;
    if holder.uid() != user && holder.uid() != 0 && !sticky {
        return Err(DeskError::Cannot(format!(
            "config file {shown} is in {}, a folder of another user (uid {}) who could put \
             another file in its place, and {why}: keep the config in a folder of yours \
             (`--config PATH`, or move it and `chmod 600` it)",
            folder.display(),
            holder.uid()
        )));
    }
    if holder.mode() & 0o022 != 0 && !sticky {
        let mode = holder.mode() & 0o777;
        return Err(DeskError::Cannot(format!(
            "config file {shown} is in {}, a folder others can write (mode {mode:o}) and so \
             put another file in its place, and {why}: `chmod go-w {}` (and `chmod 600 {shown}`)",
            folder.display(),
            folder.display()
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_only_yours(_path: &Path) -> Result<(), DeskError> {
    Ok(())
}

/// How long to wait for another pbem: `PBEM_LOCK_WAIT` seconds, else 5.
fn lock_wait() -> Result<Duration, DeskError> {
    match std::env::var("PBEM_LOCK_WAIT") {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                DeskError::Cannot(format!(
                    "PBEM_LOCK_WAIT=\"{text}\" is not a number of seconds"
                ))
            }),
        _ => Ok(Duration::from_secs(5)),
    }
}

/// `count` random bytes from the operating system.
pub fn random_bytes(count: usize) -> Result<Vec<u8>, DeskError> {
    let mut bytes = vec![0; count];
    getrandom::fill(&mut bytes)
        .map_err(|error| DeskError::Cannot(format!("no randomness from the system: {error}")))?;
    Ok(bytes)
}
