//! Replies typed by hand: an opponent who answers pbem's mail from an ordinary mail
//! client or a phone, with the turn as the first line they wrote.
//!
//! [`parse_reply`] reads what such a mail says about itself, as mail clients send it:
//!
//! - The game: the `X-Pbem-Game` header, else `[pbem <game>]` in the subject (kept under
//!   `Re:`, `AW:`, `Fwd:` and the like), else the pbem message ids in `In-Reply-To` and
//!   `References` (`<game.ply.hash@pbem.invalid>`, [`super::message_id`]), whose ply also
//!   says which state of the game the reply answers.
//! - The text: the plain-text part (quoted-printable, base64 and `format=flowed`
//!   undone), else the text of the html part (tags dropped, entities decoded, a
//!   `<blockquote>` read as a quote).
//! - The first line the replier wrote themselves ([`first_own_line`]): not quoted (`>`),
//!   not the "On ... wrote:" line before a quote (in any language: up to three lines
//!   ending with `:` just before a quote), nothing after a signature (`-- `) or a
//!   forwarded or original message's separator. Top-posting and bottom-posting alike.
//!
//! [`typed_turn`] reads that line as one turn token, with or without its move number
//! (`Nf3`, `12... Nf3`, `12.Nf3`); it does not judge the token, which is the game's job.

use chrono::{DateTime, Utc};
use mail_parser::{HeaderValue, MessageParser, PartType};

use super::parse::{
    game_from_subject, header_game, message_id_of, plain_text, sender_address, unquote,
};
use super::{BEGIN_RECORD, MailError};

/// What a reply says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The game it names, if any.
    pub game_id: Option<String>,
    /// The ply of the pbem mail it answers (from `In-Reply-To`, else the last pbem id of
    /// `References`), when it names one of the game.
    pub answers_ply: Option<usize>,
    /// The address in the `From` header.
    pub from: Option<String>,
    /// The `Message-ID` header, with its angle brackets.
    pub message_id: Option<String>,
    /// The `Date` header.
    pub date: Option<DateTime<Utc>>,
    /// The first line the replier wrote, trimmed.
    pub line: Option<String>,
    /// Whether the replier's own text holds a record's begin line: then it is a pbem mail
    /// (perhaps one that a client turned into html), not a reply typed by hand.
    pub carries_record: bool,
}

/// Reads a reply (RFC 5322 bytes, as received).
///
/// # Errors
///
/// [`MailError::Unreadable`] when the bytes are not a mail, [`MailError::NoText`] when it
/// has neither a text nor an html part.
pub fn parse_reply(bytes: &[u8]) -> Result<Reply, MailError> {
    let message = MessageParser::default()
        .parse(bytes)
        .ok_or(MailError::Unreadable)?;
    let mut text = None;
    for part in message.text_bodies().chain(message.html_bodies()) {
        match &part.body {
            PartType::Text(body) => {
                text = Some(plain_text(part, body));
                break;
            }
            PartType::Html(body) if text.is_none() => text = Some(html_to_text(body)),
            _ => {}
        }
    }
    let text = text.ok_or(MailError::NoText)?;

    let pbem_ids: Vec<(String, usize)> = [message.in_reply_to(), message.references()]
        .into_iter()
        .flat_map(|value| ids_of(value))
        .filter_map(|id| pbem_message_id(&id))
        .collect();
    let header_game = header_game(&message);
    let game_id = header_game
        .or_else(|| message.subject().and_then(game_from_subject))
        .or_else(|| pbem_ids.first().map(|(game, _)| game.clone()));
    // In-Reply-To comes first in the list; else the last of References is the newest.
    let answers_ply = game_id.as_ref().and_then(|game| {
        let of_game = |(id, ply): &(String, usize)| (id == game).then_some(*ply);
        ids_of(message.in_reply_to())
            .iter()
            .filter_map(|id| pbem_message_id(id))
            .find_map(|entry| of_game(&entry))
            .or_else(|| pbem_ids.iter().rev().find_map(of_game))
    });
    let carries_record = text.lines().any(|line| line.trim() == BEGIN_RECORD);
    Ok(Reply {
        game_id,
        answers_ply,
        from: sender_address(&message),
        message_id: message_id_of(&message),
        date: message
            .date()
            .and_then(|date| DateTime::from_timestamp(date.to_timestamp(), 0)),
        line: first_own_line(&text).map(str::to_owned),
        carries_record,
    })
}

fn ids_of(value: &HeaderValue) -> Vec<String> {
    value
        .as_text_list()
        .map(|ids| ids.iter().map(|id| id.to_string()).collect())
        .unwrap_or_default()
}

/// The game and the ply of a pbem message id (`game.ply.hash@pbem.invalid`, with or
/// without angle brackets; the hash may carry a suffix, as a refusal's id does).
#[must_use]
pub fn pbem_message_id(id: &str) -> Option<(String, usize)> {
    let id = id.trim().trim_start_matches('<').trim_end_matches('>');
    let local = id.strip_suffix("@pbem.invalid")?;
    let mut parts = local.rsplitn(3, '.');
    let hash = parts.next()?;
    let ply = parts.next()?.parse().ok()?;
    let game = parts.next()?;
    let hex = hash.get(..8)?;
    (hex.bytes().all(|byte| byte.is_ascii_hexdigit()) && !game.is_empty())
        .then(|| (game.to_owned(), ply))
}

/// The first line of a text that its writer typed: see the module documentation.
#[must_use]
pub fn first_own_line(text: &str) -> Option<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let quoted = |line: &str| unquote(line, 1).0 > 0;
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        let trimmed = line.trim();
        if ends_own_text(line) {
            return None;
        }
        if quoted(line) || trimmed.is_empty() {
            index += 1;
            continue;
        }
        // An attribution: up to three unquoted lines, the last ending with ':', then a
        // quote (after blank lines, if any).
        let run = lines[index..]
            .iter()
            .take(3)
            .take_while(|line| !line.trim().is_empty() && !quoted(line))
            .count();
        let attribution = (1..=run).find(|&length| {
            lines[index + length - 1].trim_end().ends_with(':')
                && lines[index + length..]
                    .iter()
                    .find(|line| !line.trim().is_empty())
                    .is_some_and(|line| quoted(line))
        });
        match attribution {
            Some(length) => index += length,
            None => return Some(trimmed),
        }
    }
    None
}

/// A line after which nothing is the replier's own text: a signature separator, or the
/// start of an original or forwarded message that a client includes without quoting.
fn ends_own_text(line: &str) -> bool {
    let trimmed = line.trim();
    line.trim_end() == "--"
        || (trimmed.starts_with("-----") && trimmed.to_ascii_lowercase().contains("message"))
        || (trimmed.starts_with("---------- ") && trimmed.to_ascii_lowercase().contains("message"))
        || trimmed.eq_ignore_ascii_case("Begin forwarded message:")
        || (trimmed.len() >= 20 && trimmed.bytes().all(|byte| byte == b'_'))
}

/// The turn token of a line typed by hand: the line may start with the turn's number
/// (`12.`, `12...`, `12…`, `12. ...`) and must then hold exactly one word; `None`
/// otherwise. Annotation marks at its end (`!`, `?`) are dropped. A card answer is one
/// word too (`S5`), and so is `-`, the Cards II thrower declining the second pair.
#[must_use]
pub fn typed_turn(line: &str) -> Option<String> {
    let mut rest = line.trim();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        let after = &rest[digits..];
        let dots = after.trim_start_matches(['.', '…', ' ']);
        if after.len() != dots.len() && (after.starts_with('.') || after.starts_with('…')) {
            rest = dots;
        }
    }
    let mut words = rest.split_whitespace();
    let word = words.next()?;
    if words.next().is_some() {
        return None;
    }
    if word == "-" {
        return Some(word.to_owned());
    }
    let word = word.trim_end_matches(['!', '?']);
    (word.chars().any(char::is_alphanumeric)).then(|| word.to_owned())
}

/// The text of an html body: tags dropped, line breaks where blocks and `<br>` are, a
/// `<blockquote>` quoted with `> `, entities decoded; style, script and head left out.
#[must_use]
pub fn html_to_text(html: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    let mut depth = 0usize;
    let mut skip: Option<String> = None;
    let mut rest = html;
    let end_line = |out: &mut String, line: &mut String, depth: usize| {
        let text = line.trim();
        if !text.is_empty() || depth > 0 {
            for _ in 0..depth {
                out.push_str("> ");
            }
        }
        out.push_str(text);
        out.push('\n');
        line.clear();
    };
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            if skip.is_none() {
                push_text(&mut line, rest);
            }
            break;
        };
        if skip.is_none() {
            push_text(&mut line, &rest[..open]);
        }
        let after = &rest[open + 1..];
        if let Some(comment) = after.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let close = after.find('>').unwrap_or(after.len());
        let tag = &after[..close];
        rest = after.get(close + 1..).unwrap_or("");
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        if let Some(skipped) = &skip {
            if closing && &name == skipped {
                skip = None;
            }
            continue;
        }
        match name.as_str() {
            "style" | "script" | "head" | "title" if !closing => skip = Some(name),
            "br" => end_line(&mut out, &mut line, depth),
            "blockquote" => {
                if !line.trim().is_empty() {
                    end_line(&mut out, &mut line, depth);
                }
                depth = if closing {
                    depth.saturating_sub(1)
                } else {
                    depth + 1
                };
            }
            "p" | "div" | "tr" | "li" | "table" | "pre" | "h1" | "h2" | "h3" | "h4" | "h5"
            | "h6" | "hr"
                if !line.trim().is_empty() =>
            {
                end_line(&mut out, &mut line, depth);
            }
            _ => {}
        }
    }
    if !line.trim().is_empty() {
        end_line(&mut out, &mut line, depth);
    }
    out
}

/// Appends html text to a line: runs of white space become one space, entities are
/// decoded.
fn push_text(line: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c == '&' || c.is_whitespace()) {
        line.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with('&')
            && let Some(end) = tail[1..].find(';').filter(|end| *end <= 10)
        {
            let entity = &tail[1..=end];
            match decode_entity(entity) {
                Some(decoded) => push_space_aware(line, decoded),
                None => line.push_str(&tail[..end + 2]),
            }
            rest = &tail[end + 2..];
        } else if let Some(after) = tail.strip_prefix('&') {
            line.push('&');
            rest = after;
        } else {
            if !line.ends_with(' ') {
                line.push(' ');
            }
            rest = tail.trim_start();
        }
    }
    line.push_str(rest);
}

fn push_space_aware(line: &mut String, decoded: char) {
    if decoded == ' ' {
        if !line.ends_with(' ') {
            line.push(' ');
        }
    } else {
        line.push(decoded);
    }
}

fn decode_entity(entity: &str) -> Option<char> {
    if let Some(number) = entity.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        return char::from_u32(code).map(|c| if c == '\u{a0}' { ' ' } else { c });
    }
    Some(match entity {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "hellip" => '…',
        "ndash" => '–',
        "mdash" => '—',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_turn_may_carry_its_number() {
        for (line, token) in [
            ("Nf3", Some("Nf3")),
            ("12... Nf3", Some("Nf3")),
            ("12...Nf3", Some("Nf3")),
            ("12. ... Nf3", Some("Nf3")),
            ("12… Nf3!", Some("Nf3")),
            ("3. d2NE=e2", Some("d2NE=e2")),
            ("  Ke2:w9  ", Some("Ke2:w9")),
            ("S5", Some("S5")),
            ("-", Some("-")),
            ("--", None),
            ("2. Nf3 Nc6", None),
            ("Thanks for the game", None),
            ("12.", None),
            ("...", None),
        ] {
            assert_eq!(typed_turn(line).as_deref(), token, "{line}");
        }
    }

    #[test]
    fn pbem_message_ids_name_the_game_and_ply() {
        assert_eq!(
            pbem_message_id("<g-20261122-ab12cd.3.0a1b2c3d@pbem.invalid>"),
            Some(("g-20261122-ab12cd".to_owned(), 3))
        );
        assert_eq!(
            pbem_message_id("g.x.12.0a1b2c3d-refused-1@pbem.invalid"),
            Some(("g.x".to_owned(), 12))
        );
        assert_eq!(pbem_message_id("<abc@example.org>"), None);
        assert_eq!(pbem_message_id("<g.3.zz@pbem.invalid>"), None);
    }

    #[test]
    fn the_first_own_line_skips_quotes_attributions_and_signatures() {
        let top =
            "Nf3\n\nOn Sun, Nov 22, 2026 at 10:17 AM Bob <\nbob@example.org> wrote:\n> 1. e4 e5\n";
        assert_eq!(first_own_line(top), Some("Nf3"));
        let bottom = "On Sun, Nov 22, 2026 at 10:17 AM Bob <\nbob@example.org> wrote:\n\n> 1. e4 e5\n>\n\n12... Nc6\n\n-- \nBob\n";
        assert_eq!(first_own_line(bottom), Some("12... Nc6"));
        assert_eq!(first_own_line("> quoted only\n-- \nsig\n"), None);
        let outlook = "\n-----Original Message-----\nFrom: Bob\nNf3\n";
        assert_eq!(first_own_line(outlook), None);
    }

    #[test]
    fn html_reads_as_text_with_quotes() {
        let html = "<html><head><style>p {}</style></head><body><div dir=\"ltr\">12...&nbsp;Nc6</div><br>\
            <div class=\"gmail_quote\"><div>On Sunday, Bob wrote:<br></div>\
            <blockquote><p>1. e4 &amp; e5</p></blockquote></div></body></html>";
        let text = html_to_text(html);
        assert_eq!(first_own_line(&text), Some("12... Nc6"), "{text}");
        assert!(text.contains("> 1. e4 & e5"), "{text}");
    }
}
