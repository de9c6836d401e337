//! The player's home for the commands: [`Home`] is the library's ([`crate::desk::Home`]:
//! the config, the folders it names, the data lock, the repair of what a killed pbem
//! left); here are what only the command line decides: `now` (the wall clock, or
//! `PBEM_NOW`), and telling on standard error what opening the home repaired.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::CliError;
use crate::desk::DeskError;
pub use crate::desk::Home;
use crate::store::StoreError;

/// The config file: `--config`, else `$PBEM_CONFIG`, else the per-user config place.
pub fn config_path(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    Ok(crate::desk::config_path(flag)?)
}

/// Opens the home to change it ([`Home::open`]) and tells what it repaired.
pub fn open(flag: Option<&Path>) -> Result<Home, CliError> {
    let home = Home::open(flag)?;
    for line in &home.repaired {
        eprintln!("pbem: {line}");
    }
    Ok(home)
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

impl From<StoreError> for CliError {
    fn from(error: StoreError) -> CliError {
        CliError::from(DeskError::from(error))
    }
}

impl From<DeskError> for CliError {
    fn from(error: DeskError) -> CliError {
        match error {
            DeskError::Cannot(text) => CliError::Usage(text),
            DeskError::Io { path, source } => CliError::Io { path, source },
            // A start that does not read is told with the field it is wrong in.
            DeskError::Position { text, error } => {
                CliError::Reported(super::diagnostic::position_error("--fen", &text, &error))
            }
            DeskError::Turn { id, finding } => super::diagnostic::refused_turn(&id, &finding),
        }
    }
}
