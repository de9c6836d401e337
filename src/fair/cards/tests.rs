use super::*;
use crate::correspondence;
use crate::fair::tests::{stamp, wickets_record};

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
    let mut record = to_the_attempt();
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

/// A Cards II game by the library's steps, mails passed by hand, dealt and played up to
/// White's scoring attempt (not yet made).
fn to_the_attempt() -> Record {
    let [white, _] = dealers();
    let mut record = wickets_record("Cards II", None, "g-20261122-0000000f");
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
        Fairness::NotProven(why) => assert!(
            why.starts_with("White and Black have not revealed their seeds (2 cards"),
            "{why}"
        ),
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
    // One seed is not enough, and the missing one is named: Black's, then White's.
    for (side, missing) in [(Color::White, "Black"), (Color::Black, "White")] {
        let mut one = record.clone();
        let dealer = if side == Color::White { &white } else { &black };
        reveal_seed(&mut one, side, dealer);
        assert_eq!(
            check(&one).to_string().split(" (").next(),
            Some(format!("chance not proven: {missing} has not revealed its seed").as_str())
        );
    }
    reveal_both(&mut record);
    assert!(
        matches!(check(&record), Fairness::DealProven { cards, .. } if cards >= 2),
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

/// The start of the long games: each side's Rook is its Ball-haver on the e-file, so that
/// it can throw into the opposing wicket every other turn, both Queens see their own
/// wickets (the reply's 2.5 bonus makes attempts fail mostly: the game lasts).
pub(super) const LONG_FEN: &str =
    "3q3k/5ppp/4R3/8/8/4r3/PPP5/K2Q4 w - - -,- e6,e3 d1,d8 cards2 0 1";

/// The card `side` plays when its card is awaited: a reshuffled one when it holds one,
/// else the lowest when it leads and the highest when it replies.
fn pick(record: &Record, side: Color) -> Option<Card> {
    let dealer = &dealers()[side_index(side)];
    let may = may_play(record, side, dealer)?;
    let held = hand(record, side, dealer)?;
    let leads = replay::replay_game::<Wickets>(record)
        .position
        .is_some_and(|p| p.side_to_move() != side);
    let reshuffled = |c: &Card| held.cards.iter().any(|(p, h)| h == c && *p >= DECK);
    let mut cards = may.clone();
    cards.sort_by_key(|c| {
        (
            !reshuffled(c),
            if leads { c.value() } else { 10 - c.value() },
        )
    });
    cards.first().copied()
}

/// One side's turn by the library's steps (naming a pawn Defender when it must).
fn turn(record: &mut Record, side: Color, token: &str) {
    let dealer = &dealers()[side_index(side)];
    advance(record, side, dealer).unwrap();
    let before = record.clone();
    let names: &[&str] = match side {
        Color::White => &["", "Da2:", "Db2:", "Dc2:", "Dd1:"],
        Color::Black => &["", "Dh7:", "Dg7:", "Df7:", "Dd8:"],
    };
    let mut token = token.to_owned();
    if token.contains(":w") {
        let hand = hand(record, side, dealer).unwrap();
        let mut cards = hand.cards.clone();
        cards.sort_by_key(|&(p, c)| (p < DECK, c.value()));
        token = format!("{token}_c{}", cards[0].1);
    }
    let played = names.iter().any(|name| {
        correspondence::play(record, address(side), &format!("{name}{token}"), stamp()).is_ok()
    });
    assert!(played, "{side} cannot play {token}");
    after_move(&before, record, side, dealer).unwrap();
    receive(record, side.other());
    // The awaited cards, each by its player, each mailed to the other.
    while let Some(side) = replay::replay_game::<Wickets>(record)
        .position
        .and_then(|p| p.awaited_side())
    {
        let card = pick(record, side).expect("a card to play");
        make(record, side, &card.to_string());
        receive(record, side.other());
    }
}

/// A long Cards II game by the library's steps: White and Black attempt in turn on the
/// e-file until `cards` cards were played and one came from a reshuffle.
pub(super) fn long_game(cards: usize) -> Record {
    let mut record = wickets_record("Cards II", Some(LONG_FEN), "g-20261122-0000001f");
    assert!(advance(&mut record, Color::White, &dealers()[0]).unwrap());
    for (side, token) in [
        (Color::White, "Kb1"),
        (Color::Black, "Kg8"),
        (Color::White, "Ka1"),
        (Color::Black, "Kh8"),
    ] {
        turn(&mut record, side, token);
    }
    let cycle = [
        (Color::White, "Re7:w9"),
        (Color::Black, "Re2:w0"),
        (Color::White, "Rxw9"),
        (Color::Black, "Rxw0"),
    ];
    for (side, token) in cycle.iter().cycle().take(200) {
        let plays = plays_of(&record).unwrap();
        let from_reshuffle = read_deal(&record)
            .unwrap()
            .unwrap()
            .opens
            .iter()
            .flatten()
            .any(|o| o.1 >= DECK);
        if plays.plays.len() >= cards && from_reshuffle && plays.awaited.is_none() {
            return record;
        }
        assert!(
            record.tag("Result").is_none_or(|r| r == "*"),
            "the game ended"
        );
        turn(&mut record, *side, token);
    }
    panic!("200 turns without {cards} cards");
}

#[test]
fn the_discards_are_reshuffled_fairly_when_the_deck_runs_out() {
    let mut record = long_game(30);
    // Before the seeds: every card opened, the reshuffle's included.
    match check(&record) {
        Fairness::NotProven(why) => {
            assert!(why.contains("and its reshuffle and checked"), "{why}");
        }
        other => panic!("{other}"),
    }
    // Each side still sees ten cards of its own (or drawn ones to come), none shared.
    let [white, black] = dealers();
    let (w, b) = (
        hand(&record, Color::White, &white).unwrap(),
        hand(&record, Color::Black, &black).unwrap(),
    );
    assert_eq!(w.cards.len() + w.pending, 10, "{w:?}");
    assert_eq!(b.cards.len() + b.pending, 10, "{b:?}");
    assert!(w.cards.iter().all(|c| !b.cards.iter().any(|d| d.1 == c.1)));
    // The reshuffle's three messages, by the player whose card emptied the deck, the
    // other, and the first again.
    let deal = read_deal(&record).unwrap().unwrap();
    let plays = plays_of(&record).unwrap();
    let messages = &deal.reshuffles[&1];
    let first = plays.plays[trigger(1)].side;
    let sides: Vec<Color> = messages.iter().flatten().map(|m| m.0).collect();
    assert_eq!(sides, [first, first.other(), first]);
    reveal_both(&mut record);
    let proven = check(&record);
    assert!(
        matches!(proven, Fairness::DealProven { cards, reshuffles: 1 } if cards >= 30),
        "{proven}"
    );
    assert!(
        proven.to_string().contains("the deal, 1 reshuffle and "),
        "{proven}"
    );
    let text = correspondence::to_text(&record);
    let again = crate::notation::parse_record(&text).unwrap();
    assert_eq!(check(&again), proven);
}

#[test]
fn an_edited_reshuffle_or_a_card_from_outside_it_is_caught_with_its_ply() {
    let record = long_game(30);
    let reshuffle_ply = |record: &Record, step: u8| {
        read_deal(record).unwrap().unwrap().reshuffles[&1][usize::from(step - 1)]
            .as_ref()
            .unwrap()
            .1
    };
    // Message 3 with two positions swapped: its proof fails, at its ply (before the
    // proof, only when a card opened from it was not the one played).
    let mut edited = record.clone();
    edit(&mut edited, "[%deal reshuffle 1 mask3", |text| {
        let mut words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        words.swap(5, 6);
        words.swap(7, 24);
        words.join(" ")
    });
    let (ply, reason) = broken(&edited);
    assert_eq!(ply, reshuffle_ply(&record, 3), "{reason}");
    assert!(
        reason.contains(
            "message 3 of reshuffle 1: its proof of its factors over message 2 \
             does not hold"
        ),
        "{reason}"
    );
    // A message repeated: refused at its ply.
    let mut twice = record.clone();
    edit(&mut twice, "[%deal reshuffle 1 mask2", |text| {
        let mut words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        words[5] = words[6].clone();
        words.join(" ")
    });
    let (ply, reason) = broken(&twice);
    assert_eq!(ply, reshuffle_ply(&record, 2));
    assert!(reason.contains("message 2 of reshuffle 1"), "{reason}");
    assert!(reason.contains("not a permutation"), "{reason}");
    // Message 1 by the wrong player.
    let mut wrong = record.clone();
    edit(&mut wrong, "[%deal reshuffle 1 mask1", |text| {
        let side = if text.starts_with("white") {
            "black"
        } else {
            "white"
        };
        format!("{side}{}", &text[5..])
    });
    let (ply, reason) = broken(&wrong);
    assert_eq!(ply, reshuffle_ply(&record, 1));
    assert!(reason.contains("reshuffle 1"), "{reason}");
    // With the seeds in, a forged message 1 (a card of a hand put in for a discard, the
    // rest honest) is caught against the seeds.
    let mut forged = record.clone();
    reveal_both(&mut forged);
    let deal = read_deal(&forged).unwrap().unwrap();
    let m1 = &deal.reshuffles[&1][0].as_ref().unwrap().2;
    let stranger = deal::card_point(0) + deal::card_point(1);
    edit(&mut forged, "[%deal reshuffle 1 mask1", |text| {
        text.replacen(
            &text_of(m1[4].as_bytes()),
            &text_of(stranger.compress().as_bytes()),
            1,
        )
    });
    let (ply, reason) = broken(&forged);
    assert_eq!(ply, reshuffle_ply(&record, 1));
    assert!(
        reason.contains("reshuffle 1 against the revealed seeds"),
        "{reason}"
    );
}

#[test]
fn a_second_reshuffle_is_proven_too_and_a_card_from_another_hand_is_caught() {
    let mut record = long_game(48);
    let deal = read_deal(&record).unwrap().unwrap();
    assert!(
        deal.reshuffles.get(&2).is_some_and(|m| m[2].is_some()),
        "{} cards",
        plays_of(&record).unwrap().plays.len()
    );
    // A card played from a reshuffled place its player does not hold (the other side's
    // replacement): refused at its ply.
    let plays = plays_of(&record).unwrap();
    let (j, play) = plays
        .plays
        .iter()
        .enumerate()
        .skip(trigger(1) + 1)
        .find(|(_, p)| p.nth == 0)
        .unwrap();
    let theirs = (DECK..2 * HAND + j)
        .find(|&p| holder(p, &plays) == Some(play.side.other()))
        .unwrap();
    let mut stolen = record.clone();
    let side = play.side.name().to_ascii_lowercase();
    let turn = &mut stolen.moves.turns[play.ply - 1];
    let comment = turn
        .comments
        .iter_mut()
        .find(|c| c.text.starts_with(&format!("{side} [%deal open")))
        .unwrap();
    let words: Vec<&str> = comment.text.split_whitespace().collect();
    comment.text = format!("{side} [%deal open {theirs} {}", words[4]).into();
    let (ply, reason) = broken(&stolen);
    assert_eq!(ply, play.ply);
    assert!(reason.contains("not in its hand"), "{reason}");
    reveal_both(&mut record);
    let proven = check(&record);
    assert!(
        matches!(proven, Fairness::DealProven { reshuffles: 2, .. }),
        "{proven}"
    );
}

/// A card held across a reshuffle and played after the other side played it (issue 32,
/// point 1): the replay, which follows the discards since the last reshuffle only, takes
/// it; the deal's check does not. Black's message 2 gives position 15 (Black's hand) the
/// card of position 0 (White's) under Black's key for 15; White plays it first, the 21st
/// card empties the deck, and Black plays the copy after the reshuffle.
#[test]
fn a_card_held_across_a_reshuffle_and_played_again_is_caught() {
    let [white, black] = dealers();
    let m1 = white.mask_and_shuffle();
    let mut m2 = black.shuffle_with_card_keys(&m1).unwrap();
    let copied = m2[0].decompress().unwrap();
    m2[15] = (black.card_key(15) * black.card_key(0).invert() * copied).compress();
    let m3 = white.rekey(&m2).unwrap();
    let mut deal = Deal {
        masks: [Some((1, m1)), Some((2, m2)), Some((3, m3.clone()))],
        ..Deal::default()
    };
    // White plays 0-9 then its first replacement (20), Black 10-14, 16-19, its first
    // replacement (21), then position 15, the 22nd card: the first after the reshuffle.
    let blacks = (10..15).chain(16..20).chain([21]);
    let order: Vec<(Color, usize)> = (0..10)
        .map(|p| (Color::White, p))
        .zip(blacks.map(|p| (Color::Black, p)))
        .flat_map(|(w, b)| [w, b])
        .chain([(Color::White, 20), (Color::Black, 15)])
        .collect();
    assert_eq!(order.len(), 22);
    let mut plays = Plays {
        plays: Vec::new(),
        awaited: None,
    };
    for (j, &(side, p)) in order.iter().enumerate() {
        let dealer = &dealers()[side_index(side)];
        let other = &dealers()[side_index(side.other())];
        deal.keys[side_index(side.other())].insert(p, (0, key_at(other, p)));
        deal.opens[side_index(side)].push((j + 1, p, key_at(dealer, p), j + 1));
        let card = deal::open(&m3, p, &key_at(dealer, p), &key_at(other, p))
            .and_then(card_of)
            .unwrap();
        plays.plays.push(Play {
            ply: j + 1,
            side,
            card,
            lead: None,
            nth: 0,
        });
    }
    let card = plays.plays[0].card;
    assert_eq!(plays.plays[21].card, card);
    // Before the second play of the card, nothing is wrong.
    let first = Plays {
        plays: plays.plays[..21].to_vec(),
        awaited: None,
    };
    assert!(open_plays(&deal, &first).is_ok());
    assert_eq!(
        open_plays(&deal, &plays).unwrap_err(),
        (
            22,
            format!(
                "{card} is played twice since the deal: by White at ply 1, and by Black from \
                 position 15 (a card dealt twice)"
            )
        )
    );
}

/// A reply off suit while its player holds the suit (`notation/fair-chance.md`, "Cards",
/// "Security"): Black writes it by hand, past its pbem's refusal, with a true opening key.
/// Neither the record nor White's pbem can see it before the seeds; with both seeds the
/// game is broken at that ply, naming the cards held.
#[test]
fn a_reply_off_suit_while_holding_the_suit_is_broken_once_both_seeds_are_in() {
    let [white, black] = dealers();
    let mut record = to_the_attempt();
    let (whites, blacks) = (
        hand(&record, Color::White, &white).unwrap().cards,
        hand(&record, Color::Black, &black).unwrap().cards,
    );
    // A lead whose suit Black holds, and a card of Black's of another suit.
    let (lead, (p, off)) = whites
        .iter()
        .find_map(|&(_, lead)| {
            let follows = blacks.iter().any(|(_, c)| c.suit() == lead.suit());
            let off = blacks.iter().find(|(_, c)| c.suit() != lead.suit());
            follows.then_some(off).flatten().map(|&off| (lead, off))
        })
        .expect("a lead Black can follow, and a card of another suit");
    make(&mut record, Color::White, &format!("Nxe5:w9_c{lead}"));
    receive(&mut record, Color::Black);
    // Black's pbem refuses the card; Black writes it with its true opening key.
    let before = record.clone();
    correspondence::play(
        &mut record,
        address(Color::Black),
        &off.to_string(),
        stamp(),
    )
    .unwrap();
    let mut refused = record.clone();
    let why = after_move(&before, &mut refused, Color::Black, &black).unwrap_err();
    assert!(why.contains("you must follow suit"), "{why}");
    push(
        &mut record,
        Color::Black,
        &format!("open {p} {}", text_of(key_at(&black, p).as_bytes())),
    );
    advance(&mut record, Color::Black, &black).unwrap();
    receive(&mut record, Color::White);
    assert!(matches!(check(&record), Fairness::NotProven(_)));
    reveal_both(&mut record);
    let (ply, reason) = broken(&record);
    assert_eq!(ply, 7);
    assert!(
        reason.starts_with(&format!(
            "Black must follow suit: {off} answers {lead} while Black holds {}",
            lead.suit()
        )),
        "{reason}"
    );
}
