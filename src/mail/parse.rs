//! Reading a pbem mail back: finding the record in what a mail client made of it.
//!
//! What a mail goes through before it comes back, and what the reader does about it:
//!
//! - Transfer encodings (quoted-printable, base64) and charsets: mail-parser decodes them.
//! - multipart/alternative with a text and an html part: the text part is read.
//! - An html part alone is refused ([`MailError::HtmlOnly`]): turning html back into text
//!   is a guess (entities, `<br>`, wrapping), and a record recovered by guessing could
//!   differ from the one sent without anyone noticing.
//! - `format=flowed` text (RFC 3676): soft line breaks are joined back first.
//! - A reply that quotes the mail: the block whose `-----BEGIN PBEM RECORD-----` line is
//!   quoted least deeply is read (the newest one; the first such block when there are
//!   several), and exactly that many quote markers (`>`, `> `, `> > `, `>>`) are removed
//!   from every line of it, so a line of the record that starts with `>` keeps it. Lines
//!   a client re-wrapped without a quote marker are read as they are.
//! - Lines a client wrapped: white space between words of the movetext means nothing to
//!   the reader, so the movetext needs no repair. A tag line broken in two does matter:
//!   in the tag section, a line that does not start with `[` continues the tag line
//!   before it when that one has not closed with `]`, and the parts are joined with one
//!   space (a client wraps at a space). A tag line still open when the tag section ends
//!   is refused ([`MailError::BrokenTag`]). The authentication code ignores white space
//!   layout, so a repaired record still verifies when nothing but the wrapping changed.
//! - Lines of the record are trimmed at both ends (PGN gives leading and trailing white
//!   space no meaning).
//!
//! The game id comes from the `X-Pbem-Game` header, else from the record's `[GameId]`
//! tag, else from a `[pbem <id>]` in the subject. When the header and the tag disagree,
//! the mail is refused. When the record replays without errors, its final position is
//! compared with the mail's `Position check:` line.

use mail_parser::{MessageParser, MessagePart, MimeHeaders, PartType};
use thiserror::Error;

use super::position_check;
use super::trust::verify_auth_code;
use super::{AUTHENTICATION_LABEL, BEGIN_RECORD, END_RECORD, GAME_HEADER, POSITION_CHECK_LABEL};
use crate::notation::parse_record;
use crate::replay::{Severity, replay};

/// What a pbem mail carries, as recovered from the mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incoming {
    /// The game the mail belongs to.
    pub game_id: String,
    /// The record text exactly as recovered (quoting removed, broken tag lines joined),
    /// ending with a line break; `parse_record` reads it.
    pub record: String,
    /// The address in the `From` header.
    pub from: Option<String>,
    /// The `Message-ID` header, with its angle brackets (as [`super::message_id`] writes).
    pub message_id: Option<String>,
    /// The `Subject` header.
    pub subject: Option<String>,
    /// The hex digits of the `Position check:` line, as written.
    pub position_check: Option<String>,
    /// The hex digits of the authentication code, if the mail carries one.
    pub authentication: Option<String>,
    /// When the record is quoted (a reply written in a mail client), the lines the
    /// replier wrote themselves, above or below the quote: neither quoted nor the
    /// "On ... wrote:" line before a quote, up to a signature (`-- `). A turn typed there
    /// is not in the quoted record; the receiving side must not mistake the mail for a
    /// repeated one.
    pub typed: Option<String>,
    /// The sender's note (`Note from Alice:` and the lines after it up to a blank line,
    /// before the record), when the mail is pbem's own (not quoted) and has one: a
    /// refusal's reason, say (`pbem send --refusal`).
    pub note: Option<String>,
}

/// Why a mail could not be read as a pbem mail, or does not check out.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MailError {
    /// The bytes are not a mail.
    #[error("cannot read the mail: it has no header section that mail-parser can read")]
    Unreadable,
    /// The mail has no text at all.
    #[error("the mail has no text part; a pbem mail carries its record in plain text")]
    NoText,
    /// The mail has an html part and no plain-text part.
    #[error("the mail has only an html part; pbem needs its plain-text part")]
    HtmlOnly,
    /// No begin line.
    #[error("not a pbem mail: no {BEGIN_RECORD} line")]
    NotPbem,
    /// A begin line but no end line after it.
    #[error("the record is truncated: no {END_RECORD} line")]
    Truncated,
    /// Nothing between the begin and end lines.
    #[error("the record is empty: nothing between the {BEGIN_RECORD} and {END_RECORD} lines")]
    EmptyRecord,
    /// A tag line was broken (wrapped) and cannot be joined back.
    #[error(
        "the record's tag line {line} was broken by a mail client and does not close with ']': {text:?}"
    )]
    BrokenTag {
        /// The line of the record (from 1) where the tag starts.
        line: usize,
        /// The tag line as far as it could be joined.
        text: String,
    },
    /// The mail names no game anywhere.
    #[error(
        "the mail names no game: no {GAME_HEADER} header, no [GameId] tag in its record and no [pbem <game>] in its subject"
    )]
    NoGameId,
    /// The header and the record name different games.
    #[error(
        "the mail's {GAME_HEADER} header names game {header} but its record's [GameId] tag names game {record}"
    )]
    GameIdMismatch {
        /// The header's game.
        header: String,
        /// The record's game.
        record: String,
    },
    /// The position check line does not match the record's final position.
    #[error(
        "the mail for game {game_id} says position check {stated} but its record ends in a position whose check is {computed}: the record or the position line was changed"
    )]
    PositionCheck {
        /// The game.
        game_id: String,
        /// What the mail's line says.
        stated: String,
        /// What the record's final position gives.
        computed: String,
    },
    /// The game has a secret and the mail carries no code.
    #[error(
        "the mail for game {game_id} carries no authentication code, but the game has a secret: it may be forged"
    )]
    MissingAuthentication {
        /// The game.
        game_id: String,
    },
    /// The code does not match.
    #[error(
        "the authentication code of the mail for game {game_id} does not match its record and the game's secret: the mail was forged or changed"
    )]
    WrongAuthentication {
        /// The game.
        game_id: String,
    },
    /// The mail carries a code but the game has no secret to check it with.
    #[error(
        "the mail for game {game_id} carries an authentication code, but the game has no secret here to check it with"
    )]
    UnexpectedAuthentication {
        /// The game.
        game_id: String,
    },
}

impl Incoming {
    /// Whether the mail is a refusal mailed back by `pbem send --refusal` (its
    /// Message-ID carries `-refused-` and the handle of the refused mail).
    #[must_use]
    pub fn is_refusal(&self) -> bool {
        self.message_id
            .as_deref()
            .is_some_and(|id| id.contains("-refused-"))
    }

    /// Checks the mail's authentication code against the game's secret.
    ///
    /// With a secret, the mail must carry a code that matches (compared in constant
    /// time). Without one, the mail must carry no code: a code nobody can check means
    /// the two sides disagree about the game's secret.
    ///
    /// # Errors
    ///
    /// [`MailError::MissingAuthentication`], [`MailError::WrongAuthentication`] or
    /// [`MailError::UnexpectedAuthentication`].
    pub fn verify(&self, secret: Option<&[u8]>) -> Result<(), MailError> {
        let game_id = self.game_id.clone();
        match (secret, &self.authentication) {
            (None, None) => Ok(()),
            (None, Some(_)) => Err(MailError::UnexpectedAuthentication { game_id }),
            (Some(_), None) => Err(MailError::MissingAuthentication { game_id }),
            (Some(secret), Some(code)) => {
                if verify_auth_code(secret, &self.game_id, &self.record, code) {
                    Ok(())
                } else {
                    Err(MailError::WrongAuthentication { game_id })
                }
            }
        }
    }
}

/// Reads a pbem mail (RFC 5322 bytes, as received) into what it carries.
///
/// # Errors
///
/// When the bytes are not a mail, the mail has no plain text, carries no complete record,
/// a broken tag line cannot be joined, the mail names no game or two different ones, or
/// its position check disagrees with its record.
pub fn parse_mail(bytes: &[u8]) -> Result<Incoming, MailError> {
    let message = MessageParser::default()
        .parse(bytes)
        .ok_or(MailError::Unreadable)?;

    let mut texts = Vec::new();
    for part in message.text_bodies() {
        if let PartType::Text(text) = &part.body {
            texts.push(plain_text(part, text));
        }
    }
    if texts.is_empty() {
        return Err(if message.html_body_count() > 0 {
            MailError::HtmlOnly
        } else {
            MailError::NoText
        });
    }
    let text = texts
        .iter()
        .find(|text| text.contains(BEGIN_RECORD))
        .ok_or(MailError::NotPbem)?;
    let block = extract(text)?;

    let header_game = header_game(&message);
    let subject = message.subject().map(str::to_owned);
    let parsed = parse_record(&block.record).ok();
    let record_game = parsed
        .as_ref()
        .and_then(|record| record.tag("GameId"))
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    let game_id = match (header_game, record_game) {
        (Some(header), Some(record)) if header != record => {
            return Err(MailError::GameIdMismatch { header, record });
        }
        (Some(id), _) | (None, Some(id)) => id,
        (None, None) => subject
            .as_deref()
            .and_then(game_from_subject)
            .ok_or(MailError::NoGameId)?,
    };

    if let (Some(stated), Some(record)) = (&block.position_check, &parsed) {
        let report = replay(record);
        let clean = report
            .findings
            .iter()
            .all(|finding| finding.severity != Severity::Error);
        if clean && let Some(position) = &report.final_position {
            let computed = position_check(position);
            if !stated.eq_ignore_ascii_case(&computed) {
                return Err(MailError::PositionCheck {
                    game_id,
                    stated: stated.clone(),
                    computed,
                });
            }
        }
    }

    Ok(Incoming {
        game_id,
        record: block.record,
        from: sender_address(&message),
        message_id: message_id_of(&message),
        subject,
        position_check: block.position_check,
        authentication: block.authentication,
        typed: block.typed,
        note: block.note,
    })
}

/// The envelope a message's headers name: the `From` address and the `To` and `Cc`
/// addresses. pbem's own mails name exactly their envelope there, so an outbox message
/// whose envelope file a crash prevented gets it back from this.
#[must_use]
pub fn envelope_of(bytes: &[u8]) -> Option<(String, Vec<String>)> {
    let message = MessageParser::default().parse_headers(bytes)?;
    let from = message.from()?.first()?.address()?.to_owned();
    let to: Vec<String> = [message.to(), message.cc()]
        .into_iter()
        .flatten()
        .flat_map(|address| address.iter())
        .filter_map(|address| address.address().map(str::to_owned))
        .collect();
    (!to.is_empty()).then_some((from, to))
}

/// The record block of a mail's text and the lines around it.
struct Block {
    record: String,
    position_check: Option<String>,
    authentication: Option<String>,
    typed: Option<String>,
    note: Option<String>,
}

/// Finds the least quoted record block in a text and recovers it.
fn extract(text: &str) -> Result<Block, MailError> {
    let lines: Vec<&str> = text.lines().collect();
    let (begin, depth) = lines
        .iter()
        .enumerate()
        .filter_map(|(index, line)| {
            let (depth, rest) = unquote(line, usize::MAX);
            (rest.trim() == BEGIN_RECORD).then_some((index, depth))
        })
        .min_by_key(|&(index, depth)| (depth, index))
        .ok_or(MailError::NotPbem)?;

    let mut end = None;
    for (index, line) in lines.iter().enumerate().skip(begin + 1) {
        let rest = unquote(line, depth).1.trim();
        if rest == END_RECORD {
            end = Some(index);
            break;
        }
        if rest == BEGIN_RECORD {
            break;
        }
    }
    let end = end.ok_or(MailError::Truncated)?;

    let position_check = lines[..begin]
        .iter()
        .rev()
        .filter_map(|line| at_depth(line, depth))
        .take_while(|line| *line != END_RECORD)
        .find_map(|line| line.strip_prefix(POSITION_CHECK_LABEL))
        .map(|check| check.trim().to_owned());
    let authentication = authentication(
        lines[end + 1..]
            .iter()
            .filter_map(|line| at_depth(line, depth)),
    );

    let body: Vec<&str> = lines[begin + 1..end]
        .iter()
        .map(|line| unquote(line, depth).1.trim())
        .collect();
    let record = repair(&body)?;
    if record.trim().is_empty() {
        return Err(MailError::EmptyRecord);
    }
    let typed = (depth > 0).then(|| own_lines(&lines)).flatten();
    let note = (depth == 0).then(|| note(&lines[..begin])).flatten();
    Ok(Block {
        record,
        position_check,
        authentication,
        typed,
        note,
    })
}

/// The note of a pbem mail: the lines after its `Note from NAME:` line, up to the blank
/// line that ends the block (`compose` writes it so), before the record.
fn note(lines: &[&str]) -> Option<String> {
    let start = lines
        .iter()
        .position(|line| line.starts_with("Note from ") && line.trim_end().ends_with(':'))?;
    let note: Vec<&str> = lines[start + 1..]
        .iter()
        .map(|line| line.trim_end())
        .take_while(|line| !line.is_empty())
        .collect();
    (!note.is_empty()).then(|| note.join("\n"))
}

/// The lines of a reply that are not quoted: not the attribution line (ending with `:`)
/// just before a quote, nothing after a signature separator; `None` when there are none.
fn own_lines(lines: &[&str]) -> Option<String> {
    let mut own = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.trim_end() == "--" && line.starts_with("--") {
            break;
        }
        let (depth, rest) = unquote(line, usize::MAX);
        let rest = rest.trim();
        if depth > 0 || rest.is_empty() {
            continue;
        }
        let next_is_quote = lines[index + 1..]
            .iter()
            .find(|next| !next.trim().is_empty())
            .is_some_and(|next| unquote(next, 1).0 == 1);
        if rest.ends_with(':') && next_is_quote {
            continue;
        }
        own.push(rest);
    }
    (!own.is_empty()).then(|| own.join("\n"))
}

/// A line's text without its quote markers, if it is quoted exactly `depth` deep: the
/// lines around a record block belong to it only at its own depth.
fn at_depth(line: &str, depth: usize) -> Option<&str> {
    let (line_depth, rest) = unquote(line, usize::MAX);
    (line_depth == depth).then(|| rest.trim())
}

/// The code after the end line: the label followed by 64 hex digits, on the same line or
/// on the lines after it (a client may have wrapped it).
fn authentication<'a>(mut lines: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut code = lines
        .by_ref()
        .filter(|line| !line.is_empty())
        .take_while(|line| *line != BEGIN_RECORD)
        .find_map(|line| line.strip_prefix(AUTHENTICATION_LABEL))?
        .trim()
        .to_owned();
    for line in lines {
        if code.len() >= 64 || line.is_empty() || !line.bytes().all(|b| b.is_ascii_hexdigit()) {
            break;
        }
        code.push_str(line);
    }
    Some(code)
}

/// Joins tag lines that a client broke and returns the record text.
fn repair(lines: &[&str]) -> Result<String, MailError> {
    let first = lines.iter().position(|line| !line.is_empty());
    let last = lines.iter().rposition(|line| !line.is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(String::new());
    };
    let lines = &lines[first..=last];

    let mut out = String::new();
    let mut index = 0;
    // The tag section: lines from the first, which starts with '[', up to the first blank
    // line or the first line after a closed tag that does not start with '['.
    if lines[0].starts_with('[') {
        let mut open: Option<(usize, String)> = None;
        while index < lines.len() {
            let line = lines[index];
            match &mut open {
                Some((_, tag)) => {
                    if line.is_empty() {
                        break;
                    }
                    tag.push(' ');
                    tag.push_str(line);
                }
                None => {
                    if line.is_empty() || !line.starts_with('[') {
                        break;
                    }
                    open = Some((index, line.to_owned()));
                }
            }
            if let Some((_, tag)) = &open
                && tag.ends_with(']')
            {
                out.push_str(tag);
                out.push('\n');
                open = None;
            }
            index += 1;
        }
        if let Some((start, text)) = open {
            return Err(MailError::BrokenTag {
                line: start + 1,
                text,
            });
        }
    }
    for line in &lines[index..] {
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// Removes up to `limit` quote markers (`>`, with any spaces or tabs before each) from
/// the start of a line; returns how many it removed and the rest.
pub(super) fn unquote(line: &str, limit: usize) -> (usize, &str) {
    let mut depth = 0;
    let mut rest = line;
    while depth < limit {
        let trimmed = rest.trim_start_matches([' ', '\t']);
        match trimmed.strip_prefix('>') {
            Some(after) => {
                depth += 1;
                rest = after;
            }
            None => break,
        }
    }
    (depth, rest)
}

/// Joins the soft line breaks of `format=flowed` text (RFC 3676, section 4): a line that
/// ends with a space continues on the next line of the same quote depth; with
/// `delsp=yes` that space was added by the sender and is removed.
/// The text of a `text/plain` part, its soft line breaks joined when it is sent as
/// `format=flowed` (RFC 3676, `delsp=yes` deleting the space before each break).
pub(super) fn plain_text(part: &MessagePart<'_>, text: &str) -> String {
    let flowed = part.content_type().and_then(|content_type| {
        content_type
            .attribute("format")
            .filter(|format| format.eq_ignore_ascii_case("flowed"))
            .map(|_| {
                content_type
                    .attribute("delsp")
                    .is_some_and(|delsp| delsp.eq_ignore_ascii_case("yes"))
            })
    });
    match flowed {
        Some(delete_space) => unflow(text, delete_space),
        None => text.to_owned(),
    }
}

pub(super) fn unflow(text: &str, delete_space: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut open: Option<(usize, String)> = None;
    for line in text.lines() {
        let depth = line.bytes().take_while(|&byte| byte == b'>').count();
        let content = &line[depth..];
        let content = content.strip_prefix(' ').unwrap_or(content);
        if let Some((open_depth, joined)) = open.take() {
            if open_depth == depth {
                open = Some((depth, joined));
            } else {
                push_flowed(&mut out, open_depth, &joined);
            }
        }
        let joined = match open.take() {
            Some((_, mut joined)) => {
                joined.push_str(content);
                joined
            }
            None => content.to_owned(),
        };
        let soft = content.ends_with(' ') && content != "-- ";
        if soft {
            let mut joined = joined;
            if delete_space {
                joined.pop();
            }
            open = Some((depth, joined));
        } else {
            push_flowed(&mut out, depth, &joined);
        }
    }
    if let Some((depth, joined)) = open {
        push_flowed(&mut out, depth, &joined);
    }
    out
}

fn push_flowed(out: &mut String, depth: usize, line: &str) {
    for _ in 0..depth {
        out.push('>');
    }
    if depth > 0 {
        out.push(' ');
    }
    out.push_str(line);
    out.push('\n');
}

/// The address of a mail's first `From` mailbox.
pub(super) fn sender_address(message: &mail_parser::Message<'_>) -> Option<String> {
    message
        .from()
        .and_then(|from| from.first())
        .and_then(|from| from.address())
        .map(str::to_owned)
}

/// A mail's Message-ID with its angle brackets.
pub(super) fn message_id_of(message: &mail_parser::Message<'_>) -> Option<String> {
    message.message_id().map(|id| format!("<{id}>"))
}

/// The game id of the `X-Pbem-Game` header, trimmed; `None` when it is missing or empty.
pub(super) fn header_game(message: &mail_parser::Message<'_>) -> Option<String> {
    message
        .header(GAME_HEADER)
        .and_then(|value| value.as_text())
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// The game id in a subject such as `Re: [pbem g-20261122-ab12cd] 12. Nf3 (Alice - Bob)`.
pub(super) fn game_from_subject(subject: &str) -> Option<String> {
    let start = subject.find("[pbem ")? + "[pbem ".len();
    let rest = &subject[start..];
    let id = rest[..rest.find(']')?].trim();
    (!id.is_empty()).then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquote_removes_only_the_markers_asked_for() {
        assert_eq!(
            unquote("> > [Event \"x\"]", usize::MAX),
            (2, " [Event \"x\"]")
        );
        assert_eq!(unquote(">>1. e4", usize::MAX), (2, "1. e4"));
        assert_eq!(unquote("> > {a > b}", 1), (1, " > {a > b}"));
        assert_eq!(unquote("1. e4", 3), (0, "1. e4"));
    }

    #[test]
    fn repair_joins_a_broken_tag_line_and_leaves_movetext() {
        let lines = [
            "",
            "[Event \"A long",
            "name\"]",
            "[Site \"x\"]",
            "",
            "1. e4",
            "e5 *",
            "",
        ];
        assert_eq!(
            repair(&lines).unwrap(),
            "[Event \"A long name\"]\n[Site \"x\"]\n\n1. e4\ne5 *\n"
        );
    }

    #[test]
    fn repair_refuses_a_tag_line_that_never_closes() {
        let lines = ["[Event \"A long", "name\"", "", "1. e4 *"];
        assert_eq!(
            repair(&lines),
            Err(MailError::BrokenTag {
                line: 1,
                text: "[Event \"A long name\"".to_owned()
            })
        );
    }

    #[test]
    fn unflow_joins_soft_breaks_at_the_same_depth() {
        let text = "> 1. e4 e5 \r\n> 2. Nf3 *\r\nplain \r\nend\r\n";
        assert_eq!(unflow(text, false), "> 1. e4 e5 2. Nf3 *\nplain end\n");
        assert_eq!(unflow("a \r\nb\r\n", true), "ab\n");
    }

    #[test]
    fn subject_names_the_game() {
        assert_eq!(
            game_from_subject("Re: [pbem g-1] 12. Nf3 (A - B)").as_deref(),
            Some("g-1")
        );
        assert_eq!(game_from_subject("hello"), None);
    }

    #[test]
    fn authentication_may_be_wrapped_after_its_label() {
        let hex = "ab".repeat(32);
        let lines = [
            "",
            "Authentication: hmac-sha256",
            &hex[..40],
            &hex[40..],
            "x",
        ];
        assert_eq!(authentication(lines.into_iter()), Some(hex.clone()));
        let one = format!("Authentication: hmac-sha256 {hex}");
        assert_eq!(authentication([one.as_str()].into_iter()), Some(hex));
        assert_eq!(authentication(["Regards"].into_iter()), None);
    }
}
