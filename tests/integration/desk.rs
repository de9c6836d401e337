//! The library's desk used directly (`pbem::desk`), as another program would: two homes,
//! one plays with `desk::play`, the other takes the mail in with `desk::inbox`, and the
//! typed results say what was done; the `pbem` binary then finds the same game files.

use pbem::config::Player as Who;
use pbem::correspondence::Event;
use pbem::desk::inbox::{self, Refusal, Taken};
use pbem::desk::outbox::{self, Latest};
use pbem::desk::play::{self, Acted, GameSetup, Played, TurnOptions};
use pbem::desk::{DeskError, Home};

use crate::support::homes::{Homes, ok, text};

fn at(instant: &str) -> chrono::DateTime<chrono::Utc> {
    pbem::clock::parse_instant(instant).expect("an RFC 3339 instant")
}

fn who(name: &str, email: &str) -> Who {
    Who {
        name: name.to_owned(),
        email: email.to_owned(),
    }
}

/// The mail of the game's current state, which `home`'s player owes.
fn latest_mail(home: &Home, id: &str, now: &str) -> outbox::Composed {
    match outbox::compose_latest(id, home, at(now)).expect("composed") {
        Latest::Mail(composed) => composed,
        Latest::Nothing { why, .. } => panic!("nothing to send: {why}"),
    }
}

#[test]
fn a_turn_played_with_the_library_is_taken_in_with_the_library() {
    let homes = Homes::new("desk-turn", "");
    let alice = Home::open(Some(&homes.alice.config())).expect("Alice's home");
    let bob = Home::open(Some(&homes.bob.config())).expect("Bob's home");
    let created = play::new_game(
        &alice,
        &GameSetup::new(
            who("Alice", "alice@example.org"),
            who("Bob", "bob@example.org"),
            at("2026-11-01T09:00:00Z"),
        ),
    )
    .expect("a new game");
    assert!(created.path.is_file(), "{}", created.path.display());
    assert_eq!(created.secret, None);
    let id = created.id;

    // Alice plays; it is not her turn again after that.
    let played = play::play_turn(
        &alice,
        &id,
        "e4",
        &TurnOptions::at(at("2026-11-01T10:00:00Z")),
    )
    .expect("a legal turn");
    assert_eq!(
        played,
        Played {
            id: id.clone(),
            label: "1. e4".to_owned(),
            offered_draw: false,
            result: None,
            chance: None,
            awaits_roll: false,
        }
    );
    let again = play::play_turn(
        &alice,
        &id,
        "d4",
        &TurnOptions::at(at("2026-11-01T10:05:00Z")),
    );
    assert!(
        matches!(&again, Err(DeskError::Cannot(why)) if why.contains("it is Black's turn, and you play White")),
        "{again:?}"
    );
    let mail = latest_mail(&alice, &id, "2026-11-01T10:00:00Z");
    assert_eq!((mail.ply, mail.to.as_str()), (1, "bob@example.org"));

    // Bob takes it in: a new game whose last turn is 1. e4; the same mail again is no news.
    let judged = inbox::judge(&mail.bytes, &bob, at("2026-11-01T11:00:00Z"));
    assert_eq!(judged.game.as_deref(), Some(id.as_str()));
    let Ok(Taken::Saved(saved)) = &judged.result else {
        panic!("not taken in: {:?}", judged.result);
    };
    assert!(saved.new_game, "{saved:?}");
    assert_eq!(saved.added, 1);
    assert_eq!(saved.last_turn.as_deref(), Some("1. e4"));
    assert!(
        saved
            .text
            .contains("new game from alice@example.org, last turn 1. e4"),
        "{}",
        saved.text
    );
    let twice = inbox::judge(&mail.bytes, &bob, at("2026-11-01T11:01:00Z"));
    assert_eq!(
        twice.result,
        Ok(Taken::Nothing(format!(
            "{id}: already known (a repeated delivery)"
        )))
    );
    // Bob's latest state is Alice's turn: nothing for him to send.
    let nothing = outbox::compose_latest(&id, &bob, at("2026-11-01T11:02:00Z")).unwrap();
    assert!(
        matches!(&nothing, Latest::Nothing { why, .. } if why.contains("the latest turn, 1. e4, is your opponent's")),
        "{nothing:?}"
    );
    // Alice's own mail is refused at her own desk: it does not come from her opponent.
    let own = inbox::judge(&mail.bytes, &alice, at("2026-11-01T11:03:00Z"));
    assert!(
        matches!(&own.result, Err(Refusal::Refused(why)) if why.contains("your opponent in")),
        "{:?}",
        own.result
    );
    let not_pbem = inbox::judge(
        b"Subject: hello\r\n\r\nhi\r\n",
        &bob,
        at("2026-11-01T11:04:00Z"),
    );
    assert!(
        matches!(not_pbem.result, Err(Refusal::NotPbem(_))),
        "{:?}",
        not_pbem.result
    );

    // An illegal turn is refused with the legal turns and the closest one.
    let illegal = play::play_turn(
        &bob,
        &id,
        "Qh4",
        &TurnOptions::at(at("2026-11-01T12:00:00Z")),
    );
    let Err(DeskError::Turn {
        id: refused_in,
        finding,
    }) = illegal
    else {
        panic!("not refused as a turn: {illegal:?}");
    };
    assert_eq!(refused_in, id);
    assert_eq!(finding.token.as_deref(), Some("Qh4"));
    assert!(
        finding.legal.iter().any(|turn| turn == "e5"),
        "{:?}",
        finding.legal
    );

    // Bob answers with the binary; Alice takes the mail in with the library.
    drop(bob);
    ok(&homes.bob.run("2026-11-01T12:00:00Z", &["move", &id, "e5"]));
    let bob = Home::load(Some(&homes.bob.config())).unwrap();
    let answer = latest_mail(&bob, &id, "2026-11-01T12:00:00Z");
    let eml = homes.root.join("answer.eml");
    std::fs::write(&eml, &answer.bytes).unwrap();
    let judged = inbox::judge(&answer.bytes, &alice, at("2026-11-01T13:00:00Z"));
    let Ok(Taken::Saved(saved)) = &judged.result else {
        panic!("not taken in: {:?}", judged.result);
    };
    assert_eq!((saved.new_game, saved.added), (false, 1));
    assert_eq!(saved.last_turn.as_deref(), Some("1... e5"));
    // The binary finds the game the library saved.
    let again = homes.alice.run_with(
        "2026-11-01T14:00:00Z",
        &["receive", eml.to_str().unwrap()],
        &[("PBEM_LOCK_WAIT", "0")],
    );
    // (not while Alice's library home holds the lock)
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("another pbem"),
        "{}",
        text(&again.stderr)
    );
    drop(alice);
    let again = homes
        .alice
        .run("2026-11-01T14:00:00Z", &["receive", eml.to_str().unwrap()]);
    assert_eq!(
        ok(&again).trim(),
        format!("{id}: already known (a repeated delivery)")
    );
    // Alice resigns with the library.
    let alice = Home::open(Some(&homes.alice.config())).unwrap();
    let acted = play::act(&alice, &id, Event::Resign).expect("resigned");
    assert_eq!(
        acted,
        Acted {
            id: id.clone(),
            event: Event::Resign,
            result: "0-1".to_owned(),
            seed_added: false,
        }
    );
}

#[test]
fn a_new_game_with_a_bad_address_or_start_is_refused_before_anything_is_written() {
    let homes = Homes::new("desk-new", "");
    let alice = Home::open(Some(&homes.alice.config())).expect("Alice's home");
    let now = at("2026-11-01T09:00:00Z");
    let me = who("Alice", "alice@example.org");
    let bad_start = GameSetup {
        position: Some("8/8/8 w".to_owned()),
        ..GameSetup::new(me.clone(), who("Bob", "bob@example.org"), now)
    };
    let refused = play::new_game(&alice, &bad_start);
    assert!(
        matches!(&refused, Err(DeskError::Position { text, .. }) if text == "8/8/8 w"),
        "{refused:?}"
    );
    // An address that is not one is told first, as `pbem new` tells it.
    let bad_address = GameSetup {
        black: who("Bob", "bob"),
        ..bad_start
    };
    let refused = play::new_game(&alice, &bad_address);
    assert!(
        matches!(&refused, Err(DeskError::Cannot(why)) if why == "\"bob\" is not a mail address (expected name@domain)"),
        "{refused:?}"
    );
    let games = homes.alice.dir.join("games");
    let written = std::fs::read_dir(&games).map_or(0, |entries| {
        entries
            .filter(|entry| {
                entry
                    .as_ref()
                    .is_ok_and(|entry| entry.path().extension().is_some_and(|ext| ext == "pgn"))
            })
            .count()
    });
    assert_eq!(written, 0, "{}", games.display());
}
