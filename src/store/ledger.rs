//! The mail ledger: what `pbem receive` has done with each pbem mail it has seen, so that
//! a mail is judged once, a refused mail is reported once and listed by `pbem status`
//! until the player dismisses it, and mail that is not for pbem is never touched.
//!
//! It is the file `mail-ledger.yaml` in the games folder (owner-only, written atomically):
//! one entry per pbem mail (its Message-ID, or the SHA-256 of its bytes when it has none;
//! the file it was read from; the game and the number of turns of its record; what was
//! done and why), and the Maildir names of the mails found not to be pbem mail, so that
//! they are not read again.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{StoreError, write_private};

/// The ledger's file name in the games folder.
pub const LEDGER_FILE: &str = "mail-ledger.yaml";

/// What was done with a mail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Its new turn, game or events were saved.
    Taken,
    /// It held nothing new (a repeated delivery, an older state of the game).
    Known,
    /// It was refused, for the entry's reason.
    Refused,
}

/// One pbem mail seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The Message-ID (with its angle brackets), or `sha256:<hex>` of the bytes.
    pub key: String,
    /// Where it was read: a Maildir mail's unique name (its file name without the flags,
    /// which mail clients change), or the path given to `pbem receive`.
    pub file: String,
    /// The game it names, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// What was done.
    pub outcome: Outcome,
    /// Why it was refused, or what it held.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
    /// Whether the player has dismissed a refusal (`pbem dismiss`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dismissed: bool,
}

impl Entry {
    /// A short handle for `pbem dismiss`: the first 8 hex digits of the key's SHA-256.
    #[must_use]
    pub fn handle(&self) -> String {
        let digest = Sha256::digest(self.key.as_bytes());
        digest[..4]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }

    /// A refusal the player has not dismissed.
    #[must_use]
    pub fn open_refusal(&self) -> bool {
        self.outcome == Outcome::Refused && !self.dismissed
    }
}

/// The ledger's content.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// Every pbem mail seen, in the order first seen.
    #[serde(default)]
    pub mails: Vec<Entry>,
    /// Maildir unique names of mails that are not pbem mail.
    #[serde(default)]
    pub skipped: BTreeSet<String>,
}

/// The key of a mail without a Message-ID.
#[must_use]
pub fn content_key(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

fn path_in(folder: &Path) -> PathBuf {
    folder.join(LEDGER_FILE)
}

impl Ledger {
    /// Reads the ledger of a games folder (empty when there is none yet).
    pub fn load(folder: &Path) -> Result<Ledger, StoreError> {
        let path = path_in(folder);
        match fs::read_to_string(&path) {
            Ok(text) => serde_yaml::from_str(&text).map_err(|error| StoreError::State {
                path: path.display().to_string(),
                message: error.to_string(),
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Ledger::default()),
            Err(source) => Err(StoreError::Io {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// Writes the ledger, owner-only.
    pub fn save(&self, folder: &Path) -> Result<(), StoreError> {
        let path = path_in(folder);
        let io = |source| StoreError::Io {
            path: path.display().to_string(),
            source,
        };
        fs::create_dir_all(folder).map_err(io)?;
        let text = serde_yaml::to_string(self).map_err(|error| StoreError::State {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
        write_private(&path, text.as_bytes()).map_err(io)
    }

    /// The entry read from this file, if any.
    #[must_use]
    pub fn by_file(&self, file: &str) -> Option<&Entry> {
        self.mails.iter().rev().find(|entry| entry.file == file)
    }

    /// The latest entry with this key, if any.
    #[must_use]
    pub fn by_key(&self, key: &str) -> Option<&Entry> {
        self.mails.iter().rev().find(|entry| entry.key == key)
    }

    /// Records what was done with a mail, replacing the entry of the same file and key.
    pub fn record(&mut self, entry: Entry) {
        if let Some(old) = self
            .mails
            .iter_mut()
            .find(|old| old.file == entry.file && old.key == entry.key)
        {
            *old = entry;
        } else {
            self.mails.push(entry);
        }
    }

    /// The refusals not dismissed yet.
    pub fn open_refusals(&self) -> impl Iterator<Item = &Entry> {
        self.mails.iter().filter(|entry| entry.open_refusal())
    }

    /// Dismisses the open refusals whose handle is `handle` (all of them for `None`);
    /// returns how many.
    pub fn dismiss(&mut self, handle: Option<&str>) -> usize {
        let mut count = 0;
        for entry in &mut self.mails {
            if entry.open_refusal() && handle.is_none_or(|handle| entry.handle() == handle) {
                entry.dismissed = true;
                count += 1;
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, file: &str, outcome: Outcome) -> Entry {
        Entry {
            key: key.to_owned(),
            file: file.to_owned(),
            game: Some("g-1".to_owned()),
            outcome,
            reason: "why".to_owned(),
            at: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            dismissed: false,
        }
    }

    #[test]
    fn entries_round_trip_and_refusals_are_dismissed_by_handle() {
        let dir = std::env::temp_dir().join(format!("pbem-ledger-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let mut ledger = Ledger::load(&dir).unwrap();
        assert_eq!(ledger, Ledger::default());
        ledger.record(entry("<a@x>", "1.a", Outcome::Taken));
        ledger.record(entry("<b@x>", "2.b", Outcome::Refused));
        ledger.record(entry("<c@x>", "3.c", Outcome::Refused));
        ledger.record(entry("<c@x>", "3.c", Outcome::Refused));
        ledger.skipped.insert("4.d".to_owned());
        ledger.save(&dir).unwrap();
        let mut again = Ledger::load(&dir).unwrap();
        assert_eq!(again, ledger);
        assert_eq!(again.mails.len(), 3);
        assert_eq!(again.open_refusals().count(), 2);
        let handle = again.by_key("<b@x>").unwrap().handle();
        assert_eq!(handle.len(), 8);
        assert_eq!(again.dismiss(Some(&handle)), 1);
        assert_eq!(again.dismiss(Some(&handle)), 0);
        assert_eq!(again.open_refusals().count(), 1);
        assert_eq!(again.dismiss(None), 1);
        assert_eq!(again.by_file("1.a").unwrap().outcome, Outcome::Taken);
        assert!(content_key(b"x").starts_with("sha256:"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
