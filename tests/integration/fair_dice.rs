//! Fair dice by mail (issue 16, `notation/fair-chance.md`): two players' pbem, each with
//! its own Maildir, play a Dice II game to a scoring attempt whose roll neither chose;
//! both game files validate "chance proven fair", and tampered mails are refused with
//! the ply and the reason.

use crate::support::homes::{Homes, deliver, game_path, mail_of, ok, post, text, validate};
use crate::support::homes::{TO_THE_ATTEMPT, play_by_maildir, wickets_to_the_attempt};
use crate::support::homes::{assert_error, assert_proven_fair_on_both_sides, assert_refused};

/// Plays a Dice II game by Maildir up to White's attempt and Black's reply; returns the
/// homes, the game id and the mail that carried the completed roll.
fn play_to_attempt(name: &str) -> (Homes, String, Vec<u8>) {
    let homes = Homes::new(name, "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", "Dice II"],
    );
    let (alice, bob) = (&homes.alice, &homes.bob);
    for (i, token) in TO_THE_ATTEMPT.iter().enumerate() {
        let (_, to) = play_by_maildir(&homes, &id, i, token);
        if i == 0 {
            // Black's commitment, written on its first receipt, is not a move of Black's.
            let drafts = to.dir.join("drafts");
            let said = ok(&to.run(
                "2026-11-01T10:00:00Z",
                &["send", "--dry-run", drafts.to_str().unwrap(), &id],
            ));
            assert!(
                said.contains("nothing to send: the latest turn, 1. e4"),
                "{said}"
            );
        }
    }
    // Black's pbem committed on its first receipt, White's at `pbem new`.
    let record = std::fs::read_to_string(game_path(alice, &id)).unwrap();
    let words = record.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("{white [%chance commit "), "{record}");
    assert!(words.contains("{black [%chance commit "), "{record}");
    // A roll typed by hand is refused in a game with fair dice.
    let typed = alice.run("2026-11-07T10:00:00Z", &["move", &id, "Nxe5:w9_r6"]);
    assert_error(&typed, "ply 7: the attempt has no reveal by White");
    // The attempt goes without its roll; a2 is named for a second roll.
    let sent = ok(&alice.run("2026-11-07T10:00:00Z", &["move", &id, "Nxe5:w9_sa2"]));
    assert!(sent.contains("4. Nxe5:w9_sa2"), "{sent}");
    assert!(sent.contains("computes the roll"), "{sent}");
    let shown = ok(&alice.run("2026-11-07T10:01:00Z", &["show", &id]));
    assert!(shown.contains("dice2/?a2"), "{shown}");
    assert!(shown.contains("awaits its roll"), "{shown}");
    // White cannot play on while the roll is awaited.
    let early = alice.run("2026-11-07T10:02:00Z", &["move", &id, "d4"]);
    assert_ne!(early.status.code(), Some(0));
    // Black's pbem computes the roll on receipt and shows it.
    let taken = post(alice, bob, "2026-11-07T11:00:00Z", &id, "attempt");
    assert!(taken.contains("the roll"), "{taken}");
    // The reveal Black's pbem added on receipt is not Black's move: Black has nothing to
    // send until it plays, and White has (its attempt).
    let drafts = bob.dir.join("drafts");
    let said = ok(&bob.run(
        "2026-11-07T11:01:00Z",
        &["send", "--dry-run", drafts.to_str().unwrap(), &id],
    ));
    assert!(
        said.contains("nothing to send: the latest turn, 4. Nxe5:w9_r")
            && said.contains("it is your turn"),
        "{said}"
    );
    let record = std::fs::read_to_string(game_path(bob, &id)).unwrap();
    let token = record
        .split_whitespace()
        .find(|word| word.starts_with("Nxe5:w9_r"))
        .unwrap_or_else(|| panic!("{record}"))
        .to_owned();
    // Black's pbem says what the roll decided: 5 or 6 was needed (White's Defender sees
    // its wicket), and after a failure a2 bought a second roll.
    let rolls: Vec<u8> = token
        .split("_r")
        .skip(1)
        .map(|part| part.as_bytes()[0] - b'0')
        .collect();
    let expected = match rolls[..] {
        [first] if first >= 5 => {
            format!("the roll is {first}: the attempt succeeds, 5 or 6 was needed")
        }
        [first, second] if first < 5 => format!(
            "the roll is {first}: it fails, 5 or 6 was needed; the piece on a2 is sacrificed \
             for a second roll, {second}: the attempt {}, 5 or 6 was needed",
            if second >= 5 { "succeeds" } else { "fails" }
        ),
        _ => panic!("{token}"),
    };
    assert!(taken.contains(&expected), "{expected}\n{taken}");
    // Black plays on: after a success it names a Defender first.
    let reply = if token.ends_with("_r5") || token.ends_with("_r6") {
        "Dg8:Kxe5"
    } else {
        "Kxe5"
    };
    ok(&bob.run("2026-11-08T10:00:00Z", &["move", &id, reply]));
    let mail = std::fs::read(mail_of(bob, "2026-11-08T10:00:00Z", &id)).unwrap();
    (homes, id, mail)
}

#[test]
fn a_dice_two_game_by_maildir_is_proven_fair_on_both_sides() {
    let (homes, id, mail) = play_to_attempt("fair-dice");
    let taken = ok(&deliver(
        &homes.alice,
        "2026-11-08T11:00:00Z",
        &mail,
        "reply",
    ));
    assert!(taken.contains("Kxe5"), "{taken}");
    assert_proven_fair_on_both_sides(&homes, &id, "; chance proven fair (");
}

/// Black's value for event 1 in a game file (its lines may be wrapped anywhere).
fn black_reveal(record: &str) -> String {
    let words: Vec<&str> = record.split_whitespace().collect();
    let at = words
        .windows(4)
        .position(|w| w == ["{black", "[%chance", "reveal", "1"])
        .expect("a reveal");
    words[at + 4][..64].to_owned()
}

/// Another roll with the same outcome (5 or 6 is needed): the last roll of the token
/// changed, so that the position, and the mail's position check, stay the same.
fn same_outcome_other_roll(token: &str) -> String {
    let last: u8 = token[token.len() - 1..].parse().unwrap();
    let other = match last {
        5 => 6,
        6 => 5,
        n => n % 4 + 1,
    };
    format!("{}{other}", &token[..token.len() - 1])
}

#[test]
fn tampered_dice_mails_are_refused_with_the_ply_and_the_reason() {
    let (homes, id, mail) = play_to_attempt("fair-dice-tamper");
    // Bob edits his game file, then mails it: Alice's pbem refuses each forgery.
    let bob_file = game_path(&homes.bob, &id);
    let record = std::fs::read_to_string(&bob_file).unwrap();
    let forge = |forged: &str, name: &str| {
        std::fs::write(&bob_file, forged).unwrap();
        let bytes = std::fs::read(mail_of(&homes.bob, "2026-11-08T10:30:00Z", &id)).unwrap();
        let refused = deliver(&homes.alice, "2026-11-08T11:00:00Z", &bytes, name);
        let said = text(&refused.stdout) + &text(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{said}");
        said
    };
    // An edited reveal.
    let value = black_reveal(&record);
    let mut edited = value.clone();
    let last = if edited.ends_with('0') { "1" } else { "0" };
    edited.replace_range(63..64, last);
    let said = forge(&record.replace(&value, &edited), "f1");
    assert!(
        said.contains("ply 7: Black's value for event 1 does not match its commitment"),
        "{said}"
    );
    // A roll the values do not give (with the same outcome, so the game goes on alike).
    let token = record
        .split_whitespace()
        .find(|word| word.starts_with("Nxe5:w9_r"))
        .unwrap()
        .to_owned();
    let said = forge(
        &record.replace(&token, &same_outcome_other_roll(&token)),
        "f2",
    );
    assert!(said.contains("ply 7: roll "), "{said}");
    assert!(said.contains("but the revealed values give"), "{said}");
    // An old value replayed: Black's reveal gives its commitment (the tip) again.
    let words: Vec<&str> = record.split_whitespace().collect();
    let at = words
        .windows(3)
        .position(|w| w == ["{black", "[%chance", "commit"])
        .unwrap();
    let tip = words[at + 3][..64].to_owned();
    let said = forge(&record.replace(&value, &tip), "f3");
    assert!(
        said.contains("ply 7: Black's value for event 1 does not match its commitment"),
        "{said}"
    );
    // Nothing was lost: the true mail is still taken in, and the files agree.
    std::fs::write(&bob_file, &record).unwrap();
    ok(&deliver(
        &homes.alice,
        "2026-11-08T12:00:00Z",
        &mail,
        "true",
    ));
    let path = game_path(&homes.alice, &id);
    assert!(text(&validate(&path).stdout).contains("chance proven fair"));
    // A game file edited afterwards: validate says broken, with the ply, and fails.
    let text_now = std::fs::read_to_string(&path).unwrap();
    let broken = path.with_file_name("edited.pgn");
    std::fs::write(&broken, text_now.replace(&value, &edited)).unwrap();
    let out = validate(&broken);
    assert_refused(&out, "invalid, 8 plies (1 error); chance broken at ply 7");
}

/// In a game with fair dice pbem draws the roll: `pbem legal` lists an attempt as the
/// player types it (`Nxe5:w9`, not `Nxe5:w9_r1` to `_r6`, which `move` refuses as written
/// by hand), and so does the legal list of a refused turn; the listed attempt is what
/// `move` takes (issue 31, point 13).
#[test]
fn legal_lists_an_attempt_as_it_is_typed_in_a_game_with_fair_dice() {
    let (homes, id) = wickets_to_the_attempt("fair-dice-legal", "Dice");
    let alice = &homes.alice;
    let legal = ok(&alice.run("2026-11-07T09:00:00Z", &["legal", &id]));
    let lines: Vec<&str> = legal.lines().collect();
    assert!(lines.contains(&"Nxe5:w9"), "{legal}");
    assert!(!legal.contains("_r"), "{legal}");
    let mut once = lines.clone();
    once.dedup();
    assert_eq!(once, lines, "each turn once");
    // A mistyped attempt is shown with the same list, and the attempt as typed closest.
    let refused = alice.run("2026-11-07T09:30:00Z", &["move", &id, "Nxe5w9"]);
    let said = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(
        said.contains("help: closest legal turn: Nxe5:w9\n"),
        "{said}"
    );
    assert!(
        said.contains(&format!("help: legal turns ({}): ", lines.len())),
        "{said}"
    );
    assert!(!said.contains("_r"), "{said}");
    // An attempt typed with its roll says how to type it.
    let rolled = alice.run("2026-11-07T09:40:00Z", &["move", &id, "Nxe5:w9_r6"]);
    assert!(
        text(&rolled.stderr).contains(&format!(
            "the roll was written by hand; pbem draws the roll, so type the attempt without \
             it: pbem move {id} Nxe5:w9"
        )),
        "{}",
        text(&rolled.stderr)
    );
    let played = ok(&alice.run("2026-11-07T10:00:00Z", &["move", &id, "Nxe5:w9"]));
    assert!(played.contains("4. Nxe5:w9"), "{played}");
}

/// A roll withheld: Black's pbem rolls White's attempt on receipt, and Black, not liking
/// it, never mails it. White's `status` says a roll (not a card) is awaited, since the
/// attempt's mail; once Black is over its time under the game's control, White claims
/// the game on time, as of any silent opponent, and the file validates with that end.
#[test]
fn a_withheld_roll_is_shown_as_awaited_and_claimed_on_time() {
    let homes = Homes::new("dice-withheld", "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &[
            "--variant",
            "wickets",
            "--decision",
            "Dice",
            "--time-control",
            "3d",
        ],
    );
    let (alice, bob) = (&homes.alice, &homes.bob);
    for (i, token) in TO_THE_ATTEMPT.iter().enumerate() {
        play_by_maildir(&homes, &id, i, token);
    }
    ok(&alice.run("2026-11-07T10:00:00Z", &["move", &id, "Nxe5:w9"]));
    let taken = post(alice, bob, "2026-11-07T10:05:00Z", &id, "attempt");
    assert!(taken.contains("the roll is"), "{taken}");
    // Black keeps the roll to itself. White's status: Black's roll, since the attempt.
    let status = ok(&alice.run("2026-11-09T12:00:00Z", &["status"]));
    assert!(
        status.contains("move 4..., Black's roll awaited since 2026-11-07 10:00 UTC"),
        "{status}"
    );
    assert!(!status.contains("card"), "{status}");
    // Not yet over its time (3 days from the day after the attempt): the claim is refused
    // and changes nothing.
    let before = std::fs::read(game_path(alice, &id)).unwrap();
    let early = alice.run("2026-11-09T12:00:00Z", &["claim-time", &id]);
    assert_error(&early, "Black is not over its time: 1d 12h left under 3d");
    assert_eq!(std::fs::read(game_path(alice, &id)).unwrap(), before);
    // Black cannot claim White's time: its own roll is awaited.
    let wrong_side = bob.run("2026-11-20T12:00:00Z", &["claim-time", &id]);
    assert_ne!(wrong_side.status.code(), Some(0));
    // Past the deadline: OVERDUE, and the claim wins the game.
    let late = ok(&alice.run("2026-11-11T12:00:00Z", &["status"]));
    assert!(
        late.contains("OVERDUE") && late.contains(&format!("pbem claim-time {id}")),
        "{late}"
    );
    let claimed = ok(&alice.run("2026-11-11T12:00:00Z", &["claim-time", &id]));
    assert!(claimed.contains("claimed on time: 1-0"), "{claimed}");
    let record = std::fs::read_to_string(game_path(alice, &id)).unwrap();
    assert!(
        record.contains("{white [%timeout 2026-11-11T12:00:00Z]}"),
        "{record}"
    );
    let out = validate(&game_path(alice, &id));
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("1-0"), "{said}");
    let status = ok(&alice.run("2026-11-11T12:01:00Z", &["status"]));
    assert!(
        status.contains(&format!(
            "finished 1-0; your last mail is not sent yet: pbem send {id}"
        )),
        "{status}"
    );
}
