//! Composing and reading pbem mails: `tests/data/mail/*.eml` are mails in the shapes mail
//! clients and servers give back (see `tests/data/mail/README.md`).
//!
//! `plain.eml` is exactly what `compose` writes for the game below; set `PBEM_BLESS=1` to
//! rewrite it after a deliberate change of the format.

use std::path::PathBuf;

use pbem::games::{Chess, Game};
use pbem::mail::{
    Incoming, MailError, Mailbox, Outgoing, auth_code, compose, message_id, parse_mail,
    position_check,
};
use pbem::notation::parse_record;
use pbem::replay::replay_game;

const GAME: &str = "g-20261122-ab12cd";
const SECRET: &[u8] = b"fixture secret";

/// The record every fixture carries (the forged ones change it).
const RECORD: &str = "\
[Event \"Correspondence friendly between the Riverside and Hillcrest chess clubs\"]
[Site \"?\"]
[Date \"2026.11.22\"]
[Round \"-\"]
[White \"Alice Martin\"]
[Black \"Bob Okafor\"]
[Result \"*\"]
[GameId \"g-20261122-ab12cd\"]
[Variant \"chess\"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O
9. h3 Nb8 10. d4 Nbd7 *
";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/mail")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|error| panic!("read {name}: {error}"))
}

fn parse(name: &str) -> Result<Incoming, MailError> {
    parse_mail(&read(name))
}

fn alice() -> Mailbox {
    Mailbox {
        name: "Alice Martin".to_owned(),
        address: "alice@example.org".to_owned(),
    }
}

fn bob() -> Mailbox {
    Mailbox {
        name: "Bob Okafor".to_owned(),
        address: "bob@example.net".to_owned(),
    }
}

/// The final position of the record, replayed.
fn final_position(record: &str) -> Chess {
    let record = parse_record(record).expect("the record reads");
    replay_game::<Chess>(&record)
        .position
        .expect("the record replays")
}

fn composed(secret: Option<&[u8]>, note: Option<&str>) -> Vec<u8> {
    let position = final_position(RECORD);
    let (from, to) = (alice(), bob());
    compose(&Outgoing {
        game_id: GAME,
        from: &from,
        to: &to,
        ply: 20,
        last_turn: Some("10... Nbd7"),
        variant: "chess",
        diagram: &position.diagram(),
        position: &position.position_string(),
        record: RECORD,
        secret,
        date: chrono::DateTime::parse_from_rfc3339("2026-11-22T18:30:00Z")
            .unwrap()
            .to_utc(),
        note,
        answer: None,
    })
    .expect("compose")
}

#[test]
fn compose_writes_plain_eml_exactly() {
    let bytes = composed(Some(SECRET), None);
    if std::env::var_os("PBEM_BLESS").is_some() {
        std::fs::write(fixture("plain.eml"), &bytes).unwrap();
    }
    assert_eq!(
        String::from_utf8_lossy(&bytes),
        String::from_utf8_lossy(&read("plain.eml"))
    );
}

/// Reads a fixture that must come back with the record intact and a valid code.
fn assert_recovers(name: &str) -> Incoming {
    let incoming = parse(name).unwrap_or_else(|error| panic!("{name}: {error}"));
    assert_eq!(incoming.game_id, GAME, "{name}");
    assert_eq!(
        parse_record(&incoming.record).expect("the recovered record reads"),
        parse_record(RECORD).unwrap(),
        "{name}: the record differs"
    );
    assert_eq!(
        incoming.position_check.as_deref(),
        Some("1855bd9d"),
        "{name}"
    );
    incoming
        .verify(Some(SECRET))
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    incoming
}

#[test]
fn plain_mail_reads_back_exactly() {
    let incoming = assert_recovers("plain.eml");
    assert_eq!(incoming.record, RECORD);
    assert_eq!(incoming.from.as_deref(), Some("alice@example.org"));
    assert_eq!(
        incoming.message_id,
        Some(message_id(GAME, &parse_record(RECORD).unwrap(), 20))
    );
    assert_eq!(
        incoming.authentication,
        Some(auth_code(SECRET, GAME, RECORD))
    );
    let position = final_position(RECORD);
    assert_eq!(
        incoming.position_check,
        Some(position_check(&position.position_string()))
    );
}

#[test]
fn compose_threads_the_game_and_writes_short_lines() {
    let text = String::from_utf8(composed(None, Some("Draw offered."))).unwrap();
    let record = parse_record(RECORD).unwrap();
    let previous = message_id(GAME, &record, 19);
    assert!(previous.starts_with("<g-20261122-ab12cd.19."), "{previous}");
    assert!(text.contains(&format!(
        "\r\nMessage-ID: {}\r\n",
        message_id(GAME, &record, 20)
    )));
    assert!(text.contains(&format!("\r\nIn-Reply-To: {previous}\r\n")));
    assert!(text.contains(&format!(
        "\r\nReferences: {}\r\n {previous}\r\n",
        message_id(GAME, &record, 0)
    )));
    assert!(text.contains("Note from Alice Martin:"));
    assert!(!text.contains("Authentication:"));
    for line in text.split("\r\n") {
        assert!(line.len() <= 78, "line too long: {line:?}");
    }
    let incoming = parse_mail(text.as_bytes()).unwrap();
    assert_eq!(incoming.record, RECORD);
    assert_eq!(incoming.authentication, None);
    incoming.verify(None).unwrap();
    assert_eq!(
        incoming.verify(Some(SECRET)),
        Err(MailError::MissingAuthentication {
            game_id: GAME.to_owned()
        })
    );
}

#[test]
fn the_first_mail_of_a_game_starts_the_thread() {
    let record = "[White \"Alice Martin\"]\n[Black \"Bob Okafor\"]\n[GameId \"g-1\"]\n\n*\n";
    let (from, to) = (alice(), bob());
    let bytes = compose(&Outgoing {
        game_id: "g-1",
        from: &from,
        to: &to,
        ply: 0,
        last_turn: None,
        variant: "chess",
        diagram: "(diagram)",
        position: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        record,
        secret: Some(SECRET),
        date: chrono::DateTime::from_timestamp(0, 0).unwrap(),
        note: None,
        answer: None,
    })
    .unwrap();
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("Subject: [pbem g-1] new game of chess (Alice Martin - Bob Okafor)"));
    assert!(text.contains("Message-ID: <g-1.0."), "{text}");
    assert!(!text.contains("In-Reply-To"));
    assert!(!text.contains("References"));
    let incoming = parse_mail(text.as_bytes()).unwrap();
    assert_eq!(incoming.record, record);
    incoming.verify(Some(SECRET)).unwrap();
}

#[test]
fn compose_refuses_a_game_id_that_breaks_message_ids() {
    let (from, to) = (alice(), bob());
    let error = compose(&Outgoing {
        game_id: "g 1>",
        from: &from,
        to: &to,
        ply: 0,
        last_turn: None,
        variant: "chess",
        diagram: "",
        position: "",
        record: "*",
        secret: None,
        date: chrono::DateTime::from_timestamp(0, 0).unwrap(),
        note: None,
        answer: None,
    })
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot compose a mail for game \"g 1>\": a game id may only hold ASCII letters, digits, '-', '_' and '.'"
    );
}

#[test]
fn transfer_encodings_and_multipart_are_decoded() {
    assert_recovers("quoted-printable.eml");
    assert_recovers("base64.eml");
    assert_recovers("multipart-alternative.eml");
}

#[test]
fn an_html_only_mail_is_refused() {
    let error = parse("html-only.eml").unwrap_err();
    assert_eq!(error, MailError::HtmlOnly);
    assert_eq!(
        error.to_string(),
        "the mail has only an html part; pbem needs its plain-text part"
    );
}

#[test]
fn quoted_replies_are_unquoted() {
    let reply = assert_recovers("reply-quoted.eml");
    assert_eq!(reply.from.as_deref(), Some("bob@example.net"));
    assert_eq!(
        reply.message_id.as_deref(),
        Some("<CAF3x9Q@mail.example.net>")
    );
    // Replies carry no X-Pbem-Game header: the id comes from the record's tag.
    assert_recovers("reply-nested.eml");
    assert_recovers("format-flowed.eml");
}

#[test]
fn rewrapped_lines_are_recovered_when_the_tag_lines_join() {
    let incoming = assert_recovers("rewrapped.eml");
    assert!(incoming.record.contains(
        "[Event \"Correspondence friendly between the Riverside and Hillcrest chess clubs\"]\n"
    ));
    assert_eq!(
        parse("rewrapped-broken.eml").unwrap_err().to_string(),
        "the record's tag line 1 was broken by a mail client and does not close with ']': \"[Event \\\"Correspondence friendly between the Riverside and\""
    );
}

#[test]
fn truncated_and_foreign_mails_are_refused() {
    assert_eq!(
        parse("truncated.eml").unwrap_err().to_string(),
        "the record is truncated: no -----END PBEM RECORD----- line"
    );
    assert_eq!(
        parse("not-pbem.eml").unwrap_err().to_string(),
        "not a pbem mail: no -----BEGIN PBEM RECORD----- line"
    );
}

#[test]
fn forged_mails_fail_verification() {
    let forged = parse("forged.eml").expect("a forged mail has the right shape");
    assert_eq!(
        forged.verify(Some(SECRET)).unwrap_err().to_string(),
        "the authentication code of the mail for game g-20261122-ab12cd does not match its record and the game's secret: the mail was forged or changed"
    );
    // The genuine mail does not verify under another secret either.
    assert!(parse("plain.eml").unwrap().verify(Some(b"guess")).is_err());
    assert_eq!(
        parse("plain.eml")
            .unwrap()
            .verify(None)
            .unwrap_err()
            .to_string(),
        "the mail for game g-20261122-ab12cd carries an authentication code, but the game has no secret here to check it with"
    );

    let unsigned = parse("forged-no-code.eml").unwrap();
    assert_eq!(unsigned.authentication, None);
    assert_eq!(
        unsigned.verify(Some(SECRET)).unwrap_err().to_string(),
        "the mail for game g-20261122-ab12cd carries no authentication code, but the game has a secret: it may be forged"
    );
}

#[test]
fn a_position_check_that_disagrees_with_the_record_is_reported() {
    assert_eq!(
        parse("position-mismatch.eml").unwrap_err(),
        MailError::PositionCheck {
            game_id: GAME.to_owned(),
            stated: "0badc0de".to_owned(),
            computed: "1855bd9d".to_owned(),
        }
    );
}

#[test]
fn the_game_id_comes_from_header_tag_or_subject() {
    let incoming = parse("subject-only.eml").unwrap();
    assert_eq!(incoming.game_id, GAME);
    assert_eq!(
        parse("game-id-mismatch.eml").unwrap_err().to_string(),
        "the mail's X-Pbem-Game header names game g-20261122-ffffff but its record's [GameId] tag names game g-20261122-ab12cd"
    );
}

#[test]
fn every_fixture_is_tested() {
    // A fixture added without a test here would test nothing.
    let tested = [
        "base64.eml",
        "forged-no-code.eml",
        "forged.eml",
        "format-flowed.eml",
        "game-id-mismatch.eml",
        "html-only.eml",
        "multipart-alternative.eml",
        "not-pbem.eml",
        "plain.eml",
        "position-mismatch.eml",
        "quoted-printable.eml",
        "reply-nested.eml",
        "reply-quoted.eml",
        "rewrapped-broken.eml",
        "rewrapped.eml",
        "subject-only.eml",
        "truncated.eml",
    ];
    let mut found: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".eml"))
        .collect();
    found.sort();
    assert_eq!(found, tested);
}

#[test]
fn arbitrary_bytes_never_panic() {
    let plain = read("plain.eml");
    for cut in (0..plain.len()).step_by(7) {
        let _ = parse_mail(&plain[..cut]);
    }
    let _ = parse_mail(b"");
    let _ = parse_mail(&[0xff; 64]);
}
