//! Replacing a file whole or not at all, for every file pbem writes (game files, their
//! state and journals, the outbox, the mail ledger, the config, `fmt --in-place`,
//! `convert -o`, `send --dry-run`).
//!
//! - The new content goes to a temporary file created exclusively (`O_EXCL`, a random
//!   name, by the `tempfile` crate) in the target's own folder, named `.pbem-XXXXXX.tmp`,
//!   is flushed to disk, then renamed over the target; the folder is flushed after the
//!   rename. A crash leaves the old file or the new one, and at worst a stale temporary
//!   file, which [`remove_stale_temporaries`] removes at the next start.
//! - A symbolic link is followed (link by link, so a dangling link works too) and its
//!   final target is replaced: the link stays a link. pbem follows a link only where the
//!   kernel would for this user under Linux's `fs.protected_symlinks` ([`may_follow`]):
//!   in a sticky folder anyone can write (`/tmp`), a link owned by someone other than the
//!   user and the folder's owner is refused, so a link planted there by another user
//!   cannot make pbem overwrite or create the file it points to.
//! - Anything that exists and is not a regular file (a FIFO, a device node, a socket, a
//!   folder) is refused: pbem never replaces it with a regular file.
//! - A file with more than one hard link is refused: renaming over it would cut it off
//!   from its other names, and writing into it in place could leave it half-written
//!   after a crash. The error says so; copy the file (or remove the other links) first.
//! - The new file keeps the old one's permission bits exactly; a new file gets the
//!   usual `0666` less the umask; private files (state, journals, the ledger) are `0600`.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::hook;

/// The prefix and suffix of pbem's temporary files.
const TEMPORARY_PREFIX: &str = ".pbem-";
const TEMPORARY_SUFFIX: &str = ".tmp";

/// How many symbolic links are followed before giving up (as the kernel does).
const MAX_LINKS: usize = 40;

/// Replaces the file at `path` with `contents` atomically (creating it if needed). The
/// file keeps its permissions when it existed.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    write(path, false, |file| file.write_all(contents))
}

/// Like [`write_atomically`], with the content written by `fill` as it comes (a stream
/// of any length); the target is replaced only when `fill` succeeds.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write(path, false, fill)
}

/// Like [`write_atomically`], readable and writable by the owner only (for secrets).
pub fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    write(path, true, |file| file.write_all(contents))
}

fn refused(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// The file a path finally names: symbolic links followed one by one, so a link whose
/// target does not exist yet names that target.
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                check_followable(&current, &metadata)?;
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(current),
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(error) => return Err(error),
        }
    }
    Err(refused(format!(
        "more than {MAX_LINKS} symbolic links in a row (a loop?)"
    )))
}

/// Whether the kernel would follow a symbolic link owned by `link_owner`, in a folder
/// owned by `folder_owner` with permission bits `folder_mode`, for the user `user`: the
/// rule of Linux's `fs.protected_symlinks`, which applies to root too. A link is followed
/// when its folder is not both sticky and writable by anyone, or when the link belongs to
/// the user or to the folder's owner.
#[must_use]
pub fn may_follow(link_owner: u32, folder_owner: u32, folder_mode: u32, user: u32) -> bool {
    const STICKY: u32 = 0o1000;
    const OTHERS_WRITE: u32 = 0o002;
    let sticky_and_open = folder_mode & STICKY != 0 && folder_mode & OTHERS_WRITE != 0;
    !sticky_and_open || link_owner == user || link_owner == folder_owner
}

/// Refuses to follow the symbolic link at `link` (whose own metadata is `metadata`) where
/// [`may_follow`] says the kernel would not.
#[cfg(unix)]
fn check_followable(link: &Path, metadata: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let folder = match link.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let folder_metadata = fs::metadata(folder)?;
    let user = rustix::process::geteuid().as_raw();
    if may_follow(
        metadata.uid(),
        folder_metadata.uid(),
        folder_metadata.mode(),
        user,
    ) {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{} is a symbolic link owned by another user (uid {}) in {}, a sticky folder \
             anyone can write (owned by uid {}): pbem follows such a link only when it \
             belongs to you or to the folder's owner, as the kernel does \
             (fs.protected_symlinks), so the link and what it points to are left as they \
             are (write to another name, or remove the link)",
            link.display(),
            metadata.uid(),
            folder.display(),
            folder_metadata.uid()
        ),
    ))
}

#[cfg(not(unix))]
fn check_followable(_link: &Path, _metadata: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// Checks that [`write_atomically`] would replace `path` (a regular file with one link,
/// or nothing yet, after symbolic links), without writing anything: for commands that
/// read a file before replacing it, since reading a FIFO would block.
pub fn check_replaceable(path: &Path) -> io::Result<()> {
    match fs::metadata(resolve_links(path)?) {
        Ok(metadata) => check_regular(&metadata),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

fn write(
    path: &Path,
    private: bool,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let target = resolve_links(path)?;
    let existing = match fs::metadata(&target) {
        Ok(metadata) => Some(metadata),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error),
    };
    if let Some(metadata) = &existing {
        check_regular(metadata)?;
    }
    let folder = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if target.file_name().is_none() {
        return Err(refused("not a file name".to_owned()));
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMPORARY_PREFIX).suffix(TEMPORARY_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if private { 0o600 } else { 0o666 };
        builder.permissions(fs::Permissions::from_mode(mode));
    }
    let mut temporary = builder.tempfile_in(&folder)?;
    if let (Some(metadata), false) = (&existing, private) {
        // Exactly the old bits, not masked by the umask.
        temporary
            .as_file()
            .set_permissions(metadata.permissions())?;
    }
    {
        let mut buffered = io::BufWriter::with_capacity(1 << 16, temporary.as_file_mut());
        fill(&mut buffered)?;
        buffered.flush()?;
    }
    temporary.as_file().sync_all()?;
    hook::pause_at("temporary");
    temporary.persist(&target).map_err(|error| error.error)?;
    sync_folder(&folder);
    Ok(())
}

/// Refuses what is not a regular file, and a regular file with other hard links.
fn check_regular(metadata: &fs::Metadata) -> io::Result<()> {
    let file_type = metadata.file_type();
    if !file_type.is_file() {
        let what = describe(&file_type);
        return Err(refused(format!(
            "is {what}, not a regular file: pbem writes only regular files and leaves this one as it is"
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let links = metadata.nlink();
        if links > 1 {
            return Err(refused(format!(
                "has {links} hard links: replacing it would cut it off from its other names, and \
                 writing into it in place could leave it half-written, so pbem leaves it as it is \
                 (copy it to a file of its own first)"
            )));
        }
    }
    Ok(())
}

fn describe(file_type: &fs::FileType) -> &'static str {
    if file_type.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device node";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "something other than a file"
}

/// Flushes a folder's entries (the rename) to disk, where the system allows it.
fn sync_folder(folder: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = fs::File::open(folder) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = folder;
}

/// Whether a file name is one of pbem's temporary files (`.pbem-XXXXXX.tmp`, or the
/// `.<name>.pbem-<pid>.tmp` of earlier versions).
#[must_use]
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(TEMPORARY_SUFFIX) && name.contains(".pbem-")
        || name.starts_with(TEMPORARY_PREFIX) && name.ends_with(TEMPORARY_SUFFIX)
}

/// Removes pbem's temporary files left in `folder` by a run that was killed; returns
/// how many. Call it only while holding the data lock, so no running pbem owns them.
pub fn remove_stale_temporaries(folder: &Path) -> io::Result<usize> {
    let entries = match fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(error) => return Err(error),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let is_ours = entry.file_name().to_str().is_some_and(is_temporary);
        if is_ours && entry.file_type()?.is_file() {
            match fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => return Err(error),
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pbem-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_contents_and_leaves_no_temporary_file() {
        let dir = scratch("replace");
        let path = dir.join("game.pgn");
        fs::write(&path, "old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names(&dir), vec!["game.pgn"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_folder_is_an_error_and_nothing_is_written() {
        let path = std::env::temp_dir()
            .join(format!("pbem-missing-{}", std::process::id()))
            .join("game.pgn");
        assert!(write_atomically(&path, b"x").is_err());
        assert!(!path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept_and_private_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("modes");
        let path = dir.join("game.pgn");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"new").unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&path), 0o640);
        let secret = dir.join("state.yaml");
        write_private(&secret, b"s").unwrap();
        assert_eq!(mode(&secret), 0o600);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn links_are_followed_where_the_kernel_would_follow_them() {
        const USER: u32 = 1000;
        const OTHER: u32 = 65534;
        const ROOT: u32 = 0;
        // (link owner, folder owner, folder mode, user, followed)
        let cases = [
            // A sticky folder anyone can write (/tmp): only the user's or the owner's links.
            (OTHER, ROOT, 0o1777, USER, false),
            (OTHER, ROOT, 0o1777, ROOT, false),
            (USER, ROOT, 0o1777, USER, true),
            (ROOT, ROOT, 0o1777, USER, true),
            (OTHER, OTHER, 0o1777, USER, true),
            // Even in the user's own sticky folder: the link's owner is what counts.
            (OTHER, USER, 0o1777, USER, false),
            (OTHER, ROOT, 0o41777, USER, false),
            // Not sticky, or not writable by others: the kernel follows any link.
            (OTHER, ROOT, 0o0777, USER, true),
            (OTHER, ROOT, 0o1775, USER, true),
            (OTHER, ROOT, 0o1770, USER, true),
            (OTHER, OTHER, 0o0755, USER, true),
        ];
        for (link, folder, mode, user, followed) in cases {
            assert_eq!(
                may_follow(link, folder, mode, user),
                followed,
                "link {link}, folder {folder} mode {mode:o}, user {user}"
            );
        }
    }

    #[test]
    fn temporary_names_are_recognised_and_removed() {
        assert!(is_temporary(".pbem-a1B2c3.tmp"));
        assert!(is_temporary(".g-1.pgn.pbem-123.tmp"));
        assert!(!is_temporary("g-1.pgn"));
        assert!(!is_temporary(".pbem.lock"));
        let dir = scratch("stale");
        fs::write(dir.join(".pbem-x1.tmp"), "half").unwrap();
        fs::write(dir.join(".g.pgn.pbem-9.tmp"), "half").unwrap();
        fs::write(dir.join("g.pgn"), "kept").unwrap();
        assert_eq!(remove_stale_temporaries(&dir).unwrap(), 2);
        assert_eq!(names(&dir), vec!["g.pgn"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
