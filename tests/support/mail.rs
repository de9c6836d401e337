//! Mail as people write it by hand in their mail clients, and what tests read from mail.

use super::homes::text;

/// The value of the first header `name` in a mail's text, trimmed.
pub fn header(mail: &str, name: &str) -> String {
    mail.lines()
        .find_map(|line| line.strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name} in {mail}"))
        .trim()
        .to_owned()
}

/// The Message-ID of a mail, with its angle brackets.
pub fn message_id(mail: &[u8]) -> String {
    header(&text(mail), "Message-ID")
}

/// A plain reply typed by hand from `from` to `to`: `first` as its first line, then a
/// quote of Alice's mail. Its Message-ID is `<message_id>`; it is threaded to the mail
/// whose Message-ID is `answered` when given.
pub fn hand_reply(
    from: &str,
    to: &str,
    first: &str,
    message_id: &str,
    answered: Option<&str>,
) -> Vec<u8> {
    let threading = answered.map_or(String::new(), |id| {
        format!("In-Reply-To: {id}\r\nReferences: {id}\r\n")
    });
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: your move\r\n\
         Message-ID: <{message_id}>\r\n{threading}\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{first}\r\n\r\nOn Sunday, Alice wrote:\r\n> Move\r\n"
    )
    .into_bytes()
}

/// The MIME types of a mail's parts, in order.
pub fn part_types(message: &mail_parser::Message) -> Vec<String> {
    use mail_parser::MimeHeaders;
    message
        .parts
        .iter()
        .filter_map(|part| part.content_type())
        .map(|t| format!("{}/{}", t.ctype(), t.subtype().unwrap_or("")))
        .collect()
}

/// The parts of a turn's mail with the position's picture: the record's text, and an
/// HTML alternative with the picture inline.
pub const WITH_PICTURE: [&str; 5] = [
    "multipart/alternative",
    "text/plain",
    "multipart/related",
    "text/html",
    "image/png",
];
