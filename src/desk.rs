//! The player's desk: what `pbem` does with a player's games, outbox and mail, as a
//! library. [`Home`] is the player's config with the folders it names (the games, the
//! outbox) and the data lock; [`play`] makes a turn, an event (a draw, a resignation, a
//! claim), a new game, and keeps the game's fair chance going; [`inbox`] judges a mail
//! against the game it names and takes in what it adds; [`outbox`] composes the mail of a
//! game's current state (or of a refusal) for `pbem send`.
//!
//! It sits with `store` and `batch` at the outside world's edge: it reads and writes the
//! player's files (through `store`, atomically) but prints nothing. Every function returns
//! a typed result that says what was done, or a [`DeskError`] that says what cannot be
//! done and the command that mends it; the command line prints them. The words a player
//! reads (a turn refused, a mail taken in) are made here, once, so that every front end
//! (the `pbem` commands, `pbem play`'s page) says the same. `now` is an argument, so the
//! time is the caller's; the seeds of fair chance come from the system's random source.
//!
//! A turn played here and taken in at the other side's desk:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use pbem::desk::{self, Home, TurnOptions};
//! use pbem::desk::inbox::{self, Taken};
//! # let root = std::env::temp_dir().join(format!("pbem-desk-doc-{}", std::process::id()));
//! # let make = |name: &str, email: &str| -> Result<Home, Box<dyn std::error::Error>> {
//! #     let folder = root.join(name);
//! #     std::fs::create_dir_all(&folder)?;
//! #     let config = folder.join("config.yaml");
//! #     std::fs::write(&config, format!(
//! #         "player:\n  name: {name}\n  email: {email}\npictures: false\n"))?;
//! #     #[cfg(unix)]
//! #     {
//! #         use std::os::unix::fs::PermissionsExt;
//! #         std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600))?;
//! #         std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700))?;
//! #     }
//! #     Ok(Home::open(Some(&config))?)
//! # };
//! let alice = make("Alice", "alice@example.org")?; // White
//! let bob = make("Bob", "bob@example.org")?;
//! let now = pbem::clock::parse_instant("2026-11-01T10:00:00Z").expect("an instant");
//! let bob_player = pbem::config::Player { name: "Bob".into(), email: "bob@example.org".into() };
//! let setup = desk::play::GameSetup::new(alice.settings.player.clone(), bob_player, now);
//! let game = desk::play::new_game(&alice, &setup)?;
//! let played = desk::play::play_turn(&alice, &game.id, "e4", &TurnOptions::at(now))?;
//! assert_eq!(played.label, "1. e4");
//! let mail = desk::outbox::compose_latest(&game.id, &alice, now)?;
//! let desk::outbox::Latest::Mail(composed) = mail else { panic!("Alice acted last") };
//! desk::outbox::queue(&alice, &composed, true)?; // `pbem send` sends it from there
//! let judged = inbox::judge(&composed.bytes, &bob, now);
//! match judged.result {
//!     Ok(Taken::Saved(saved)) => {
//!         assert!(saved.new_game);
//!         assert_eq!(saved.last_turn.as_deref(), Some("1. e4"));
//!     }
//!     other => panic!("not taken in: {other:?}"),
//! }
//! # std::fs::remove_dir_all(&root)?;
//! # Ok(())
//! # }
//! ```

pub mod home;
pub mod inbox;
pub mod outbox;
pub mod play;
mod typed;

pub use home::{Home, config_path, random_bytes};
pub use play::{Played, TurnOptions};

use crate::replay::Finding;
use crate::store::StoreError;
use crate::store::lock::LockError;

/// What the desk cannot do, and why.
#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    /// It cannot be done as asked (a game not found, not the player's turn, no config):
    /// the reason, with the command that mends it where there is one.
    #[error("{0}")]
    Cannot(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A new game's start (its position string) that does not read: the text and the
    /// field it is wrong in.
    #[error("{error}")]
    Position {
        /// The position string.
        text: String,
        /// What is wrong with it.
        error: crate::games::SetupError,
    },
    /// A turn that does not read or is not legal, as `pbem validate` would find it: the
    /// finding carries the token, the reason, the legal turns and the closest.
    #[error("{id}: {}", finding.message)]
    Turn {
        /// The game, unchanged.
        id: String,
        /// What is wrong with the turn.
        finding: Box<Finding>,
    },
}

impl From<StoreError> for DeskError {
    fn from(error: StoreError) -> DeskError {
        match error {
            StoreError::Io { path, source } => DeskError::Io { path, source },
            other => DeskError::Cannot(other.to_string()),
        }
    }
}

impl From<LockError> for DeskError {
    fn from(error: LockError) -> DeskError {
        match error {
            LockError::Busy { .. } => DeskError::Cannot(error.to_string()),
            LockError::Io { path, source } => DeskError::Io { path, source },
        }
    }
}

/// Text from a game file made safe to print on a terminal: control characters (an escape
/// sequence in a tag or a comment would reach the player's terminal) and the bidirectional
/// overrides are written as `\u{..}`; line breaks and tabs stay.
#[must_use]
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}
