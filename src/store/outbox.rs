//! The outbox: mails that are composed but not yet delivered. Each is a pair of files,
//! `<game id>.<ply>.eml` (the message) and `<game id>.<ply>.envelope` (the sender and
//! recipients, one address a line). The message is written first and the envelope last;
//! on delivery the message is removed first and the envelope last. So a crash leaves at
//! worst a message without its envelope (a mail not yet complete: [`Outbox::orphans`]
//! finds it at the next start and the envelope is made again from its headers) or an
//! envelope without its message (a mail already delivered: [`Outbox::orphans`] removes
//! it). A mail is never lost and never sent twice by a retry. A newer mail for the same
//! game and ply replaces the older one.
//!
//! pbem writes only regular files here, so anything else named like a mail's file (a
//! symbolic link another local user planted, dangling or not, a folder) is never read,
//! followed, written through or removed: [`Outbox::pending`] and [`Outbox::orphans`] pass
//! it by (the second names it, for the start to tell once, with the command that removes
//! it), and [`Outbox::put`] and [`Outbox::adopt`] refuse to write over it. A mail whose
//! other file is such a thing waits, untouched, until it is removed.

use std::fs;
use std::path::{Path, PathBuf};

use super::{StoreError, hook, write_atomically};

/// A mail waiting in the outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The message file.
    pub message: PathBuf,
    /// The envelope file.
    pub envelope: PathBuf,
    /// The game it belongs to.
    pub game_id: String,
    /// The number of turns of the record it carries.
    pub ply: u32,
    /// The envelope sender.
    pub from: String,
    /// The recipients.
    pub to: Vec<String>,
}

/// The outbox folder.
#[derive(Clone, Debug)]
pub struct Outbox {
    dir: PathBuf,
}

/// What a crash or another user left in the outbox, as [`Outbox::orphans`] finds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Orphans {
    /// Messages without their envelope (mails being put in): give each its envelope with
    /// [`Outbox::adopt`].
    pub messages: Vec<PathBuf>,
    /// Files named like a mail's that are not regular files (a symbolic link, dangling
    /// or not, a folder), left as they are: the player removes them.
    pub strangers: Vec<PathBuf>,
}

/// Whether `path` is a regular file itself (not a symbolic link to one).
fn is_regular(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_file())
}

/// Refuses `path` when something other than a regular file is there (a symbolic link,
/// dangling or not): pbem never writes through it.
fn check_not_stranger(path: &Path) -> Result<(), StoreError> {
    match fs::symlink_metadata(path) {
        Ok(metadata) if !metadata.file_type().is_file() => {
            Err(StoreError::OutboxStranger(path.display().to_string()))
        }
        _ => Ok(()),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.display().to_string(),
        source,
    }
}

impl Outbox {
    /// The outbox in `dir` (created when the first mail is put in).
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> Outbox {
        Outbox { dir: dir.into() }
    }

    /// Puts a mail in the outbox.
    pub fn put(
        &self,
        game_id: &str,
        ply: u32,
        from: &str,
        to: &[String],
        message: &[u8],
    ) -> Result<Pending, StoreError> {
        if game_id.is_empty()
            || !game_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Err(StoreError::BadId(game_id.to_owned()));
        }
        fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let message_path = self.dir.join(format!("{game_id}.{ply}.eml"));
        check_not_stranger(&message_path)?;
        check_not_stranger(&message_path.with_extension("envelope"))?;
        write_atomically(&message_path, message).map_err(io(&message_path))?;
        hook::pause_at("outbox");
        self.adopt(&message_path, from, to)
    }

    /// Writes the envelope of a message already in the outbox (a new one, or one whose
    /// envelope a crash prevented), which makes it pending. Refused when the message or
    /// its envelope is not a regular file (a symbolic link).
    pub fn adopt(
        &self,
        message_path: &Path,
        from: &str,
        to: &[String],
    ) -> Result<Pending, StoreError> {
        let stem = message_path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or_default();
        let Some((game_id, ply)) = stem
            .rsplit_once('.')
            .and_then(|(id, ply)| Some((id, ply.parse::<u32>().ok()?)))
        else {
            return Err(StoreError::BadId(stem.to_owned()));
        };
        let envelope_path = message_path.with_extension("envelope");
        check_not_stranger(message_path)?;
        check_not_stranger(&envelope_path)?;
        let mut envelope = format!("{from}\n");
        for address in to {
            envelope.push_str(address);
            envelope.push('\n');
        }
        write_atomically(&envelope_path, envelope.as_bytes()).map_err(io(&envelope_path))?;
        Ok(Pending {
            message: message_path.to_path_buf(),
            envelope: envelope_path,
            game_id: game_id.to_owned(),
            ply,
            from: from.to_owned(),
            to: to.to_vec(),
        })
    }

    /// The mails waiting, oldest game and ply first: pairs of regular files (a symbolic
    /// link is passed by, never followed).
    pub fn pending(&self) -> Result<Vec<Pending>, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(io(&self.dir)(error)),
        };
        let mut pending = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io(&self.dir))?;
            let envelope = entry.path();
            if envelope
                .extension()
                .is_none_or(|extension| extension != "envelope")
                || !entry.file_type().map_err(io(&envelope))?.is_file()
            {
                continue;
            }
            let message = envelope.with_extension("eml");
            let Some(stem) = envelope.file_stem().and_then(|stem| stem.to_str()) else {
                continue;
            };
            let Some((game_id, ply)) = stem.rsplit_once('.') else {
                continue;
            };
            let Ok(ply) = ply.parse() else {
                continue;
            };
            if !is_regular(&message) {
                continue;
            }
            let text = fs::read_to_string(&envelope).map_err(io(&envelope))?;
            let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
            let Some(from) = lines.next() else {
                continue;
            };
            pending.push(Pending {
                message,
                game_id: game_id.to_owned(),
                ply,
                from: from.to_owned(),
                to: lines.map(str::to_owned).collect(),
                envelope,
            });
        }
        pending.sort_by(|a, b| (&a.game_id, a.ply).cmp(&(&b.game_id, b.ply)));
        Ok(pending)
    }

    /// The message of a pending mail.
    pub fn message(&self, pending: &Pending) -> Result<Vec<u8>, StoreError> {
        fs::read(&pending.message).map_err(io(&pending.message))
    }

    /// Removes a delivered mail: its message first, then its envelope.
    pub fn delivered(&self, pending: &Pending) -> Result<(), StoreError> {
        for path in [&pending.message, &pending.envelope] {
            match fs::remove_file(path) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io(path)(error));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// What a crash left half-done: removes envelopes whose message is gone (those mails
    /// were delivered) and returns the messages that have no envelope (those mails were
    /// being put in; give each its envelope with [`Outbox::adopt`]), and the files named
    /// like a mail's that are not regular files, which it leaves as they are (a mail whose
    /// other file is one of them is left too).
    pub fn orphans(&self) -> Result<Orphans, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Orphans::default());
            }
            Err(error) => return Err(io(&self.dir)(error)),
        };
        let mut orphans = Orphans::default();
        for entry in entries {
            let entry = entry.map_err(io(&self.dir))?;
            let path = entry.path();
            let partner = match path.extension().and_then(|extension| extension.to_str()) {
                Some("envelope") => path.with_extension("eml"),
                Some("eml") => path.with_extension("envelope"),
                _ => continue,
            };
            if !entry.file_type().map_err(io(&path))?.is_file() {
                orphans.strangers.push(path);
                continue;
            }
            // The partner is looked at, not followed: a link there keeps this file.
            if fs::symlink_metadata(&partner).is_ok() {
                continue;
            }
            if partner
                .extension()
                .is_some_and(|extension| extension == "eml")
            {
                fs::remove_file(&path).map_err(io(&path))?;
            } else {
                orphans.messages.push(path);
            }
        }
        orphans.messages.sort();
        orphans.strangers.sort();
        Ok(orphans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mails_wait_until_delivered_and_a_newer_one_replaces_the_older() {
        let dir = std::env::temp_dir().join(format!("pbem-outbox-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let outbox = Outbox::new(&dir);
        assert!(outbox.pending().unwrap().is_empty());
        let to = vec!["bob@example.org".to_owned()];
        outbox
            .put("g-1", 3, "alice@example.org", &to, b"first")
            .unwrap();
        outbox
            .put("g-1", 3, "alice@example.org", &to, b"second")
            .unwrap();
        outbox
            .put("g-0", 9, "alice@example.org", &to, b"other")
            .unwrap();
        let pending = outbox.pending().unwrap();
        assert_eq!(pending.len(), 2);
        assert_eq!((pending[0].game_id.as_str(), pending[0].ply), ("g-0", 9));
        assert_eq!(outbox.message(&pending[1]).unwrap(), b"second");
        assert_eq!(pending[1].to, to);
        outbox.delivered(&pending[1]).unwrap();
        assert_eq!(outbox.pending().unwrap().len(), 1);
        // A message without its envelope (a crash mid-put) is not pending until adopted;
        // an envelope without its message (a crash mid-delivery) is removed.
        fs::write(dir.join("g-2.1.eml"), "half").unwrap();
        fs::write(dir.join("g-3.1.envelope"), "a@b\nc@d\n").unwrap();
        assert_eq!(outbox.pending().unwrap().len(), 1);
        let orphans = outbox.orphans().unwrap().messages;
        assert_eq!(orphans, vec![dir.join("g-2.1.eml")]);
        assert!(!dir.join("g-3.1.envelope").exists());
        let adopted = outbox.adopt(&orphans[0], "alice@example.org", &to).unwrap();
        assert_eq!((adopted.game_id.as_str(), adopted.ply), ("g-2", 1));
        assert_eq!(outbox.pending().unwrap().len(), 2);
        assert_eq!(outbox.orphans().unwrap(), Orphans::default());
        fs::remove_dir_all(&dir).unwrap();
    }
}
