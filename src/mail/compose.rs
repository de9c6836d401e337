//! Writing a turn as a mail.
//!
//! The message is built with lettre's `Message` builder and has one text/plain UTF-8 part
//! (7bit when every line is short ASCII, quoted-printable otherwise, so no line of the
//! encoded mail is longer than 78 characters). Its body, in order:
//!
//! ```text
//! pbem game g-20261122-ab12cd: Alice (White) - Bob (Black), chess
//! Move: 12. Nf3
//! Position check: 1a2b3c4d
//!
//! (the diagram)
//!
//! To answer without pbem, reply with your turn (12...) alone on the first line.
//!                           (only when the game takes typed turns and it is the
//!                            recipient's to act)
//!
//! Note from Alice:          (only when there is a note)
//! (the note)
//!
//! -----BEGIN PBEM RECORD-----
//! (the record)
//! -----END PBEM RECORD-----
//! Authentication: hmac-sha256      (only when the game has a secret)
//! (64 hex digits)
//! ```
//!
//! [`compose_with_picture`] adds a picture of the position: the message is then
//! `multipart/alternative` of that same text/plain part and a `multipart/related` of a
//! text/html part and the PNG, inline, which the HTML shows by its `Content-ID`
//! ([`picture_id`]). Boundaries are derived from the Message-ID, so the bytes do not
//! change from run to run.
//!
//! Headers: `From`, `To`, `Date`, `Subject` (`[pbem <game>] <move> (<White> - <Black>)`),
//! `Message-ID` ([`message_id`] of the game, ply and turns), for every turn after the start
//! `In-Reply-To` (the previous turn's id) and `References` (the start's id and the
//! previous one), `X-Pbem-Game` and `User-Agent`. A `Subject`, `From` or `To` with a
//! line longer than 78 characters as lettre writes it (a long name) is written instead as
//! RFC 2047 encoded-words on folded lines.

use std::time::SystemTime;

use email_encoding::headers::writer::EmailWriter;
use lettre::message::header::{ContentTransferEncoding, ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment, Body, Mailbox as LettreMailbox, Message, MultiPart, SinglePart};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::{AUTHENTICATION_LABEL, BEGIN_RECORD, END_RECORD, GAME_HEADER, Mailbox};
use super::{POSITION_CHECK_LABEL, auth_code, position_check};
use crate::notation::{ParseError, Record, parse_record};

/// One turn (or the start of a game) to be sent as a mail.
#[derive(Clone, Debug)]
pub struct Outgoing<'a> {
    /// The game's id: ASCII letters, digits, `-`, `_` and `.` (it goes into message ids).
    pub game_id: &'a str,
    /// The player who sends the mail.
    pub from: &'a Mailbox,
    /// The player who receives it.
    pub to: &'a Mailbox,
    /// Turns in the record (0 = the game start / invitation, no move yet).
    pub ply: u32,
    /// The latest turn as a reader writes it with its move number, e.g. "12. Nf3" or
    /// "12... Nf6"; `None` for the start.
    pub last_turn: Option<&'a str>,
    /// The variant's name, as the record's `[Variant]` tag gives it.
    pub variant: &'a str,
    /// The position as a text diagram.
    pub diagram: &'a str,
    /// The game's position string (FEN for chess), for the position check.
    pub position: &'a str,
    /// The full record in canonical text (`write_record`).
    pub record: &'a str,
    /// The game's shared secret, if it has one: the mail then carries an
    /// authentication code.
    pub secret: Option<&'a [u8]>,
    /// The date of the mail.
    pub date: chrono::DateTime<chrono::Utc>,
    /// Free text from the player (a draw offer, a greeting), if any.
    pub note: Option<&'a str>,
    /// One line that tells a recipient without pbem how to answer by hand (the turn alone
    /// on the first line of the reply), when the game takes typed turns and it is theirs
    /// to act.
    pub answer: Option<&'a str>,
}

/// Why a mail could not be composed.
#[derive(Debug, Error)]
pub enum ComposeError {
    /// The game id would not make a valid message id.
    #[error(
        "cannot compose a mail for game {game_id:?}: a game id may only hold ASCII letters, digits, '-', '_' and '.'"
    )]
    GameId {
        /// The id as given.
        game_id: String,
    },
    /// The sender's or the recipient's address is not an email address.
    #[error(
        "cannot compose the mail for game {game_id}: the {role} address {address:?} is invalid: {reason}"
    )]
    Address {
        /// The game.
        game_id: String,
        /// "sender" or "recipient".
        role: &'static str,
        /// The address as given.
        address: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The record does not read as a record.
    #[error("cannot compose the mail for game {game_id}: its record does not read: {error}")]
    Record {
        /// The game.
        game_id: String,
        /// The reader's error.
        error: ParseError,
    },
    /// lettre refused to build the message.
    #[error("cannot compose the mail for game {game_id}: {reason}")]
    Build {
        /// The game.
        game_id: String,
        /// lettre's reason.
        reason: String,
    },
}

/// The message id of a game's mail after its first `ply` turns:
/// `<{game_id}.{ply}.{part}@pbem.invalid>`, where `part` is 8 hex digits of a SHA-256 of
/// those turns' tokens and comments. So a mail that completes the last turn (a card in
/// reply, in Chess with wickets) or adds an event has its own id, while each side can
/// still name the other's earlier mails in `In-Reply-To` and `References` from the record
/// alone. The `.invalid` domain (RFC 2606) can never be a real host.
#[must_use]
pub fn message_id(game_id: &str, record: &Record, ply: usize) -> String {
    let mut hash = Sha256::new();
    for node in record.moves.turns.iter().take(ply) {
        hash.update(node.token.as_bytes());
        hash.update(b"\n");
        for comment in &node.comments {
            hash.update(comment.text.as_bytes());
            hash.update(b"\n");
        }
        hash.update(b"\n");
    }
    let digest = hash.finalize();
    let part: String = digest[..4]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("<{game_id}.{ply}.{part}@pbem.invalid>")
}

/// Whether a game id can go into a message id and a subject as it is.
#[must_use]
pub fn is_valid_game_id(game_id: &str) -> bool {
    !game_id.is_empty()
        && game_id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'))
}

/// Writes the mail for one turn as RFC 5322 bytes (CRLF line endings).
///
/// # Errors
///
/// When the game id is not usable in a message id, an address is invalid, or the record
/// does not read.
pub fn compose(outgoing: &Outgoing) -> Result<Vec<u8>, ComposeError> {
    compose_inner(outgoing, None)
}

/// The `Content-ID` of a mail's picture (without angle brackets), made from the mail's
/// [`message_id`], so every mail names its picture apart.
#[must_use]
pub fn picture_id(message_id: &str) -> String {
    format!("board.{}", message_id.trim_matches(['<', '>']))
}

/// Like [`compose`], with a PNG picture of the position in an HTML alternative; the
/// text/plain part is the same bytes as [`compose`] writes.
///
/// # Errors
///
/// As [`compose`].
pub fn compose_with_picture(outgoing: &Outgoing, png: &[u8]) -> Result<Vec<u8>, ComposeError> {
    compose_inner(outgoing, Some(png))
}

fn compose_inner(outgoing: &Outgoing, picture: Option<&[u8]>) -> Result<Vec<u8>, ComposeError> {
    let game_id = outgoing.game_id;
    if !is_valid_game_id(game_id) {
        return Err(ComposeError::GameId {
            game_id: game_id.to_owned(),
        });
    }
    let record = parse_record(outgoing.record).map_err(|error| ComposeError::Record {
        game_id: game_id.to_owned(),
        error,
    })?;
    let ply = usize::try_from(outgoing.ply).unwrap_or(usize::MAX);
    let from = mailbox(game_id, "sender", outgoing.from)?;
    let to = mailbox(game_id, "recipient", outgoing.to)?;
    let players = players(
        record.tag("White"),
        record.tag("Black"),
        outgoing.from,
        outgoing.to,
    );
    let subject = match outgoing.last_turn {
        Some(turn) => format!("[pbem {game_id}] {turn} ({})", players.short),
        None => format!(
            "[pbem {game_id}] new game of {} ({})",
            outgoing.variant, players.short
        ),
    };

    let this_id = message_id(game_id, &record, ply);
    let mut builder = Message::builder()
        .from(from.clone())
        .to(to.clone())
        .date(SystemTime::from(outgoing.date))
        .subject(subject.clone())
        .message_id(Some(this_id.clone()))
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str(GAME_HEADER),
            game_id.to_owned(),
        ))
        .user_agent(format!("pbem {}", env!("CARGO_PKG_VERSION")));
    if ply > 0 {
        let previous = message_id(game_id, &record, ply - 1);
        let references = if ply > 1 {
            format!("{} {previous}", message_id(game_id, &record, 0))
        } else {
            previous.clone()
        };
        builder = builder.in_reply_to(previous).references(references);
    }

    let text = body(outgoing, &players.long);
    // 7bit keeps the record readable in the raw mail; quoted-printable when a line is
    // long or not ASCII. Both keep every encoded line within 78 characters.
    // The text goes in as a String both times: lettre turns its line breaks into CRLF
    // only for text, and would encode a lone LF as =0A.
    let body = Body::new_with_encoding(text.clone(), ContentTransferEncoding::SevenBit)
        .or_else(|_| Body::new_with_encoding(text, ContentTransferEncoding::QuotedPrintable))
        .expect("quoted-printable encodes every text");
    let part = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .body(body);
    let message = match picture {
        None => builder.singlepart(part),
        Some(png) => {
            let cid = picture_id(&this_id);
            let html = SinglePart::builder().header(ContentType::TEXT_HTML).body(
                Body::new_with_encoding(
                    html_body(outgoing, &players.long, &cid),
                    ContentTransferEncoding::QuotedPrintable,
                )
                .expect("quoted-printable encodes every text"),
            );
            let image = Attachment::new_inline(cid).body(
                png.to_vec(),
                ContentType::parse("image/png").expect("a valid type"),
            );
            let unique = this_id
                .trim_matches(['<', '>'])
                .trim_end_matches("@pbem.invalid");
            let boundary = |kind: &str| format!("pbem-{kind}-{unique}");
            builder.multipart(
                MultiPart::alternative()
                    .boundary(boundary("alternative"))
                    .singlepart(part)
                    .multipart(
                        MultiPart::related()
                            .boundary(boundary("related"))
                            .singlepart(html)
                            .singlepart(image),
                    ),
            )
        }
    };
    let mut message = message.map_err(|error| ComposeError::Build {
        game_id: game_id.to_owned(),
        reason: error.to_string(),
    })?;
    Ok(fold_long_lines(&mut message, &subject, &from, &to))
}

/// The longest header line RFC 5322 asks for (it allows 998).
const LONGEST_LINE: usize = 78;

/// The mail's bytes, with `Subject`, `From` and `To` rewritten where lettre leaves a
/// line longer than [`LONGEST_LINE`]. lettre folds a header at its spaces and writes the
/// words that are not ASCII as RFC 2047 encoded-words split to fit a line, but it writes
/// an ASCII word whole and an address on the line of the name's last word: a name of
/// 5000 letters made a `To:` line of 5000 characters, over the 998 RFC 5322 allows. Such
/// a header is written instead as encoded-words of at most 75 characters on folded lines
/// (what lettre does for words that are not ASCII), which readers decode back to the
/// same text, the address on a line of its own.
fn fold_long_lines(
    message: &mut Message,
    subject: &str,
    from: &LettreMailbox,
    to: &LettreMailbox,
) -> Vec<u8> {
    let bytes = message.formatted();
    let long = fields_with_long_lines(&bytes);
    if long.is_empty() {
        return bytes;
    }
    let headers = message.headers_mut();
    if long.contains(&"subject".to_owned()) {
        headers.insert_raw(encoded_header("Subject", subject, None));
    }
    for (name, mailbox) in [("From", from), ("To", to)] {
        // An address alone cannot be folded (and is at most 254 characters).
        if let Some(text) = mailbox.name.as_deref()
            && long.contains(&name.to_ascii_lowercase())
        {
            headers.insert_raw(encoded_header(name, text, Some(mailbox)));
        }
    }
    message.formatted()
}

/// The names (in lower case) of the header fields that have a line longer than
/// [`LONGEST_LINE`].
fn fields_with_long_lines(mail: &[u8]) -> Vec<String> {
    let end = mail
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or(mail.len());
    let mut field = String::new();
    let mut long = Vec::new();
    for line in mail[..end].split(|&byte| byte == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !line.starts_with(b" ") && !line.starts_with(b"\t") {
            let name = line.split(|&byte| byte == b':').next().unwrap_or_default();
            field = String::from_utf8_lossy(name).to_ascii_lowercase();
        }
        if line.len() > LONGEST_LINE && !long.contains(&field) {
            long.push(field.clone());
        }
    }
    long
}

/// A header whose text (a mailbox's name, then its address) is written as encoded-words.
fn encoded_header(name: &'static str, text: &str, mailbox: Option<&LettreMailbox>) -> HeaderValue {
    use std::fmt::Write as _;
    let mut encoded = String::new();
    {
        let mut writer = EmailWriter::new(&mut encoded, name.len() + ": ".len(), 0, false);
        // Writing to a String does not fail.
        let _ = email_encoding::headers::rfc2047::encode(text, &mut writer);
        if let Some(mailbox) = mailbox {
            let _ = writer.new_line();
            writer.space();
            let _ = write!(writer, "<{}>", mailbox.email);
        }
    }
    let raw = mailbox.map_or_else(|| text.to_owned(), ToString::to_string);
    HeaderValue::dangerous_new_pre_encoded(HeaderName::new_from_ascii_str(name), raw, encoded)
}

/// The players as the subject and the first line of the body name them.
struct Players {
    /// "Alice - Bob".
    short: String,
    /// "Alice (White) - Bob (Black)".
    long: String,
}

fn players(white: Option<&str>, black: Option<&str>, from: &Mailbox, to: &Mailbox) -> Players {
    match (known_name(white), known_name(black)) {
        (Some(white), Some(black)) => Players {
            short: format!("{white} - {black}"),
            long: format!("{white} (White) - {black} (Black)"),
        },
        _ => {
            let name = |mailbox: &Mailbox| {
                if mailbox.name.is_empty() {
                    mailbox.address.clone()
                } else {
                    mailbox.name.clone()
                }
            };
            let short = format!("{} - {}", name(from), name(to));
            Players {
                long: short.clone(),
                short,
            }
        }
    }
}

/// A player's name from a tag, unless it is empty or unknown (`?`).
fn known_name(name: Option<&str>) -> Option<&str> {
    name.filter(|name| !name.is_empty() && *name != "?")
}

fn body(outgoing: &Outgoing, players: &str) -> String {
    let mut text = format!(
        "pbem game {}: {players}, {}\n",
        outgoing.game_id, outgoing.variant
    );
    match outgoing.last_turn {
        Some(turn) => text.push_str(&format!("Move: {turn}\n")),
        None => text.push_str("Move: none yet, the game starts\n"),
    }
    text.push_str(&format!(
        "{POSITION_CHECK_LABEL} {}\n\n",
        position_check(outgoing.position)
    ));
    push_block(&mut text, outgoing.diagram);
    if let Some(answer) = outgoing.answer.filter(|answer| !answer.trim().is_empty()) {
        push_block(&mut text, answer);
    }
    if let Some(note) = outgoing.note.filter(|note| !note.trim().is_empty()) {
        let sender = if outgoing.from.name.is_empty() {
            &outgoing.from.address
        } else {
            &outgoing.from.name
        };
        text.push_str(&format!("Note from {sender}:\n"));
        push_block(&mut text, note);
    }
    text.push_str(BEGIN_RECORD);
    text.push('\n');
    text.push_str(outgoing.record.trim_end());
    text.push('\n');
    text.push_str(END_RECORD);
    text.push('\n');
    if let Some(secret) = outgoing.secret {
        // The label and the 64 hex digits on one line would be 92 characters, longer
        // than mail clients leave lines; the reader accepts both layouts.
        text.push_str(&format!(
            "{AUTHENTICATION_LABEL}\n{}\n",
            auth_code(secret, outgoing.game_id, outgoing.record)
        ));
    }
    text
}

/// The HTML alternative: the first lines of the text, the picture, the note and the
/// record as preformatted text (without the lines that mark it for pbem, which reads the
/// text part).
fn html_body(outgoing: &Outgoing, players: &str, cid: &str) -> String {
    let escape = crate::render::svg::escape;
    let turn = outgoing
        .last_turn
        .map_or_else(|| "none yet, the game starts".to_owned(), str::to_owned);
    let mut html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pbem game {}</title></head>\n\
         <body>\n<p>pbem game {}: {}, {}<br>\nMove: {}<br>\n{} {}</p>\n\
         <p><img src=\"cid:{}\" alt=\"The position after {}\"></p>\n",
        escape(outgoing.game_id),
        escape(outgoing.game_id),
        escape(players),
        escape(outgoing.variant),
        escape(&turn),
        POSITION_CHECK_LABEL,
        position_check(outgoing.position),
        escape(cid),
        escape(&turn),
    );
    if let Some(answer) = outgoing.answer.filter(|answer| !answer.trim().is_empty()) {
        html.push_str(&format!("<p>{}</p>\n", escape(answer.trim())));
    }
    if let Some(note) = outgoing.note.filter(|note| !note.trim().is_empty()) {
        html.push_str(&format!("<p>{}</p>\n", escape(note.trim())));
    }
    // The record without its BEGIN/END lines: pbem reads it from the text part only.
    html.push_str(&format!(
        "<pre>{}</pre>\n</body></html>\n",
        escape(outgoing.record.trim_end())
    ));
    html
}

/// Appends a block of lines and one blank line after it.
fn push_block(text: &mut String, block: &str) {
    for line in block.trim_end().lines() {
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text.push('\n');
}

fn mailbox(
    game_id: &str,
    role: &'static str,
    mailbox: &Mailbox,
) -> Result<LettreMailbox, ComposeError> {
    let address = mailbox
        .address
        .parse()
        .map_err(
            |error: lettre::address::AddressError| ComposeError::Address {
                game_id: game_id.to_owned(),
                role,
                address: mailbox.address.clone(),
                reason: error.to_string(),
            },
        )?;
    let name = (!mailbox.name.is_empty()).then(|| mailbox.name.clone());
    Ok(LettreMailbox::new(name, address))
}
