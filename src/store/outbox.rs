//! The outbox: mails that are composed but not yet delivered. Each is a pair of files,
//! `<game id>.<ply>.eml` (the message) and `<game id>.<ply>.envelope` (the sender and
//! recipients, one address a line). The message is written first and the envelope last;
//! on delivery the message is removed first and the envelope last. So a crash leaves at
//! worst a message without its envelope (a mail not yet complete: [`Outbox::orphans`]
//! finds it at the next start and the envelope is made again from its headers) or an
//! envelope without its message (a mail already delivered: [`Outbox::orphans`] removes
//! it). A mail is never lost and never sent twice by a retry. A newer mail for the same
//! game and ply replaces the older one.

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
        write_atomically(&message_path, message).map_err(io(&message_path))?;
        hook::pause_at("outbox");
        self.adopt(&message_path, from, to)
    }

    /// Writes the envelope of a message already in the outbox (a new one, or one whose
    /// envelope a crash prevented), which makes it pending.
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

    /// The mails waiting, oldest game and ply first.
    pub fn pending(&self) -> Result<Vec<Pending>, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(io(&self.dir)(error)),
        };
        let mut pending = Vec::new();
        for entry in entries {
            let envelope = entry.map_err(io(&self.dir))?.path();
            if envelope
                .extension()
                .is_none_or(|extension| extension != "envelope")
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
            if !message.is_file() {
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
    /// being put in; give each its envelope with [`Outbox::adopt`]).
    pub fn orphans(&self) -> Result<Vec<PathBuf>, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(io(&self.dir)(error)),
        };
        let mut messages = Vec::new();
        for entry in entries {
            let path = entry.map_err(io(&self.dir))?.path();
            let extension = path.extension().and_then(|extension| extension.to_str());
            if extension == Some("envelope") && !path.with_extension("eml").exists() {
                fs::remove_file(&path).map_err(io(&path))?;
            } else if extension == Some("eml") && !path.with_extension("envelope").exists() {
                messages.push(path);
            }
        }
        messages.sort();
        Ok(messages)
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
        let orphans = outbox.orphans().unwrap();
        assert_eq!(orphans, vec![dir.join("g-2.1.eml")]);
        assert!(!dir.join("g-3.1.envelope").exists());
        let adopted = outbox.adopt(&orphans[0], "alice@example.org", &to).unwrap();
        assert_eq!((adopted.game_id.as_str(), adopted.ply), ("g-2", 1));
        assert_eq!(outbox.pending().unwrap().len(), 2);
        assert!(outbox.orphans().unwrap().is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }
}
