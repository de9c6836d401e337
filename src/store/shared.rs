//! A folder shared by two players' homes (synced by Syncthing or Dropbox, on NFS, or one
//! folder for two homes on one machine), through which `pbem send` delivers mail and
//! `pbem sync` takes it in, with no mail server.
//!
//! The folder is a Maildir when it has the three folders `new/`, `cur/` and `tmp/`, and a
//! plain folder of `.eml` files otherwise. It is never created by pbem: a folder that is
//! not there is a share that is not mounted or synced yet, and a mail written into a
//! folder made in its place would never reach the opponent.
//!
//! A delivery is atomic and never follows a link that someone else planted in the folder:
//! the message is written to a temporary file created exclusively (`O_EXCL`, a random
//! name: in `tmp/` for a Maildir, as `.pbem-XXXXXX.tmp` in a plain folder, which readers
//! skip), flushed, then linked to its final name without replacing anything that is
//! there (`persist_noclobber`), so a link at that name makes the delivery fail rather
//! than write elsewhere. A Maildir's `new/`, `cur/` or `tmp/` that is a symbolic link is
//! refused. Each file name carries a tag of the message's content, so a delivery retried
//! after a crash finds the message already there and does not deliver it twice. A
//! temporary file a killed pbem left is removed by a later delivery once it is 36 hours
//! old (the Maildir rule; a younger one may be the other home's, being written).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::hook;

/// How a shared folder holds its mails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A Maildir: messages arrive in `new/` through `tmp/`; a reader moves them to `cur/`.
    Maildir,
    /// A plain folder of `.eml` files, left in place.
    Plain,
}

impl Layout {
    /// The layout in words: `a Maildir`, `a plain folder`.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Layout::Maildir => "a Maildir",
            Layout::Plain => "a plain folder",
        }
    }
}

/// Why a shared folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SharedError {
    /// The folder is not there.
    #[error("the shared folder {0} does not exist")]
    Missing(String),
    /// The path names something that is not a folder.
    #[error("the shared folder {0} is not a folder")]
    NotAFolder(String),
    /// A Maildir folder that is a symbolic link.
    #[error(
        "{0} is a symbolic link: pbem does not follow links inside a shared folder, where anyone who can write there could have planted them"
    )]
    Link(String),
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// What the operating system said.
        source: io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> SharedError + '_ {
    move |source| SharedError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// A mail delivered into a shared folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// Where it is.
    pub path: PathBuf,
    /// Whether it was already there (delivered by an earlier, interrupted run).
    pub already: bool,
}

/// A folder shared with the opponents.
#[derive(Clone, Debug)]
pub struct SharedFolder {
    dir: PathBuf,
}

impl SharedFolder {
    /// The shared folder at `dir` (the folder itself may be a link the player made).
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> SharedFolder {
        SharedFolder { dir: dir.into() }
    }

    /// The folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the folder is there, and how it holds its mails.
    pub fn layout(&self) -> Result<Layout, SharedError> {
        let shown = || self.dir.display().to_string();
        match fs::metadata(&self.dir) {
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => return Err(SharedError::NotAFolder(shown())),
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Err(SharedError::Missing(shown()));
            }
            Err(error) => return Err(io_error(&self.dir)(error)),
        }
        let subfolders = ["new", "cur", "tmp"].map(|sub| self.dir.join(sub));
        let present = subfolders
            .iter()
            .filter(|path| fs::symlink_metadata(path).is_ok())
            .count();
        if present < subfolders.len() {
            return Ok(Layout::Plain);
        }
        for path in &subfolders {
            let metadata = fs::symlink_metadata(path).map_err(io_error(path))?;
            if metadata.file_type().is_symlink() {
                return Err(SharedError::Link(path.display().to_string()));
            }
            if !metadata.is_dir() {
                return Err(SharedError::NotAFolder(path.display().to_string()));
            }
        }
        Ok(Layout::Maildir)
    }

    /// Delivers a message. `label` names it in a plain folder's file name (the game,
    /// the ply and the recipient, say); only letters, digits and `@._+-` are kept of it.
    /// `stamp` (seconds since 1970) orders the names by the second the mails were sent.
    pub fn deliver(
        &self,
        message: &[u8],
        label: &str,
        stamp: i64,
    ) -> Result<Delivered, SharedError> {
        let layout = self.layout()?;
        let tag = content_tag(message);
        let (temporary_folder, final_folder, name) = match layout {
            Layout::Maildir => {
                // The unique part of a Maildir name: time, process, then the content tag
                // in place of the usual delivery count; the host part is pbem's.
                let name = format!("{stamp}.P{}Q{tag}.pbem", std::process::id());
                (self.dir.join("tmp"), self.dir.join("new"), name)
            }
            Layout::Plain => {
                let label: String = label
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || "@._+-".contains(*c))
                    .collect();
                let name = format!("{stamp}-{label}-{tag}.eml");
                (self.dir.clone(), self.dir.clone(), name)
            }
        };
        if let Some(path) = self.find(layout, &tag)? {
            return Ok(Delivered {
                path,
                already: true,
            });
        }
        remove_abandoned_temporaries(&temporary_folder);
        let mut builder = tempfile::Builder::new();
        builder.prefix(".pbem-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Readable by the other home (the umask decides), as any delivered mail.
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        let mut temporary = builder
            .tempfile_in(&temporary_folder)
            .map_err(io_error(&temporary_folder))?;
        temporary
            .as_file_mut()
            .write_all(message)
            .and_then(|()| temporary.as_file().sync_all())
            .map_err(io_error(temporary.path()))?;
        let target = final_folder.join(name);
        temporary
            .persist_noclobber(&target)
            .map_err(|error| io_error(&target)(error.error))?;
        if let Ok(handle) = fs::File::open(&final_folder) {
            let _ = handle.sync_all();
        }
        hook::pause_at("delivered");
        Ok(Delivered {
            path: target,
            already: false,
        })
    }

    /// The message already delivered with this content tag, if any.
    fn find(&self, layout: Layout, tag: &str) -> Result<Option<PathBuf>, SharedError> {
        let (folders, marker) = match layout {
            Layout::Maildir => (
                vec![self.dir.join("new"), self.dir.join("cur")],
                format!("Q{tag}."),
            ),
            Layout::Plain => (vec![self.dir.clone()], format!("-{tag}.eml")),
        };
        for folder in folders {
            for entry in fs::read_dir(&folder).map_err(io_error(&folder))? {
                let entry = entry.map_err(io_error(&folder))?;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let found = match layout {
                    Layout::Maildir => name.contains(&marker),
                    Layout::Plain => name.ends_with(&marker),
                };
                let regular = entry.file_type().is_ok_and(|kind| kind.is_file());
                if found && regular && !name.starts_with('.') {
                    return Ok(Some(entry.path()));
                }
            }
        }
        Ok(None)
    }

    /// The `.eml` files of a plain folder, by name (by the second they were sent, not
    /// within it: a reader orders each game's mails by what they say): regular files only
    /// (no links, no folders), hidden files (temporaries) skipped.
    pub fn plain_mails(&self) -> Result<Vec<(String, PathBuf)>, SharedError> {
        let mut mails = Vec::new();
        for entry in fs::read_dir(&self.dir).map_err(io_error(&self.dir))? {
            let entry = entry.map_err(io_error(&self.dir))?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with('.') || !name.ends_with(".eml") {
                continue;
            }
            if !entry.file_type().map_err(io_error(&self.dir))?.is_file() {
                continue;
            }
            mails.push((name, entry.path()));
        }
        mails.sort();
        Ok(mails)
    }
}

/// How old a temporary file of a delivery must be to count as abandoned by a killed pbem
/// (the Maildir convention: 36 hours). Younger ones may be the other home's, half
/// written.
const ABANDONED: std::time::Duration = std::time::Duration::from_secs(36 * 60 * 60);

/// Removes pbem's temporary files (`.pbem-*.tmp`, regular files only) older than
/// [`ABANDONED`] from a folder. Best effort: one that cannot be removed (another user's,
/// say) is left.
fn remove_abandoned_temporaries(folder: &Path) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(".pbem-") && name.ends_with(".tmp")) {
            continue;
        }
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        let old = metadata
            .modified()
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age > ABANDONED);
        if metadata.file_type().is_file() && old {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// A short tag of a message's content (16 hex digits of its SHA-256).
fn content_tag(message: &[u8]) -> String {
    Sha256::digest(message)
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pbem-shared-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_delivery_is_made_once_and_found_again() {
        for maildir in [false, true] {
            let dir = scratch(if maildir { "maildir" } else { "plain" });
            if maildir {
                for sub in ["new", "cur", "tmp"] {
                    fs::create_dir(dir.join(sub)).unwrap();
                }
            }
            let folder = SharedFolder::new(&dir);
            let layout = folder.layout().unwrap();
            assert_eq!(layout == Layout::Maildir, maildir);
            let first = folder.deliver(b"mail", "g-1.1-to-b@x/../y", 1).unwrap();
            assert!(!first.already);
            assert_eq!(fs::read(&first.path).unwrap(), b"mail");
            if !maildir {
                let name = first
                    .path
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                assert!(name.starts_with("1-g-1.1-to-b@x..y-"), "{name}");
                assert_eq!(folder.plain_mails().unwrap().len(), 1);
            }
            let again = folder.deliver(b"mail", "g-1.1-to-b@x", 2).unwrap();
            assert_eq!(
                again,
                Delivered {
                    path: first.path.clone(),
                    already: true
                }
            );
            let other = folder.deliver(b"other", "g-1.1-to-b@x", 2).unwrap();
            assert!(!other.already);
            // A temporary file a killed pbem left two days ago goes; a fresh one (the
            // other home's, being written) stays.
            let temporaries = if maildir {
                dir.join("tmp")
            } else {
                dir.clone()
            };
            let (stale, fresh) = (
                temporaries.join(".pbem-old.tmp"),
                temporaries.join(".pbem-new.tmp"),
            );
            fs::write(&fresh, "half").unwrap();
            let file = fs::File::create(&stale).unwrap();
            let two_days = std::time::Duration::from_secs(48 * 60 * 60);
            file.set_modified(std::time::SystemTime::now() - two_days)
                .unwrap();
            folder.deliver(b"third", "g-1.2-to-b@x", 3).unwrap();
            assert!(!stale.exists());
            assert!(fresh.exists());
            fs::remove_dir_all(&dir).unwrap();
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_in_a_shared_folder_are_not_followed() {
        let dir = scratch("links");
        let elsewhere = scratch("links-elsewhere");
        for sub in ["cur", "tmp"] {
            fs::create_dir(dir.join(sub)).unwrap();
        }
        std::os::unix::fs::symlink(&elsewhere, dir.join("new")).unwrap();
        let error = SharedFolder::new(&dir)
            .deliver(b"mail", "x", 1)
            .unwrap_err();
        assert!(matches!(error, SharedError::Link(_)), "{error}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
        // A link planted at the very name a plain folder's delivery takes.
        for sub in ["new", "cur", "tmp"] {
            let path = dir.join(sub);
            let _ = fs::remove_file(&path).or_else(|_| fs::remove_dir(&path));
        }
        let victim = elsewhere.join("victim");
        fs::write(&victim, "kept").unwrap();
        let name = format!("1-x-{}.eml", content_tag(b"mail"));
        std::os::unix::fs::symlink(&victim, dir.join(&name)).unwrap();
        let error = SharedFolder::new(&dir)
            .deliver(b"mail", "x", 1)
            .unwrap_err();
        assert!(matches!(error, SharedError::Io { .. }), "{error}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "kept");
        let planted = fs::symlink_metadata(dir.join(&name)).unwrap();
        assert!(planted.file_type().is_symlink());
        fs::remove_dir_all(&dir).unwrap();
        fs::remove_dir_all(&elsewhere).unwrap();
    }
}
