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
//! - [`send`] and [`check`] talk to an SMTP server, and [`imap::Mailbox`] reads a mailbox
//!   over IMAP: these two modules are the only ones of the library that do network I/O.
//!
//! Composing and parsing are pure functions of their inputs (the date is passed in), so
//! the same turn always gives the same bytes.
//!
//! # How it is built
//!
//! Mail, in three parts. `compose` writes a turn as RFC 5322 bytes with lettre's message
//! builder (subject naming the game and move, `message_id`s of the game, ply and a hash of
//! the turns that thread a game while each mail has its own,
//! `X-Pbem-Game`, one text/plain part: diagram, position check, the record between
//! `-----BEGIN PBEM RECORD-----` and `-----END PBEM RECORD-----`, and an authentication code
//! when the game has a secret; `compose_with_picture` makes it `multipart/alternative` of
//! that same text part and a `multipart/related` HTML part with the position's PNG inline
//! by `Content-ID` (`picture_id`, from the mail's Message-ID), boundaries derived from the
//! Message-ID; a `Subject`, `From` or `To` that lettre leaves with a line over 78
//! characters, as it does for a long word or a name's last line with its address, is
//! rewritten as RFC 2047 encoded-words on folded lines with email-encoding, lettre's own
//! encoder). `parse` (mail-parser) reads such a mail back from whatever a
//! client made of it: transfer encodings, multipart, `format=flowed`, quoting, re-wrapped tag
//! lines; it refuses html-only, truncated and foreign mails and a position check that disagrees
//! with the record; `Incoming::verify` checks the code in constant time; `Incoming::note`
//! is the sender's note (a refusal's reason, shown on receipt of a refusal,
//! `Incoming::is_refusal`), and `compose` writes the one line that tells a recipient without
//! pbem how to answer by hand (`Outgoing::answer`). `reply` reads a reply
//! typed by hand (the game from the subject or pbem's message ids in `References`, the first
//! line its writer typed, html turned into text) and `typed_turn` the token on that line;
//! `cli::mail`'s `typed` checks it like `pbem move`, answers a refusal with the legal turns,
//! marks the turn it takes `[%typed ADDRESS]`, and takes that turn back in from the
//! opponent's next mail on its author's side (`own_typed_turns`: only own turns so marked
//! from the reader's address, in a game that takes typed turns).
//! `trust` defines the two codes byte for byte (SHA-256 position check, HMAC-SHA-256 over the game id and the record
//! with white space normalised). `smtp` and `imap` are the only modules of the library that
//! do network I/O. `smtp` drives lettre's `SmtpConnection` step by step over rustls so that
//! each `SendError` names the step, `host:port` and the cause, never the password, and says
//! whether it is transient. `imap` reads a mailbox (async-imap on a tokio runtime of its own,
//! kept inside the module behind blocking calls; rustls as for SMTP): a search for pbem mail
//! and replies to it (and the unseen ones among them, so a run stopped before flagging a mail
//! it took in is finished by the next), `BODY.PEEK[]`, flag seen, move; each `ImapError`
//! names `host:port`.
//!
//! Invariants: `compose` and `parse_mail` are pure; `parse_mail(compose(x))` gives back `x`'s
//! record byte for byte; no header line of a composed mail is longer than 78 characters but
//! for an address of that length alone; plain-text SMTP only to a loopback host and only when allowed.

pub mod compose;
pub mod imap;
pub mod parse;
pub mod reply;
pub mod smtp;
pub mod trust;

pub use compose::{ComposeError, Outgoing, compose, compose_with_picture, message_id, picture_id};
pub use imap::{ImapError, ImapSecurity, ImapSettings};
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

/// `host:port`, as messages and errors name a mail server (`[::1]:25`: an IPv6 address in
/// brackets).
pub(crate) fn server_name(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A name and an address, as in `Alice <alice@example.org>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mailbox {
    /// The display name; may be empty.
    pub name: String,
    /// The address, `local@domain`.
    pub address: String,
}
