//! The player's data lock: one pbem at a time works on a games folder (and the outbox and
//! mail ledger that go with it).
//!
//! The lock is an advisory lock (`flock` on Unix, `LockFileEx` on Windows, through the
//! `fs4` crate) on the file `.pbem.lock` in the games folder. The system drops it when the
//! process ends, however it ends, so a killed pbem never leaves a stale lock behind. The
//! file holds the process id of the pbem that holds it, for the message a waiting pbem
//! prints; the file itself is never removed.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fs4::{FileExt, TryLockError};

/// The lock file's name in the games folder.
pub const LOCK_FILE: &str = ".pbem.lock";

/// The data lock, held until dropped.
#[derive(Debug)]
pub struct DataLock {
    file: File,
    path: PathBuf,
}

/// The lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another pbem held it for the whole wait.
    #[error(
        "another pbem{} is working on {folder} (waited {waited:.1} s); try again when it has finished",
        .holder.as_ref().map(|pid| format!(" (process {pid})")).unwrap_or_default()
    )]
    Busy {
        /// The games folder.
        folder: String,
        /// The process id the lock file names, if it names one.
        holder: Option<String>,
        /// How long this pbem waited, in seconds.
        waited: f64,
    },
    /// The lock file cannot be opened or locked.
    #[error("{path}: cannot lock the player's data: {source}")]
    Io {
        /// The lock file.
        path: String,
        /// What the system said.
        source: io::Error,
    },
}

impl DataLock {
    /// Takes the lock of the games folder `folder` (created if needed), retrying for up to
    /// `wait` while another process holds it.
    pub fn acquire(folder: &Path, wait: Duration) -> Result<DataLock, LockError> {
        let path = folder.join(LOCK_FILE);
        let io_error = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        std::fs::create_dir_all(folder).map_err(io_error)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error)?;
        let started = Instant::now();
        let mut pause = Duration::from_millis(10);
        loop {
            match FileExt::try_lock(&file) {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(error)) => return Err(io_error(error)),
            }
            let waited = started.elapsed();
            if waited >= wait {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(LockError::Busy {
                    folder: folder.display().to_string(),
                    holder: (!holder.is_empty()).then(|| holder.to_owned()),
                    waited: waited.as_secs_f64(),
                });
            }
            std::thread::sleep(pause.min(wait - waited));
            pause = (pause * 2).min(Duration::from_millis(200));
        }
        // Who holds it, for a pbem that waits (best effort: the lock is what counts).
        let _ = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(std::process::id().to_string().as_bytes()));
        Ok(DataLock { file, path })
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DataLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = FileExt::unlock(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_waits_then_says_who_holds_it() {
        let dir = std::env::temp_dir().join(format!("pbem-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let held = DataLock::acquire(&dir, Duration::ZERO).unwrap();
        // flock locks belong to the open file, so a second open in the same process
        // conflicts like another process would.
        let error = DataLock::acquire(&dir, Duration::from_millis(50)).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("another pbem"), "{text}");
        assert!(
            text.contains(&format!("process {}", std::process::id())),
            "{text}"
        );
        drop(held);
        let again = DataLock::acquire(&dir, Duration::ZERO).unwrap();
        assert_eq!(again.path(), dir.join(LOCK_FILE));
        drop(again);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
