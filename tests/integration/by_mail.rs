//! Mail without a server: the outbox and `send --dry-run`, replies as mail clients quote
//! them, and mails that arrive out of order, taken in from Maildirs.

use std::path::PathBuf;

use crate::play::{Homes, ok, text};
use crate::support::homes::{assert_error, assert_refused};
use crate::support::homes::{
    assert_reshuffled, count, game_path, hand_over, start_before_the_reshuffle,
};

#[test]
fn send_dry_run_writes_the_mail_to_a_folder() {
    let homes = Homes::new("dry-run", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "Nf3"]));
    let dir = homes.alice.dir.join("drafts");
    let out = ok(&homes.alice.run(
        "2026-11-01T10:00:00Z",
        &["send", "--dry-run", dir.to_str().unwrap(), &id],
    ));
    let path = PathBuf::from(out.trim());
    let mail = std::fs::read_to_string(&path).unwrap();
    assert!(mail.contains(&format!("Message-ID: <{id}.1.")), "{mail}");
    assert!(mail.contains(&format!("In-Reply-To: <{id}.0.")), "{mail}");
    assert!(mail.contains("1. Nf3"), "{mail}");
    assert_eq!(count(&homes.alice.dir.join("outbox")), 0);
    // Bob takes the file in directly.
    let taken = ok(&homes
        .bob
        .run("2026-11-01T11:00:00Z", &["receive", path.to_str().unwrap()]));
    assert!(
        taken.contains("new game from alice@example.org, last turn 1. Nf3"),
        "{taken}"
    );
    // Without smtp settings a send keeps the mail in the outbox and says so.
    let kept = homes.bob.run("2026-11-01T12:00:00Z", &["move", &id, "d5"]);
    ok(&kept);
    let unsent = homes.bob.run("2026-11-01T12:00:00Z", &["send", &id]);
    assert_error(&unsent, "no smtp section");
    assert_eq!(count(&homes.bob.dir.join("outbox")), 2);
}

/// A mail as a reply quotes it: the record between the markers, every line after `> `.
fn quoted_reply(record: &str, from: &str, keep_end: bool) -> String {
    let mut body =
        String::from("On Sunday you wrote:\n> pbem game\n>\n> -----BEGIN PBEM RECORD-----\n");
    for line in record.lines() {
        body.push_str(&format!("> {line}\n"));
    }
    if keep_end {
        body.push_str("> -----END PBEM RECORD-----\n");
    } else {
        // Cut off in the middle of the movetext.
        body.truncate(body.len() - 20);
        body.push('\n');
    }
    format!(
        "From: Alice <{from}>\nTo: bob@example.org\nSubject: Re: your move\nContent-Type: text/plain; charset=utf-8\n\n{body}"
    )
}

#[test]
fn quoted_replies_are_taken_in_and_truncated_mails_refused() {
    let homes = Homes::new("quoted", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "Nf3"]));
    let record = std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap();

    let truncated = homes.bob.dir.join("truncated.eml");
    std::fs::write(
        &truncated,
        quoted_reply(&record, "alice@example.org", false),
    )
    .unwrap();
    let refused = homes.bob.run(
        "2026-11-01T11:00:00Z",
        &["receive", truncated.to_str().unwrap()],
    );
    assert_refused(&refused, "truncated");
    assert!(!game_path(&homes.bob, &id).exists());

    let stranger = homes.bob.dir.join("stranger.eml");
    std::fs::write(
        &stranger,
        quoted_reply(&record, "mallory@example.org", true),
    )
    .unwrap();
    let refused = homes.bob.run(
        "2026-11-01T11:00:00Z",
        &["receive", stranger.to_str().unwrap()],
    );
    assert_refused(&refused, "comes from mallory@example.org");

    let quoted = homes.bob.dir.join("quoted.eml");
    std::fs::write(&quoted, quoted_reply(&record, "alice@example.org", true)).unwrap();
    let input = std::fs::read(&quoted).unwrap();
    let taken = ok(&homes
        .bob
        .run_with_stdin("2026-11-01T11:00:00Z", &["receive", "-"], &input));
    assert!(taken.contains("last turn 1. Nf3"), "{taken}");
    let bobs = std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap();
    assert_eq!(bobs, record);
}

#[test]
fn mails_that_arrive_out_of_order_do_not_undo_newer_ones() {
    let homes = Homes::new("reordered", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let drafts = homes.alice.dir.join("drafts");
    let drafts_arg = drafts.to_str().unwrap();
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let first = PathBuf::from(
        ok(&homes.alice.run(
            "2026-11-01T10:00:00Z",
            &["send", "--dry-run", drafts_arg, &id],
        ))
        .trim(),
    );
    let first_copy = homes.bob.dir.join("first.eml");
    std::fs::copy(&first, &first_copy).unwrap();
    ok(&homes
        .alice
        .run("2026-11-01T10:30:00Z", &["draw", "offer", &id]));
    let second = PathBuf::from(
        ok(&homes.alice.run(
            "2026-11-01T10:30:00Z",
            &["send", "--dry-run", drafts_arg, &id],
        ))
        .trim(),
    );

    // The offer arrives first, then the move alone.
    let taken = ok(&homes.bob.run(
        "2026-11-01T11:00:00Z",
        &["receive", second.to_str().unwrap()],
    ));
    assert!(
        taken.contains(&format!(
            "Alice (White) offers a draw (`pbem draw accept {id}` accepts it, or play on)"
        )),
        "{taken}"
    );
    let late = ok(&homes.bob.run(
        "2026-11-01T11:05:00Z",
        &["receive", first_copy.to_str().unwrap()],
    ));
    assert!(late.contains("an older mail"), "{late}");
    let status = ok(&homes.bob.run("2026-11-01T11:10:00Z", &["status"]));
    assert!(status.contains("White offers a draw"), "{status}");
    ok(&homes
        .bob
        .run("2026-11-01T11:10:00Z", &["draw", "accept", &id]));
}

/// Mails the latest state of a game from one home to the other (`send --dry-run`, then
/// `receive`); returns what the receiver printed.
fn exchange(
    from: &crate::support::homes::Player,
    to: &crate::support::homes::Player,
    id: &str,
    now: &str,
) -> (String, String) {
    let drafts = from.dir.join("drafts");
    let path = PathBuf::from(
        ok(&from.run(now, &["send", "--dry-run", drafts.to_str().unwrap(), id])).trim(),
    );
    let mail = std::fs::read_to_string(&path).unwrap();
    (ok(&to.run(now, &["receive", path.to_str().unwrap()])), mail)
}

/// A Cards (and a Cards II) game by mail through a scoring attempt: the thrower leads a
/// card, the opponent answers it, a tie asks the thrower for another, the discards are
/// reshuffled on the way, and the attempt decides; no side is stuck on the way.
#[test]
fn a_cards_scoring_attempt_is_played_by_mail_through_a_tie_and_the_reshuffle() {
    for mode in ["cards", "cards2"] {
        let homes = Homes::new(&format!("wickets-{mode}"), "");
        // Nineteen cards discarded: the twenty-first card played is the reshuffle.
        let id = start_before_the_reshuffle(&homes, mode);
        exchange(&homes.alice, &homes.bob, &id, "2026-11-01T09:01:00Z");
        ok(&homes
            .alice
            .run("2026-11-01T10:00:00Z", &["move", &id, "Ke2:w9_cH5"]));
        let (taken, first_mail) = exchange(&homes.alice, &homes.bob, &id, "2026-11-01T10:01:00Z");
        assert!(taken.contains("Ke2:w9_cH5"), "{taken}");
        // Black must answer the card before anything else; White cannot play on.
        let early = homes.bob.run("2026-11-01T11:00:00Z", &["move", &id, "Kg8"]);
        assert_ne!(early.status.code(), Some(0));
        let waiting = homes
            .alice
            .run("2026-11-01T11:00:00Z", &["move", &id, "H9"]);
        assert_ne!(waiting.status.code(), Some(0));
        // A tie (20th and 21st cards: the discards are reshuffled).
        let tie = ok(&homes.bob.run("2026-11-01T11:00:00Z", &["move", &id, "S5"]));
        assert!(tie.contains("Ke2:w9_cH5_cS5"), "{tie}");
        let (taken, tie_mail) = exchange(&homes.bob, &homes.alice, &id, "2026-11-01T11:01:00Z");
        assert!(taken.contains("updated the game"), "{taken}");
        let id_of = |mail: &str| {
            mail.lines()
                .find(|line| line.starts_with("Message-ID:"))
                .map(str::to_owned)
                .unwrap()
        };
        assert_ne!(id_of(&first_mail), id_of(&tie_mail));
        // The thrower's next card, then the reply that decides: the wicket is taken.
        ok(&homes
            .alice
            .run("2026-11-01T12:00:00Z", &["move", &id, "cH9"]));
        exchange(&homes.alice, &homes.bob, &id, "2026-11-01T12:01:00Z");
        ok(&homes
            .bob
            .run("2026-11-01T13:00:00Z", &["move", &id, "_cS2"]));
        // The Defender h1 is gone: Black names a new one and plays on.
        ok(&homes
            .bob
            .run("2026-11-01T13:00:00Z", &["move", &id, "Dh7:Kg8"]));
        let (taken, _) = exchange(&homes.bob, &homes.alice, &id, "2026-11-01T13:01:00Z");
        assert!(taken.contains("Dh7:Kg8"), "{taken}");
        let game = game_path(&homes.alice, &id);
        let record = std::fs::read_to_string(&game).unwrap();
        assert!(
            record.contains("1. Ke2:w9_cH5_cS5_cH9_cS2 {") && record.contains("1... Dh7:Kg8 {"),
            "{record}"
        );
        // After the reshuffle only H9 and S2 are discarded.
        assert_reshuffled(&homes.alice, "2026-11-01T13:02:00Z", &game, mode);
    }
}

/// Cards II by mail: a failing first pair does not decide the attempt; the thrower, told
/// by the mail, plays a second pair or declines it (`-`), and only then the opponent
/// plays on. `pbem legal` lists what the awaited side may add, and every card answered
/// carries its own player's stamp, so its time counts.
#[test]
fn a_failing_first_pair_in_cards_two_asks_the_thrower_for_a_second_pair_by_mail() {
    for second in [Some("H7"), None] {
        let name = if second.is_some() {
            "played"
        } else {
            "declined"
        };
        let homes = Homes::new(&format!("wickets-cards2-{name}"), "");
        let fen = "7k/7p/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards2 0 1";
        let id = homes.start(
            "2026-11-01T09:00:00Z",
            &["--variant", "wickets", "--fen", fen, "--cards-by-hand"],
        );
        exchange(&homes.alice, &homes.bob, &id, "2026-11-01T09:01:00Z");
        ok(&homes
            .alice
            .run("2026-11-01T10:00:00Z", &["move", &id, "Ke2:w9_cS2"]));
        exchange(&homes.alice, &homes.bob, &id, "2026-11-01T10:01:00Z");
        // Black's possible replies: without a deal the hands are hidden, so every card
        // not discarded.
        let legal = homes.bob.run("2026-11-02T09:00:00Z", &["legal", &id]);
        assert_eq!(legal.status.code(), Some(0));
        let cards = text(&legal.stdout);
        assert_eq!(cards.lines().count(), 39, "{cards}");
        assert!(
            cards.lines().any(|card| card == "S9") && !cards.lines().any(|card| card == "S2"),
            "{cards}"
        );
        assert!(
            text(&legal.stderr).contains("awaits Black's card in reply to White's S2"),
            "{}",
            text(&legal.stderr)
        );
        ok(&homes.bob.run("2026-11-02T10:00:00Z", &["move", &id, "S9"]));
        let (taken, _) = exchange(&homes.bob, &homes.alice, &id, "2026-11-02T10:01:00Z");
        assert!(taken.contains("updated the game"), "{taken}");
        assert!(taken.contains("your card"), "{taken}");
        // 2 loses to 9: White is asked about a second pair; Black may not play on.
        let early = homes.bob.run("2026-11-02T11:00:00Z", &["move", &id, "Kg8"]);
        assert_ne!(early.status.code(), Some(0));
        let status = ok(&homes.alice.run("2026-11-03T09:00:00Z", &["status"]));
        assert!(status.contains("your card awaited"), "{status}");
        let legal = homes.alice.run("2026-11-03T09:00:00Z", &["legal", &id]);
        let parts = text(&legal.stdout);
        assert!(parts.lines().any(|part| part == "-"), "{parts}");
        assert!(
            text(&legal.stderr).contains("awaits White's card for a second pair"),
            "{}",
            text(&legal.stderr)
        );
        let choice = second.unwrap_or("-");
        ok(&homes
            .alice
            .run("2026-11-03T10:00:00Z", &["move", &id, choice]));
        exchange(&homes.alice, &homes.bob, &id, "2026-11-03T10:01:00Z");
        let expected = if second.is_some() {
            // 7 beats 1: the wicket is taken, Black names a new Defender.
            ok(&homes.bob.run("2026-11-04T10:00:00Z", &["move", &id, "H1"]));
            ok(&homes
                .bob
                .run("2026-11-04T10:00:00Z", &["move", &id, "Dh7:Kg8"]));
            ["1. Ke2:w9_cS2_cS9_cH7_cH1 {", "1... Dh7:Kg8 {"]
        } else {
            // The failure stands: the Defender h1 stays, Black plays on.
            ok(&homes.bob.run("2026-11-04T10:00:00Z", &["move", &id, "Kg8"]));
            ["1. Ke2:w9_cS2_cS9_c- {", "1... Kg8 {"]
        };
        let (taken, _) = exchange(&homes.bob, &homes.alice, &id, "2026-11-04T10:01:00Z");
        assert!(
            taken.contains(expected[1].trim_end_matches(" {")),
            "{taken}"
        );
        let game = |player: &crate::support::homes::Player| {
            std::fs::read_to_string(game_path(player, &id)).unwrap()
        };
        let record = game(&homes.alice);
        assert_eq!(record, game(&homes.bob));
        // (The writer wraps long comments: compare with the lines joined.)
        let record = record.replace('\n', " ");
        assert!(
            expected.iter().all(|part| record.contains(part)),
            "{record}"
        );
        // Each card answered has its player's stamp: from the mail it answers to the card.
        assert!(
            record
                .contains("{black [%received 2026-11-01T10:01:00Z] [%sent 2026-11-02T10:00:00Z]}")
                && record.contains(
                    "{white [%received 2026-11-02T10:01:00Z] [%sent 2026-11-03T10:00:00Z]}"
                ),
            "{record}"
        );
        let valid = ok(&homes.alice.run(
            "2026-11-05T00:00:00Z",
            &["validate", game_path(&homes.alice, &id).to_str().unwrap()],
        ));
        assert!(!valid.contains("warning"), "{valid}");
    }
}

/// A command of a game played in a test: whether Alice runs it (else Bob), and its
/// arguments without the game id.
type Step<'a> = (bool, &'a [&'a str]);

#[test]
fn the_end_of_a_game_arrives_in_words() {
    // Each game: the commands Alice and Bob run in turn (each mailed to the other), and
    // what the receiver of the last mail is told.
    let cases: [(&[Step], &str); 4] = [
        (
            &[(true, &["move", "e4"]), (false, &["resign"])],
            "Bob (Black) resigned: Alice (White) wins, 1-0",
        ),
        (
            &[
                (true, &["move", "e4", "--offer-draw"]),
                (false, &["draw", "accept"]),
            ],
            "Bob (Black) accepted the draw offer: the game is drawn, 1/2-1/2",
        ),
        (
            &[
                (true, &["move", "Nf3"]),
                (false, &["move", "Nf6"]),
                (true, &["move", "Ng1"]),
                (false, &["move", "Ng8"]),
                (true, &["move", "Nf3"]),
                (false, &["move", "Nf6"]),
                (true, &["move", "Ng1"]),
                (false, &["move", "Ng8"]),
                (true, &["draw", "claim"]),
            ],
            "Alice (White) claimed a draw by threefold repetition: the game is drawn, 1/2-1/2",
        ),
        (
            &[
                (true, &["move", "f3"]),
                (false, &["move", "e5"]),
                (true, &["move", "g4"]),
                (false, &["move", "Qh4"]),
            ],
            "Bob (Black) wins by checkmate, 0-1",
        ),
    ];
    for (index, (steps, told)) in cases.into_iter().enumerate() {
        let homes = Homes::new(&format!("end-words-{index}"), "");
        let id = homes.start("2026-11-01T09:00:00Z", &[]);
        let mut said = String::new();
        for (step, (alice, args)) in steps.iter().enumerate() {
            let (from, to) = if *alice {
                (&homes.alice, &homes.bob)
            } else {
                (&homes.bob, &homes.alice)
            };
            let now = format!("2026-11-01T{:02}:00:00Z", 10 + step);
            let mut args = args.to_vec();
            // `move GAME TURN`, `draw ACTION GAME`, `resign GAME`.
            match args[0] {
                "move" => args.insert(1, &id),
                _ => args.push(&id),
            }
            ok(&from.run(&now, &args));
            said = hand_over(from, to, &now, &now, &id);
        }
        assert!(said.contains(told), "{told}\n{said}");
        assert!(!said.contains("the game is over"), "{said}");
    }
}

/// Names far longer than a header line, as one word (which lettre writes whole), as long
/// words between spaces, with quotes and backslashes (which a quoted string escapes), and
/// not ASCII: `pbem new` takes them, and every header line of the mails that `send
/// --dry-run` writes stays within the 78 characters RFC 5322 asks for (998 at most), while
/// the headers and the record read back to the names as given and Bob's pbem takes the
/// mails in with the names intact.
#[test]
fn long_names_are_folded_in_the_headers_and_read_back_intact() {
    let names = [
        "A".repeat(5000),
        format!("Ann{} ", "n".repeat(97))
            .repeat(50)
            .trim()
            .to_owned(),
        "O\"Brien\\".repeat(600),
        "Émile".repeat(1000),
        "Ann Lee ".repeat(625).trim().to_owned(),
    ];
    for (number, white) in names.iter().enumerate() {
        let black = format!("B{white}");
        let homes = Homes::new(&format!("long-name-{number}"), "");
        // Alice's own name too (the mails' From), as JSON, a YAML double-quoted string.
        std::fs::write(
            homes.alice.config(),
            format!(
                "player:\n  name: {}\n  email: alice@example.org\n",
                serde_json::to_string(white).unwrap()
            ),
        )
        .unwrap();
        let output = homes.alice.run(
            "2026-11-01T09:00:00Z",
            &[
                "new",
                "--white",
                white,
                "--white-email",
                "alice@example.org",
                "--black",
                &black,
                "--black-email",
                "bob@example.org",
            ],
        );
        let path = PathBuf::from(ok(&output).trim());
        let id = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let drafts = homes.alice.dir.join("drafts");
        let drafts = drafts.to_str().unwrap();
        let start = ok(&homes
            .alice
            .run("2026-11-01T09:00:00Z", &["send", "--dry-run", drafts, &id]));
        ok(&homes
            .alice
            .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
        let first = ok(&homes
            .alice
            .run("2026-11-01T10:00:00Z", &["send", "--dry-run", drafts, &id]));
        for (mail, subject) in [(start.trim(), "new game of Chess"), (first.trim(), "1. e4")] {
            let bytes = std::fs::read(mail).unwrap();
            let end = bytes
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .expect("a blank line after the headers");
            for line in bytes[..end].split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                assert!(
                    line.len() <= 78,
                    "name {number}: a header line of {} octets: {}",
                    line.len(),
                    String::from_utf8_lossy(&line[..line.len().min(120)])
                );
            }
            let message = mail_parser::MessageParser::default()
                .parse(&bytes)
                .expect("the mail parses");
            let name = |address: Option<&mail_parser::Address>| {
                address
                    .and_then(|a| a.first())
                    .and_then(|a| a.name())
                    .map(str::to_owned)
            };
            // Compared as booleans: a failure would print 5000 characters otherwise.
            assert!(
                name(message.from()).as_ref() == Some(white),
                "name {number}: From"
            );
            assert!(
                name(message.to()).as_ref() == Some(&black),
                "name {number}: To"
            );
            let expected = format!("[pbem {id}] {subject} ({white} - {black})");
            assert!(
                message.subject() == Some(expected.as_str()),
                "name {number}: Subject"
            );
            ok(&homes.bob.run("2026-11-01T11:00:00Z", &["receive", mail]));
        }
        let record =
            std::fs::read_to_string(game_path(&homes.bob, &id)).expect("Bob's copy of the game");
        let record = pbem::notation::parse_record(&record).expect("Bob's record reads");
        assert!(record.tag("White") == Some(white.as_str()), "name {number}");
        assert!(record.tag("Black") == Some(black.as_str()), "name {number}");
    }
}
