//! A test-only hook that stops pbem at a named point of its writes, so that a test can
//! kill it there with a real SIGKILL, or hold the data lock while a second pbem runs.
//!
//! With `PBEM_PAUSE_AT=<point>` and `PBEM_PAUSE_FILE=<path>` in the environment, pbem
//! writes its process id to `<path>` when it reaches `<point>`, then waits until the file
//! is removed (at most two minutes) and goes on. Without both variables it does nothing.
//! The points, in the order a turn reaches them:
//!
//! - `locked`: the player's data lock is taken and the start-up repairs are done.
//! - `temporary`: a temporary file holds the new content of a file, not yet renamed
//!   over it (the first write of the command: a journal, an outbox message...).
//! - `journal`: a game's journal (its new text and state) is on disk; the game file and
//!   the state file are not written yet.
//! - `game`: the game file is written, the state file (the time the turn arrived) not yet.
//! - `outbox`: a mail's message is in the outbox, its envelope not yet.
//! - `conditional`: a conditional reply is in the game file (played by `receive` or
//!   `sync`), its mail not yet in the outbox.
//! - `delivered`: a mail is in the shared folder and still in the outbox.
//! - `taken`: a mail has been taken in, and the mail ledger does not record it yet.

use std::time::{Duration, Instant};

/// The environment variable naming the point.
pub const PAUSE_AT: &str = "PBEM_PAUSE_AT";
/// The environment variable naming the file that signals the pause.
pub const PAUSE_FILE: &str = "PBEM_PAUSE_FILE";

/// Pauses here when the environment asks for this point (see the module's text).
pub fn pause_at(point: &str) {
    let Some(wanted) = std::env::var_os(PAUSE_AT) else {
        return;
    };
    if wanted != point {
        return;
    }
    let Some(file) = std::env::var_os(PAUSE_FILE) else {
        return;
    };
    let file = std::path::PathBuf::from(file);
    if std::fs::write(&file, std::process::id().to_string()).is_err() {
        return;
    }
    let until = Instant::now() + Duration::from_secs(120);
    while file.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
}
