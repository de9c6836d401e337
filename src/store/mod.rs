//! Files on disk: game files, each game's local state, and the outbox of mails waiting
//! to be sent.
//!
//! Writing is atomic: the new content goes to a temporary file in the same folder, is
//! flushed to disk, and then renamed over the old file, so a crash or a full disk leaves
//! either the old file or the new one, never half of either.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

mod games;
mod outbox;

pub use games::{GameFiles, LocalState, StoreError};
pub use outbox::{Outbox, Pending};

/// Replaces the file at `path` with `contents` atomically (creating it if needed). The
/// file keeps its permissions when it existed.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_atomically_with(path, contents, None)
}

/// Like [`write_atomically`], readable and writable by the owner only (for secrets).
pub fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_atomically_with(path, contents, Some(0o600))
}

fn write_atomically_with(path: &Path, contents: &[u8], mode: Option<u32>) -> io::Result<()> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let temporary = folder.join(format!(
        ".{}.pbem-{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = File::create(&temporary)?;
        set_mode(&file, path, mode)?;
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Gives the new file the old one's permissions, or `mode` (Unix) when asked.
fn set_mode(file: &File, old: &Path, mode: Option<u32>) -> io::Result<()> {
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        return file.set_permissions(fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    if let Ok(metadata) = fs::metadata(old) {
        file.set_permissions(metadata.permissions())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_contents_and_leaves_no_temporary_file() {
        let folder = std::env::temp_dir().join(format!("pbem-store-{}", std::process::id()));
        fs::create_dir_all(&folder).unwrap();
        let path = folder.join("game.pgn");
        fs::write(&path, "old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("game.pgn")]);
        fs::remove_dir_all(&folder).unwrap();
    }

    #[test]
    fn a_missing_folder_is_an_error_and_nothing_is_written() {
        let path = std::env::temp_dir()
            .join(format!("pbem-missing-{}", std::process::id()))
            .join("game.pgn");
        assert!(write_atomically(&path, b"x").is_err());
        assert!(!path.exists());
    }
}
