//! The games folder: one `<game id>.pgn` file per game, and beside it the game's local
//! state (`<game id>.state.yaml`, readable by the owner only: it may hold the game's
//! secret).
//!
//! A game file and its state change together through a journal: [`GameFiles::commit`]
//! first writes `<game id>.journal` (the new text and the new state in one file,
//! owner-only), then the game file, then the state, then removes the journal. A crash
//! before the journal is on disk changes nothing; a crash after it is finished by
//! [`GameFiles::recover`] at the next start. So a turn is never saved without the time
//! it arrived, nor the time without the turn.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{hook, write_atomically, write_private};
use crate::notation::{ParseError, Record, parse_record};

/// A game file or the games folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A game file does not read as one record.
    #[error("{path}:{}:{}: {}", .error.span.line, .error.span.column, .error.message)]
    Parse {
        /// The file.
        path: String,
        /// Where and why.
        error: ParseError,
    },
    /// No game matches what the user named.
    #[error(
        "no game \"{0}\" (give a game file, a game id, or the start of one; `pbem status` lists them)"
    )]
    NotFound(String),
    /// What the user named looks like a file's path, and there is no such file.
    #[error(
        "{0}: no such file (give the path of a game file, or a game id or the start of one; `pbem status` lists your games)"
    )]
    NoFile(String),
    /// Several games match a prefix.
    #[error("\"{name}\" could be any of {}", .candidates.join(", "))]
    Ambiguous {
        /// What the user named.
        name: String,
        /// The ids it matches.
        candidates: Vec<String>,
    },
    /// A game id that cannot be a file name.
    #[error("\"{0}\" is not a usable game id (letters, digits, '.', '_' and '-' only)")]
    BadId(String),
    /// Something other than a regular file (a symbolic link) where the outbox keeps a
    /// mail's file.
    #[error(
        "{0} is a symbolic link (or not a regular file) where pbem keeps an outbox mail: pbem never follows, writes through or removes it, so it is left as it is, and what it points to too (remove it: rm '{0}')"
    )]
    OutboxStranger(String),
    /// The local state file does not read.
    #[error("{path}: {message}")]
    State {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// What a player's copy of a game knows that the record does not.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalState {
    /// When the opponent's latest turn (or the game) reached this player: the start of
    /// their reflection time, written into the stamp of their next turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<DateTime<Utc>>,
    /// The game's shared secret, hex-encoded, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Whether a game with a secret takes turns typed by hand in a reply (which carry no
    /// authentication code): `pbem new --allow-typed`, `pbem secret --allow-typed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_typed: bool,
    /// The seed of the player's hash chain for fair dice (hex), never mailed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chance_seed: Option<String>,
    /// Whether the game is over and this player acted last (its result, or its seed of
    /// a fair deal added on the opponent's result) without having mailed it yet: `pbem
    /// status` lists the game until `pbem send` puts that last mail in the outbox.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub last_mail_owed: bool,
}

/// A step of a game not yet finished: the new text and state, either left out when it
/// does not change.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Journal {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    game: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    state: Option<LocalState>,
}

/// The folder of game files.
#[derive(Clone, Debug)]
pub struct GameFiles {
    dir: PathBuf,
}

impl GameFiles {
    /// The games in `dir` (created when a game is first saved).
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> GameFiles {
        GameFiles { dir: dir.into() }
    }

    /// The folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the game with this id is kept.
    pub fn path(&self, id: &str) -> Result<PathBuf, StoreError> {
        check_id(id)?;
        Ok(self.dir.join(format!("{id}.pgn")))
    }

    fn state_path(&self, id: &str) -> Result<PathBuf, StoreError> {
        check_id(id)?;
        Ok(self.dir.join(format!("{id}.state.yaml")))
    }

    /// Finds a game by a file path, an id, or the unique start of an id.
    pub fn find(&self, name: &str) -> Result<PathBuf, StoreError> {
        let as_path = Path::new(name);
        if as_path.is_file() {
            return Ok(as_path.to_path_buf());
        }
        if check_id(name).is_ok() {
            let exact = self.dir.join(format!("{name}.pgn"));
            if exact.is_file() {
                return Ok(exact);
            }
        }
        let matches: Vec<PathBuf> = self
            .list()?
            .into_iter()
            .filter(|path| {
                path.file_stem()
                    .and_then(|stem| stem.to_str())
                    .is_some_and(|stem| stem.starts_with(name))
            })
            .collect();
        match matches.len() {
            0 if looks_like_a_path(name) => Err(StoreError::NoFile(name.to_owned())),
            0 => Err(StoreError::NotFound(name.to_owned())),
            1 => Ok(matches.into_iter().next().unwrap_or_default()),
            _ => Err(StoreError::Ambiguous {
                name: name.to_owned(),
                candidates: matches
                    .iter()
                    .filter_map(|path| path.file_stem()?.to_str().map(str::to_owned))
                    .collect(),
            }),
        }
    }

    /// Every game file in the folder, sorted (none when the folder does not exist yet).
    pub fn list(&self) -> Result<Vec<PathBuf>, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(io(&self.dir)(error)),
        };
        let mut files = Vec::new();
        for entry in entries {
            let path = entry.map_err(io(&self.dir))?.path();
            if path.extension().is_some_and(|extension| extension == "pgn") {
                files.push(path);
            }
        }
        files.sort();
        Ok(files)
    }

    /// Reads a game file.
    pub fn load(&self, path: &Path) -> Result<Record, StoreError> {
        let text = fs::read_to_string(path).map_err(io(path))?;
        parse_record(&text).map_err(|error| StoreError::Parse {
            path: path.display().to_string(),
            error,
        })
    }

    /// Writes a game's text to its file atomically, creating the folder if needed.
    pub fn save(&self, id: &str, text: &str) -> Result<PathBuf, StoreError> {
        let path = self.path(id)?;
        fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        write_atomically(&path, text.as_bytes()).map_err(io(&path))?;
        Ok(path)
    }

    /// A game's local state (empty when there is none yet).
    pub fn state(&self, id: &str) -> Result<LocalState, StoreError> {
        let path = self.state_path(id)?;
        match fs::read_to_string(&path) {
            Ok(text) => serde_yaml::from_str(&text).map_err(|error| StoreError::State {
                path: path.display().to_string(),
                message: error.to_string(),
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(LocalState::default()),
            Err(error) => Err(io(&path)(error)),
        }
    }

    fn journal_path(&self, id: &str) -> Result<PathBuf, StoreError> {
        check_id(id)?;
        Ok(self.dir.join(format!("{id}.journal")))
    }

    /// Writes a game's new text and new state (either may be left unchanged) as one step,
    /// through the game's journal; returns the game file's path.
    pub fn commit(
        &self,
        id: &str,
        text: Option<&str>,
        state: Option<&LocalState>,
    ) -> Result<PathBuf, StoreError> {
        let journal_path = self.journal_path(id)?;
        fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let journal = Journal {
            game: text.map(str::to_owned),
            state: state.cloned(),
        };
        let yaml = serde_yaml::to_string(&journal).map_err(|error| StoreError::State {
            path: journal_path.display().to_string(),
            message: error.to_string(),
        })?;
        write_private(&journal_path, yaml.as_bytes()).map_err(io(&journal_path))?;
        hook::pause_at("journal");
        self.apply(id, &journal)?;
        fs::remove_file(&journal_path).map_err(io(&journal_path))?;
        self.path(id)
    }

    fn apply(&self, id: &str, journal: &Journal) -> Result<(), StoreError> {
        if let Some(text) = &journal.game {
            self.save(id, text)?;
        }
        hook::pause_at("game");
        if let Some(state) = &journal.state {
            self.save_state(id, state)?;
        }
        Ok(())
    }

    /// Finishes the steps a killed pbem left in journals; returns the games repaired.
    /// Call it only while holding the data lock.
    pub fn recover(&self) -> Result<Vec<String>, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(io(&self.dir)(error)),
        };
        let mut journals = Vec::new();
        for entry in entries {
            let path = entry.map_err(io(&self.dir))?.path();
            if path
                .extension()
                .is_some_and(|extension| extension == "journal")
            {
                journals.push(path);
            }
        }
        journals.sort();
        let mut repaired = Vec::new();
        for path in journals {
            let Some(id) = path.file_stem().and_then(|stem| stem.to_str()) else {
                continue;
            };
            let text = fs::read_to_string(&path).map_err(io(&path))?;
            let journal: Journal =
                serde_yaml::from_str(&text).map_err(|error| StoreError::State {
                    path: path.display().to_string(),
                    message: error.to_string(),
                })?;
            self.apply(id, &journal)?;
            fs::remove_file(&path).map_err(io(&path))?;
            repaired.push(id.to_owned());
        }
        Ok(repaired)
    }

    /// Writes a game's local state, readable by the owner only.
    pub fn save_state(&self, id: &str, state: &LocalState) -> Result<(), StoreError> {
        let path = self.state_path(id)?;
        fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let text = serde_yaml::to_string(state).map_err(|error| StoreError::State {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
        write_private(&path, text.as_bytes()).map_err(io(&path))
    }
}

/// Whether what the user named is meant as a file's path rather than a game id: it has a
/// `/` (or the platform's separator) or ends like a game file (`.pgn`, `.pgn.gz`, ...).
#[must_use]
pub fn looks_like_a_path(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    name.contains('/')
        || name.contains(std::path::MAIN_SEPARATOR)
        || [".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2"]
            .iter()
            .any(|ending| lower.ends_with(ending))
}

fn check_id(id: &str) -> Result<(), StoreError> {
    let usable = !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if usable {
        Ok(())
    } else {
        Err(StoreError::BadId(id.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pbem-games-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn games_are_saved_found_and_loaded() {
        let dir = scratch("find");
        let games = GameFiles::new(&dir);
        assert!(games.list().unwrap().is_empty());
        let path = games.save("g-1-aa", "[Event \"x\"]\n\n1. e4 *\n").unwrap();
        games.save("g-1-ab", "[Event \"y\"]\n\n*\n").unwrap();
        assert_eq!(games.find("g-1-aa").unwrap(), path);
        assert_eq!(games.find(path.to_str().unwrap()).unwrap(), path);
        assert!(matches!(
            games.find("g-1-a"),
            Err(StoreError::Ambiguous { .. })
        ));
        assert!(matches!(
            games.find("nothing"),
            Err(StoreError::NotFound(_))
        ));
        for path in ["nothere.pgn", "games/g-1-aa", "old.PGN.gz"] {
            assert!(
                matches!(games.find(path), Err(StoreError::NoFile(_))),
                "{path}"
            );
        }
        assert_eq!(games.load(&path).unwrap().tag("Event"), Some("x"));
        assert!(matches!(
            games.save("../escape", ""),
            Err(StoreError::BadId(_))
        ));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_broken_game_file_is_a_located_error() {
        let dir = scratch("broken");
        let games = GameFiles::new(&dir);
        let path = games.save("g-2", "[Event \"x\"\n\n1. e4 *\n").unwrap();
        let error = games.load(&path).unwrap_err().to_string();
        assert!(error.contains("g-2.pgn:1:"), "{error}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_journal_left_behind_is_finished_by_recover() {
        let dir = scratch("journal");
        let games = GameFiles::new(&dir);
        let state = LocalState {
            received: Some(DateTime::from_timestamp(1_800_000_000, 0).unwrap()),
            secret: None,
            allow_typed: false,
            chance_seed: None,
            last_mail_owed: false,
        };
        games
            .commit("g-4", Some("[Event \"x\"]\n\n*\n"), Some(&state))
            .unwrap();
        assert!(!dir.join("g-4.journal").exists());
        assert_eq!(games.state("g-4").unwrap(), state);
        // As if killed after the journal: nothing else written yet.
        let later = LocalState {
            received: Some(DateTime::from_timestamp(1_800_000_600, 0).unwrap()),
            secret: None,
            allow_typed: false,
            chance_seed: None,
            last_mail_owed: false,
        };
        let journal = Journal {
            game: Some("[Event \"y\"]\n\n*\n".to_owned()),
            state: Some(later.clone()),
        };
        fs::write(
            dir.join("g-4.journal"),
            serde_yaml::to_string(&journal).unwrap(),
        )
        .unwrap();
        assert_eq!(games.recover().unwrap(), vec!["g-4".to_owned()]);
        assert_eq!(games.state("g-4").unwrap(), later);
        let path = games.path("g-4").unwrap();
        assert_eq!(games.load(&path).unwrap().tag("Event"), Some("y"));
        assert!(games.recover().unwrap().is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn local_state_is_private_and_round_trips() {
        let dir = scratch("state");
        let games = GameFiles::new(&dir);
        assert_eq!(games.state("g-3").unwrap(), LocalState::default());
        let state = LocalState {
            received: Some(DateTime::from_timestamp(1_800_000_000, 0).unwrap()),
            secret: Some("00ff".to_owned()),
            allow_typed: true,
            chance_seed: None,
            last_mail_owed: false,
        };
        games.save_state("g-3", &state).unwrap();
        assert_eq!(games.state("g-3").unwrap(), state);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.join("g-3.state.yaml"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
