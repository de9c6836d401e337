//! The player's home: the config file and what it names (games folder, outbox), loaded
//! once for the commands that play by mail, and the current time. A config file that
//! others can write (or replace) is refused, as ssh refuses its own: see
//! `check_only_yours`.
//!
//! The commands that change the player's data open the home with [`Home::open`]: it
//! takes the data lock (waiting up to `PBEM_LOCK_WAIT` seconds, 5 by default, for
//! another pbem to finish), then repairs what a killed pbem left: it finishes the game
//! steps left in journals, gives outbox messages whose envelope was not written their
//! envelope again (so `pbem send --retry` sends them), puts in the outbox the mail of a
//! conditional reply a killed pbem played but did not mail (`conditional::repair`), and
//! removes stale temporary files.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::CliError;
use crate::config::Settings;
use crate::store::lock::{DataLock, LockError};
use crate::store::{GameFiles, Outbox, StoreError};

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
    /// The data lock, for a home opened to change it (held until the home is dropped).
    _lock: Option<DataLock>,
}

/// The config file: `--config`, else `$PBEM_CONFIG`, else the per-user config place.
pub fn config_path(flag: Option<&Path>) -> Result<PathBuf, CliError> {
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
        None => Err(CliError::Usage(
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
    /// Loads the config file.
    pub fn load(flag: Option<&Path>) -> Result<Home, CliError> {
        let path = config_path(flag)?;
        let text = std::fs::read_to_string(&path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                CliError::Usage(format!(
                    "no config file at {} (create one with `pbem config init --name NAME --email ADDRESS`)",
                    path.display()
                ))
            } else {
                CliError::Io {
                    path: path.display().to_string(),
                    source,
                }
            }
        })?;
        check_only_yours(&path)?;
        let settings = Settings::from_yaml(&text, &path, home_dir().as_deref())
            .map_err(|error| CliError::Usage(error.to_string()))?;
        Ok(Home {
            games: GameFiles::new(&settings.games),
            outbox: Outbox::new(&settings.outbox),
            path,
            settings,
            _lock: None,
        })
    }

    /// Loads the config file, takes the player's data lock and repairs what an
    /// interrupted pbem left (see the module's text).
    pub fn open(flag: Option<&Path>) -> Result<Home, CliError> {
        let mut home = Home::load(flag)?;
        let lock =
            DataLock::acquire(home.games.dir(), lock_wait()?).map_err(|error| match error {
                LockError::Busy { .. } => CliError::Usage(error.to_string()),
                LockError::Io { path, source } => CliError::Io { path, source },
            })?;
        home._lock = Some(lock);
        home.repair()?;
        crate::store::hook::pause_at("locked");
        Ok(home)
    }

    fn repair(&self) -> Result<(), CliError> {
        for id in self.games.recover()? {
            eprintln!("pbem: {id}: finished saving a turn that an interrupted pbem had begun");
        }
        for message in self.outbox.orphans()? {
            let bytes = std::fs::read(&message).map_err(|source| CliError::Io {
                path: message.display().to_string(),
                source,
            })?;
            match crate::mail::envelope_of(&bytes) {
                Some((from, to)) => {
                    let pending = self.outbox.adopt(&message, &from, &to)?;
                    eprintln!(
                        "pbem: {} (ply {}): a mail an interrupted pbem was putting in the outbox waits there again; `pbem send --retry` sends it",
                        pending.game_id, pending.ply
                    );
                }
                None => eprintln!(
                    "pbem: {}: an outbox mail without its envelope whose addresses cannot be read; left as it is",
                    message.display()
                ),
            }
        }
        super::conditional::repair(self)?;
        let mut removed = 0;
        for folder in [self.games.dir(), self.settings.outbox.as_path()] {
            removed +=
                crate::store::remove_stale_temporaries(folder).map_err(|source| CliError::Io {
                    path: folder.display().to_string(),
                    source,
                })?;
        }
        if removed > 0 {
            eprintln!(
                "pbem: removed {removed} temporary file{} left by an interrupted pbem",
                if removed == 1 { "" } else { "s" }
            );
        }
        Ok(())
    }
}

/// Refuses a config file that someone other than the user (or root) owns or may write,
/// or that lies in a folder others may write without the sticky bit (so they could put
/// another file in its place), as ssh does with its own files: the config names the
/// `password_command` that pbem runs, the mail servers it gives passwords to and the
/// folders it writes. Links are followed: the file read and its real folder are checked.
#[cfg(unix)]
fn check_only_yours(path: &Path) -> Result<(), CliError> {
    use std::os::unix::fs::MetadataExt;
    let io_error = |at: &Path| {
        let at = at.display().to_string();
        move |source| CliError::Io { path: at, source }
    };
    let real = std::fs::canonicalize(path).map_err(io_error(path))?;
    let file = std::fs::metadata(&real).map_err(io_error(&real))?;
    let user = rustix::process::geteuid().as_raw();
    let shown = path.display();
    let why = "pbem runs its password_command and trusts the servers and folders it names";
    if file.uid() != user && file.uid() != 0 {
        return Err(CliError::Usage(format!(
            "config file {shown} belongs to another user (uid {}), and {why}: pbem reads only \
             a config file of yours (copy it to a file of your own, then `chmod 600` it)",
            file.uid()
        )));
    }
    if file.mode() & 0o022 != 0 {
        let mode = file.mode() & 0o777;
        return Err(CliError::Usage(format!(
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
        return Err(CliError::Usage(format!(
            "config file {shown} is in {}, a folder of another user (uid {}) who could put \
             another file in its place, and {why}: keep the config in a folder of yours \
             (`--config PATH`, or move it and `chmod 600` it)",
            folder.display(),
            holder.uid()
        )));
    }
    if holder.mode() & 0o022 != 0 && !sticky {
        let mode = holder.mode() & 0o777;
        return Err(CliError::Usage(format!(
            "config file {shown} is in {}, a folder others can write (mode {mode:o}) and so \
             put another file in its place, and {why}: `chmod go-w {}` (and `chmod 600 {shown}`)",
            folder.display(),
            folder.display()
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_only_yours(_path: &Path) -> Result<(), CliError> {
    Ok(())
}

/// How long to wait for another pbem: `PBEM_LOCK_WAIT` seconds, else 5.
fn lock_wait() -> Result<Duration, CliError> {
    match std::env::var("PBEM_LOCK_WAIT") {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "PBEM_LOCK_WAIT=\"{text}\" is not a number of seconds"
                ))
            }),
        _ => Ok(Duration::from_secs(5)),
    }
}

/// Now: the wall clock, or `PBEM_NOW` (an RFC 3339 instant) for tests and for replaying
/// what happened at a given time.
pub fn now() -> Result<DateTime<Utc>, CliError> {
    match std::env::var("PBEM_NOW") {
        Ok(text) if !text.trim().is_empty() => {
            crate::clock::parse_instant(&text).ok_or_else(|| {
                CliError::Usage(format!(
                    "PBEM_NOW=\"{text}\" is not an RFC 3339 instant like 2026-11-22T10:00:00Z"
                ))
            })
        }
        _ => Ok(Utc::now()),
    }
}

/// `count` random bytes from the operating system.
pub fn random_bytes(count: usize) -> Result<Vec<u8>, CliError> {
    let mut bytes = vec![0; count];
    getrandom::fill(&mut bytes)
        .map_err(|error| CliError::Usage(format!("no randomness from the system: {error}")))?;
    Ok(bytes)
}

impl From<StoreError> for CliError {
    fn from(error: StoreError) -> CliError {
        match error {
            StoreError::Io { path, source } => CliError::Io { path, source },
            other => CliError::Usage(other.to_string()),
        }
    }
}
