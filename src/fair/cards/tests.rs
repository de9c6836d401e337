use super::*;
use crate::clock::{Stamp, parse_instant};
use crate::config::Player;
use crate::correspondence::{self, NewGame};
use crate::games::Variant;

fn player(name: &str) -> Player {
    Player {
        name: name.to_owned(),
        email: format!("{}@example.org", name.to_ascii_lowercase()),
    }
}

fn stamp() -> Stamp {
    Stamp {
        received: parse_instant("2026-11-22T10:00:00Z"),
        sent: parse_instant("2026-11-23T10:00:00Z"),
        leave_days: 0,
    }
}

fn dealers() -> [Dealer; 2] {
    [Dealer::from_seed([7; 32]), Dealer::from_seed([8; 32])]
}

fn address(side: Color) -> &'static str {
    match side {
        Color::White => "alice@example.org",
        Color::Black => "bob@example.org",
    }
}

/// One side's move by the library's steps, as `pbem move` makes it.
fn make(record: &mut Record, side: Color, token: &str) {
    let dealer = &dealers()[side_index(side)];
    advance(record, side, dealer).unwrap();
    let before = record.clone();
    correspondence::play(record, address(side), token, stamp()).unwrap();
    after_move(&before, record, side, dealer).unwrap();
}

/// The other side receiving the mail, as `pbem receive` does.
fn receive(record: &mut Record, side: Color) {
    assert!(
        !matches!(check(record), Fairness::Broken { .. }),
        "{:?}",
        check(record)
    );
    advance(record, side, &dealers()[side_index(side)]).unwrap();
}

/// A Cards II game by the library's steps, mails passed by hand, up to White's attempt
/// with its lead card and Black's reply (and, when the first pair fails, White
/// declining the second): returns the record and the ply of the attempt.
fn game() -> Record {
    let [white, _] = dealers();
    let mut record = correspondence::new_record(&NewGame {
        variant: Variant::ChessWithWickets,
        white: player("Alice"),
        black: player("Bob"),
        position: None,
        time_control: None,
        game_id: "g-20261122-0000000f".to_owned(),
        started: parse_instant("2026-11-22T10:00:00Z").unwrap(),
    })
    .unwrap();
    record.set_tag("Decision", "Cards II");
    assert!(advance(&mut record, Color::White, &white).unwrap());
    for (i, token) in ["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6"]
        .iter()
        .enumerate()
    {
        let side = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        make(&mut record, side, token);
        receive(&mut record, side.other());
    }
    let hand = hand(&record, Color::White, &white).unwrap();
    assert!(hand.dealt && hand.cards.len() == 10, "{hand:?}");
    let lead = hand.cards[0].1;
    make(&mut record, Color::White, &format!("Nxe5:w9_c{lead}"));
    receive(&mut record, Color::Black);
    let reply = may_play(&record, Color::Black, &dealers()[1]).unwrap()[0];
    make(&mut record, Color::Black, &reply.to_string());
    receive(&mut record, Color::White);
    if may_decline(&record) {
        make(&mut record, Color::White, "-");
        receive(&mut record, Color::Black);
    }
    record
}

fn reveal_both(record: &mut Record) {
    let [white, black] = dealers();
    reveal_seed(record, Color::White, &white);
    reveal_seed(record, Color::Black, &black);
}

fn broken(record: &Record) -> (usize, String) {
    match check(record) {
        Fairness::Broken { ply, reason } => (ply, reason),
        other => panic!("not broken: {other}"),
    }
}

/// Rewrites the first comment holding `find`, or the token of ply `ply`.
fn edit(record: &mut Record, find: &str, change: impl Fn(&str) -> String) {
    let comment = record
        .moves
        .turns
        .iter_mut()
        .flat_map(|turn| turn.comments.iter_mut())
        .find(|comment| comment.text.contains(find))
        .expect("the comment");
    comment.text = change(&comment.text).into();
}

#[test]
fn a_dealt_game_is_not_proven_until_both_seeds_then_proven() {
    let mut record = game();
    match check(&record) {
        Fairness::NotProven(why) => assert!(why.contains("seeds are not revealed"), "{why}"),
        other => panic!("{other}"),
    }
    // Each side sees ten cards of its own, none of the other's.
    let [white, black] = dealers();
    let (w, b) = (
        hand(&record, Color::White, &white).unwrap(),
        hand(&record, Color::Black, &black).unwrap(),
    );
    assert_eq!((w.cards.len(), b.cards.len()), (10, 10));
    assert!(w.cards.iter().all(|c| !b.cards.contains(c)));
    // Black's pbem, holding White's seed by mistake, opens nothing of White's hand.
    assert!(hand(&record, Color::White, &black).is_none_or(|h| h.cards.is_empty()));
    reveal_both(&mut record);
    assert!(
        matches!(check(&record), Fairness::DealProven { cards } if cards >= 2),
        "{}",
        check(&record)
    );
    // The transcript survives the game file's text.
    let text = correspondence::to_text(&record);
    let again = crate::notation::parse_record(&text).unwrap();
    assert_eq!(check(&again), check(&record));
}

#[test]
fn a_swapped_card_is_caught_at_its_ply() {
    let mut record = game();
    let token = record.moves.turns[6].token.to_string();
    let lead = token.split("_c").nth(1).unwrap().to_owned();
    // A card of the same value in another suit (so the pairs judge alike), not played.
    let value = &lead[1..];
    let other = ['C', 'D', 'H', 'S']
        .iter()
        .map(|suit| format!("{suit}{value}"))
        .find(|card| *card != lead && !token.contains(&format!("_c{card}")))
        .unwrap();
    record.moves.turns[6].token = token
        .replacen(&format!("_c{lead}"), &format!("_c{other}"), 1)
        .into();
    assert!(crate::replay::replay(&record).errors().next().is_none());
    let (ply, reason) = broken(&record);
    assert_eq!(ply, 7);
    assert!(reason.contains("swapped card"), "{reason}");
}

#[test]
fn a_card_not_in_the_hand_is_refused_and_caught() {
    let [_, black] = dealers();
    let mut record = game();
    // (`pbem move` refusing such a card is tested by tests/integration/fair_cards.rs.)
    let b = hand(&record, Color::Black, &black).unwrap();
    // A record that claims White's lead came from one of Black's positions.
    let p = b.cards[0].0;
    edit(&mut record, "white [%deal open", |text| {
        let key = text
            .split_whitespace()
            .nth(4)
            .unwrap()
            .trim_end_matches(']');
        format!("white [%deal open {p} {key}]")
    });
    let (ply, reason) = broken(&record);
    assert_eq!(ply, 7);
    assert!(reason.contains("not in its hand"), "{reason}");
}

#[test]
fn an_edited_key_is_caught() {
    let mut record = game();
    // White's opening key for its lead, changed by one character.
    edit(&mut record, "white [%deal open", |text| {
        let mut words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        let key = &mut words[4];
        let first = if key.starts_with('A') { "B" } else { "A" };
        key.replace_range(0..1, first);
        words.join(" ")
    });
    let (ply, reason) = broken(&record);
    assert_eq!(ply, 7);
    assert!(
        reason.contains("edited key") || reason.contains("cannot read"),
        "{reason}"
    );
    // A key Black revealed for White's hand, edited: White's pbem refuses the mail.
    let mut record = game();
    let [white, _] = dealers();
    edit(&mut record, "black [%deal keys", |text| {
        let mut words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        let key = &mut words[4];
        let first = if key.starts_with('A') { "B" } else { "A" };
        key.replace_range(0..1, first);
        words.join(" ")
    });
    let refused = advance(&mut record.clone(), Color::White, &white);
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.contains("edited key") || e.contains("cannot read")),
        "{refused:?}"
    );
    // With the seeds in, the edited key is named.
    reveal_both(&mut record);
    let (_, reason) = broken(&record);
    assert!(
        reason.contains("seed gives") || reason.contains("cannot read"),
        "{reason}"
    );
}

#[test]
fn old_records_are_not_proven_and_a_card_by_hand_in_a_dealt_game_is_broken() {
    // No transcript: hand-written cards, as before.
    let mut record = crate::notation::parse_record(
        "[Variant \"Chess with wickets\"]\n[Decision \"Cards\"]\n\n1. e4 e5 2. Ke2:f3 Ke7 3. Nxf3 Kd6 4. Nxe5:w9_cS9_cS6 *",
    )
    .unwrap();
    assert!(matches!(check(&record), Fairness::NotProven(_)));
    // A dealt game where Black's reply carries no opening key.
    record = game();
    let turn = &mut record.moves.turns[6];
    turn.comments
        .retain(|c| !c.text.starts_with("black [%deal open"));
    let (ply, reason) = broken(&record);
    assert_eq!(ply, 7);
    assert!(reason.contains("written by hand"), "{reason}");
}

#[test]
fn at_the_end_of_the_game_each_side_adds_its_seed_and_the_deal_is_proven() {
    let [white, black] = dealers();
    let mut record = game();
    correspondence::record_event(
        &mut record,
        address(Color::White),
        correspondence::Event::Resign,
    )
    .unwrap();
    assert!(advance(&mut record, Color::White, &white).unwrap());
    assert!(seed_revealed(&record, Color::White) && !seed_revealed(&record, Color::Black));
    assert!(matches!(check(&record), Fairness::NotProven(_)));
    assert!(advance(&mut record, Color::Black, &black).unwrap());
    assert!(
        matches!(check(&record), Fairness::DealProven { .. }),
        "{}",
        check(&record)
    );
    // Nothing more to add.
    assert!(!advance(&mut record, Color::White, &white).unwrap());
}
