//! Files on disk: game files, each game's local state, the outbox of mails waiting to be
//! sent, the ledger of mails received, and the lock that keeps two pbem processes from
//! working on the same data at once.
//!
//! Every file is written whole or not at all ([`write_atomically`]); a turn and its bookkeeping go
//! through a journal ([`GameFiles::commit`]) so that a crash between the game file and its
//! state is finished at the next start; [`lock::DataLock`] serialises the processes.
//! [`hook`] lets tests stop pbem at a named write point. [`shared`] delivers mail into a
//! folder shared with the opponent, for play without mail servers.
//!
//! # How it is built
//!
//! Files on disk. `atomic`: `write_atomically` and `write_private` (mode 0600) for every
//! file pbem writes: a temporary file created exclusively by the `tempfile` crate in the
//! target's folder (`.pbem-XXXXXX.tmp`), fsync, rename, fsync of the folder; symbolic links
//! followed to their target, each only where the kernel's `fs.protected_symlinks` rule
//! allows it for this user (`may_follow`: not another user's link in a sticky folder anyone
//! can write), whatever the sysctl says; FIFOs, devices, folders and files with several
//! hard links
//! refused (`check_replaceable` says so before a command reads such a file); permission bits
//! kept; `remove_stale_temporaries`. `GameFiles`: `<games>/<GameId>.pgn` and the game's
//! `LocalState` (`<GameId>.state.yaml`, private: when the last turn arrived, the shared
//! secret); `commit` writes a game's text and state as one step through
//! `<GameId>.journal`, and `recover` finishes the journals a killed pbem left. `Outbox`:
//! `<id>.<ply>.eml` plus `<id>.<ply>.envelope`, written message first and removed message
//! first; `orphans` removes envelopes of delivered mails and returns messages without an
//! envelope, which `adopt` completes, and the files named like a mail's that are not
//! regular files (planted links), which nothing in the outbox follows or removes.
//! `Ledger` (`ledger`): `mail-ledger.yaml`, what `receive` did with each pbem mail
//! (Message-ID or content hash, file, game, taken, known or refused with the reason,
//! dismissed) and the Maildir names of mails that are not pbem mail. `shared`: a folder
//! shared with the opponent (the config's `shared_folder`), a Maildir when it has
//! `new/`, `cur/` and `tmp/`, else a plain folder of `.eml` files; never created by pbem
//! (a missing folder is a share not there yet);
//! `deliver` writes a temporary file created exclusively (in `tmp/`, or hidden in the
//! plain folder) and links it to a new name with `persist_noclobber`, refuses Maildir
//! subfolders that are links, and finds a message already delivered by the content tag in
//! its name, so a retry after a crash does not deliver twice. `lock::DataLock`: an advisory lock (fs4) on `<games>/.pbem.lock`, retried for a
//! while, then `LockError::Busy` naming the holder's process id. `hook::pause_at`: a
//! test-only hook (`PBEM_PAUSE_AT=<point>`, `PBEM_PAUSE_FILE`) that stops pbem at a named
//! write point (`locked`, `temporary`, `journal`, `game`, `outbox`, `delivered`, `taken`) so tests can
//! kill it there with SIGKILL or hold the lock.
//!
//! Invariants: a file is the old one or the new one; a game file and its state never
//! disagree after the next start; an outbox mail is never lost nor sent twice by a retry;
//! one pbem at a time works on a games folder (`cli::home::Home::open` takes the lock, then
//! repairs).

mod atomic;
mod games;
pub mod hook;
mod ledger;
pub mod lock;
mod outbox;
pub mod shared;

pub use atomic::{
    check_replaceable, is_temporary, remove_stale_temporaries, resolve_links, write_atomically,
    write_atomically_with, write_private,
};
pub use games::{GameFiles, LocalState, StoreError, looks_like_a_path};
pub use ledger::{Entry, LEDGER_FILE, Ledger, Outcome, content_key};
pub use outbox::{Orphans, Outbox, Pending};
