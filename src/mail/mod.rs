//! Mail: writing a game's turn as an email, reading one back, and sending it over SMTP.
//!
//! - [`compose()`] writes a turn as RFC 5322 bytes: the subject names the game and the move,
//!   the message ids thread a game in mail clients, and the plain-text body carries a
//!   diagram, a [`position_check`] and the full record between
//!   `-----BEGIN PBEM RECORD-----` and `-----END PBEM RECORD-----`, signed with an
//!   [`auth_code`] when the game has a shared secret.
//! - [`parse_mail`] reads such a mail back, as received: decoded transfer encodings,
//!   multipart mails, replies that quote it and lines a mail client wrapped. It returns an
//!   [`Incoming`] whose record the caller parses; [`Incoming::verify`] checks its code.
//! - [`parse_reply`] reads a reply typed by hand in a mail client: the game it answers
//!   and the first line its writer typed, which [`typed_turn`] reads as a turn.
//! - [`send`] and [`check`] talk to an SMTP server: this is the only module of the library
//!   that does network I/O.
//!
//! Composing and parsing are pure functions of their inputs (the date is passed in), so
//! the same turn always gives the same bytes.

pub mod compose;
pub mod parse;
pub mod reply;
pub mod smtp;
pub mod trust;

pub use compose::{ComposeError, Outgoing, compose, compose_with_picture, message_id, picture_id};
pub use parse::{Incoming, MailError, envelope_of, parse_mail};
pub use reply::{Reply, parse_reply, typed_turn};
pub use smtp::{Password, Security, SendError, SmtpSettings, check, send};
pub use trust::{auth_code, position_check};

/// The line before the record in a pbem mail.
pub const BEGIN_RECORD: &str = "-----BEGIN PBEM RECORD-----";
/// The line after the record in a pbem mail.
pub const END_RECORD: &str = "-----END PBEM RECORD-----";
/// The start of the line that carries a mail's position check.
pub const POSITION_CHECK_LABEL: &str = "Position check:";
/// The start of the line that carries a mail's authentication code.
pub const AUTHENTICATION_LABEL: &str = "Authentication: hmac-sha256";
/// The header that names the game of a pbem mail.
pub const GAME_HEADER: &str = "X-Pbem-Game";

/// A name and an address, as in `Alice <alice@example.org>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mailbox {
    /// The display name; may be empty.
    pub name: String,
    /// The address, `local@domain`.
    pub address: String,
}
