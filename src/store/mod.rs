//! Files on disk: game files, each game's local state, the outbox of mails waiting to be
//! sent, the ledger of mails received, and the lock that keeps two pbem processes from
//! working on the same data at once.
//!
//! Every file is written whole or not at all ([`write_atomically`]); a turn and its bookkeeping go
//! through a journal ([`GameFiles::commit`]) so that a crash between the game file and its
//! state is finished at the next start; [`lock::DataLock`] serialises the processes.
//! [`hook`] lets tests stop pbem at a named write point. [`shared`] delivers mail into a
//! folder shared with the opponent, for play without mail servers.

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
pub use games::{GameFiles, LocalState, StoreError};
pub use ledger::{Entry, LEDGER_FILE, Ledger, Outcome, content_key};
pub use outbox::{Outbox, Pending};
