//! Fair cards by mail (issue 16, `notation/fair-chance.md`, "Cards"): two players' pbem,
//! each with its own Maildir, deal a Cards II game in their first mails, play it to a
//! scoring attempt from hands each sees alone, reveal their seeds, and both game files
//! validate "chance proven fair"; a card not held is refused, and a swapped card or an
//! edited key in a mail is refused with the ply and the reason.

use crate::support::homes::{Homes, Player, deliver, game_path, mail_of, ok, post, text, validate};
use crate::support::homes::{assert_refused, wickets_to_the_attempt};

/// The player's hand as `pbem show` tells it.
pub(crate) fn hand(player: &Player, id: &str) -> Vec<String> {
    hand_shown(player, &["show", id], "your hand: ")
}

/// The cards of the line of `pbem ARGS`'s output that starts with `prefix`.
fn hand_shown(player: &Player, args: &[&str], prefix: &str) -> Vec<String> {
    let shown = ok(&player.run("2026-11-09T00:00:00Z", args));
    let line = shown
        .lines()
        .find_map(|line| line.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("{shown}"));
    line.split(" (")
        .next()
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// The card the player's pbem says it may play now (declining a second pair first), if
/// its card is awaited.
fn awaited_card(player: &Player, id: &str) -> Option<String> {
    let legal = player.run("2026-11-09T00:00:00Z", &["legal", id]);
    if !text(&legal.stderr).contains("from your hand") {
        return None;
    }
    let cards = text(&legal.stdout);
    let lines: Vec<&str> = cards.lines().collect();
    Some(if lines.contains(&"-") { "-" } else { lines[0] }.to_owned())
}

/// A Cards II game started by Maildir and played by mail to White's scoring chance
/// (the deal rode in the first three mails); returns the homes and the id.
fn dealt_opening(name: &str) -> (Homes, String) {
    wickets_to_the_attempt(name, "Cards II")
}

/// A Cards II game by Maildir to White's scoring attempt, its cards played from the
/// hands until it is decided; returns the homes, the id and the mail that decided it
/// (not yet delivered).
fn play_to_attempt(name: &str) -> (Homes, String) {
    let (homes, id) = dealt_opening(name);
    let (alice, bob) = (&homes.alice, &homes.bob);
    // The deal rode in the first three mails: each side sees ten cards, none shared,
    // and nobody's mail shows a hand.
    let (white, black) = (hand(alice, &id), hand(bob, &id));
    assert_eq!((white.len(), black.len()), (10, 10), "{white:?} {black:?}");
    assert!(white.iter().all(|card| !black.contains(card)));
    for player in [alice, bob] {
        for mail in std::fs::read_dir(player.dir.join("drafts")).unwrap() {
            let mail = std::fs::read_to_string(mail.unwrap().path()).unwrap();
            assert!(!mail.contains("your hand"), "{mail}");
        }
    }
    let status = ok(&alice.run("2026-11-07T09:00:00Z", &["status"]));
    assert!(
        status.contains(&format!("your hand: {}", white.join(" "))),
        "{status}"
    );
    // A card White does not hold is refused.
    let stolen = alice.run(
        "2026-11-07T10:00:00Z",
        &["move", &id, &format!("Nxe5:w9_c{}", black[0])],
    );
    assert_eq!(stolen.status.code(), Some(2), "{}", text(&stolen.stdout));
    assert!(
        text(&stolen.stderr).contains("you do not hold"),
        "{}",
        text(&stolen.stderr)
    );
    // White leads a card of its hand; then each awaited card comes from its hand.
    ok(&alice.run(
        "2026-11-07T10:00:00Z",
        &["move", &id, &format!("Nxe5:w9_c{}", white[0])],
    ));
    post(alice, bob, "2026-11-07T10:01:00Z", &id, "lead");
    // (A tie asks both for another card: as many ties as the deal makes, not a fixed
    // number of cards, until the attempt is decided.)
    let mut turn = (bob, alice);
    for k in 0.. {
        let Some(card) = awaited_card(turn.0, &id) else {
            break;
        };
        assert!(k < 40, "40 cards without a decision");
        ok(&turn.0.run("2026-11-08T10:00:00Z", &["move", &id, &card]));
        post(
            turn.0,
            turn.1,
            "2026-11-08T10:01:00Z",
            &id,
            &format!("c{k}"),
        );
        turn = (turn.1, turn.0);
    }
    (homes, id)
}

#[test]
fn a_cards_two_game_by_maildir_is_proven_fair_on_both_sides() {
    let (homes, id) = play_to_attempt("fair-cards");
    // Before the seeds: not proven, but every card played already opened and checked.
    let said = text(&validate(&game_path(&homes.alice, &id)).stdout);
    assert!(
        said.contains("chance not proven: White and Black have not revealed their seeds"),
        "{said}"
    );
    // Each reveals its seed (as for an arbiter) and mails it.
    reveal_and_prove(&homes, &id, "09", "the deal and ");
}

/// Bob, then Alice, reveals their seed on the given day of November and mails it; both
/// game files then validate with "chance proven fair (WHAT…" and are byte-identical.
fn reveal_and_prove(homes: &Homes, id: &str, day: &str, what: &str) {
    let (alice, bob) = (&homes.alice, &homes.bob);
    let at = |time: &str| format!("2026-11-{day}T{time}:00Z");
    let revealed = ok(&bob.run(&at("10:00"), &["fair", "reveal", id]));
    assert!(revealed.contains("your seed is revealed"), "{revealed}");
    post(bob, alice, &at("10:01"), id, "seed-b");
    ok(&alice.run(&at("11:00"), &["fair", "reveal", id]));
    post(alice, bob, &at("11:01"), id, "seed-a");
    for player in [alice, bob] {
        let out = validate(&game_path(player, id));
        let said = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(
            said.contains(&format!("; chance proven fair ({what}")),
            "{said}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(game_path(alice, id)).unwrap(),
        std::fs::read_to_string(game_path(bob, id)).unwrap()
    );
}

/// A dealt Cards II game played by mail to White's scoring attempt with a card led,
/// mailed to Black, whose card is now awaited; also the lead.
fn to_the_lead(name: &str) -> (Homes, String, String) {
    let (homes, id) = dealt_opening(name);
    let (alice, bob) = (&homes.alice, &homes.bob);
    let lead = hand(alice, &id)[0].clone();
    ok(&alice.run(
        "2026-11-07T10:00:00Z",
        &["move", &id, &format!("Nxe5:w9_c{lead}")],
    ));
    post(alice, bob, "2026-11-07T10:01:00Z", &id, "lead");
    (homes, id, lead)
}

#[test]
fn a_card_typed_by_hand_in_a_dealt_game_is_refused_and_changes_nothing() {
    let (homes, id, _) = to_the_lead("fair-cards-typed");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let card = awaited_card(bob, &id).unwrap();
    let answered = std::fs::read_to_string(mail_of(alice, "2026-11-07T10:30:00Z", &id)).unwrap();
    let message_id = answered
        .lines()
        .find_map(|line| line.strip_prefix("Message-ID: "))
        .unwrap()
        .trim()
        .to_owned();
    let typed = format!(
        "From: bob@example.org\r\nTo: alice@example.org\r\nSubject: Re: [pbem {id}] your move\r\n\
         Message-ID: <typed-card@example.org>\r\nIn-Reply-To: {message_id}\r\n\
         References: {message_id}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{card}\r\n"
    );
    let before = std::fs::read(game_path(alice, &id)).unwrap();
    let out = deliver(alice, "2026-11-08T10:00:00Z", typed.as_bytes(), "typed");
    let said = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains(&format!("\"{card}\", is refused")), "{said}");
    assert!(said.contains("carries no key to open it"), "{said}");
    assert_eq!(std::fs::read(game_path(alice, &id)).unwrap(), before);
    // Bob's pbem answer is still taken in afterwards.
    ok(&bob.run("2026-11-08T10:00:00Z", &["move", &id, &card]));
    post(bob, alice, "2026-11-08T11:00:00Z", &id, "answer");
}

#[test]
fn a_swapped_card_or_an_edited_key_in_a_mail_is_refused_with_the_ply() {
    let (homes, id, lead) = to_the_lead("fair-cards-tamper");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let reply = awaited_card(bob, &id).unwrap();
    // Black's hand as Bob's pbem shows it, before its reply and after (with the card drawn
    // in its place, once known).
    let mut held = hand(bob, &id);
    ok(&bob.run("2026-11-08T10:00:00Z", &["move", &id, &reply]));
    held.extend(hand(bob, &id));
    let bob_file = game_path(bob, &id);
    let record = std::fs::read_to_string(&bob_file).unwrap();
    let forge = |forged: &str, name: &str| {
        std::fs::write(&bob_file, forged).unwrap();
        let bytes = std::fs::read(mail_of(bob, "2026-11-08T10:30:00Z", &id)).unwrap();
        let refused = deliver(alice, "2026-11-08T11:00:00Z", &bytes, name);
        let said = text(&refused.stdout) + &text(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{said}");
        said
    };
    // Another card in place of Black's reply, and only of the reply (White's lead stays):
    // one Black does not hold and nobody has played, of the reply's value in another suit
    // where there is one (so that the pair is judged alike), else any such card.
    let token = record
        .split_whitespace()
        .find(|word| word.starts_with(&format!("Nxe5:w9_c{lead}_c")))
        .unwrap_or_else(|| panic!("{record}"))
        .to_owned();
    let (head, last) = token.rsplit_once("_c").unwrap();
    assert_eq!(head, format!("Nxe5:w9_c{lead}"), "{token}");
    let check = last
        .strip_prefix(reply.as_str())
        .unwrap_or_else(|| panic!("{token}"));
    assert!(["", "+", "#"].contains(&check), "{token}");
    let suits = ["C", "D", "H", "S"];
    let value = &reply[1..];
    let swapped = suits
        .iter()
        .map(|suit| format!("{suit}{value}"))
        .chain(
            suits
                .iter()
                .flat_map(|suit| (1..=10).map(move |v| format!("{suit}{v}"))),
        )
        .find(|card| *card != reply && *card != lead && !held.contains(card))
        .unwrap();
    let forged_token = format!("{head}_c{swapped}{check}");
    let forged = record.replace(&token, &forged_token);
    assert_ne!(forged, record);
    let said = forge(&forged, "f1");
    assert!(
        said.contains(&format!("ply 7: Black plays {swapped}, but position "))
            && said.contains(&format!(" of its hand holds {reply} (a swapped card)")),
        "{said}"
    );
    // Black's opening key for its reply, edited.
    let words: Vec<&str> = record.split_whitespace().collect();
    let at = words
        .windows(3)
        .position(|w| w[0] == "{black" && w[1] == "[%deal" && w[2] == "open")
        .unwrap();
    let key = words[at + 4].trim_end_matches(['}', ']']).to_owned();
    let mut edited = key.clone();
    let first = if edited.starts_with('A') { "B" } else { "A" };
    edited.replace_range(0..1, first);
    let said = forge(&record.replace(&key, &edited), "f2");
    assert!(said.contains("ply 7:"), "{said}");
    assert!(
        said.contains("edited key") || said.contains("cannot read"),
        "{said}"
    );
    // Nothing was lost: the true mail is still taken in.
    std::fs::write(&bob_file, &record).unwrap();
    post(bob, alice, "2026-11-08T12:00:00Z", &id, "true");
    let path = game_path(alice, &id);
    let said = text(&validate(&path).stdout);
    assert!(
        said.contains("chance not proven: White and Black have not revealed their seeds"),
        "{said}"
    );
    // A game file edited afterwards: validate says broken, with the ply, and fails.
    let now = std::fs::read_to_string(&path).unwrap();
    let edited_file = path.with_file_name("edited.pgn");
    std::fs::write(&edited_file, now.replace(&key, &edited)).unwrap();
    let out = validate(&edited_file);
    assert_refused(&out, "chance broken at ply 7");
}

/// The start of the long game: each side's Rook is its Ball-haver on the e-file and can
/// throw into the opposing wicket every other turn; both Queens see their own wickets, so
/// the reply's 2.5 bonus makes most attempts fail and the game lasts.
const LONG_FEN: &str = "3q3k/5ppp/4R3/8/8/4r3/PPP5/K2Q4 w - - -,- e6,e3 d1,d8 cards2 0 1";

/// The cards played so far in the game file (every `_c` step of its tokens).
fn played(player: &Player, id: &str) -> Vec<String> {
    let record = std::fs::read_to_string(game_path(player, id)).unwrap();
    record
        .split_whitespace()
        .flat_map(|word| word.split("_c").skip(1))
        .map(|card| card.trim_end_matches(['+', '#']).to_owned())
        .filter(|card| card != "-")
        .collect()
}

/// The value of a card (`S10` is 10).
fn value(card: &str) -> u8 {
    card[1..].parse().unwrap_or(0)
}

/// The card to play from `cards`: one played before (so it came from the reshuffle),
/// else the lowest to lead and the highest to reply.
fn choose(cards: &[String], before: &[String], lead: bool) -> String {
    let mut cards = cards.to_vec();
    cards.sort_by_key(|c| {
        (
            !before.contains(c),
            if lead { value(c) } else { 10 - value(c) },
        )
    });
    cards[0].clone()
}

/// Plays every awaited card, each by its player's pbem and mailed to the other.
fn play_awaited(homes: &Homes, id: &str, now: &str, serial: &mut usize) {
    loop {
        let mut acted = false;
        for (me, other) in [(&homes.alice, &homes.bob), (&homes.bob, &homes.alice)] {
            let legal = me.run(now, &["legal", id]);
            if !text(&legal.stderr).contains("from your hand") {
                continue;
            }
            let cards: Vec<String> = text(&legal.stdout)
                .lines()
                .filter(|c| *c != "-")
                .map(str::to_owned)
                .collect();
            let shown = ok(&me.run(now, &["show", id]));
            let leads = !shown.contains("card in reply to");
            let card = choose(&cards, &played(me, id), leads);
            ok(&me.run(now, &["move", id, &card]));
            *serial += 1;
            post(me, other, now, id, &format!("card{serial}"));
            acted = true;
        }
        if !acted {
            return;
        }
    }
}

/// One turn by `me`'s pbem (a scoring attempt leads a card of its hand), naming a pawn
/// Defender first when it must, mailed to `other`; then the awaited cards.
fn long_turn(
    homes: &Homes,
    id: &str,
    white: bool,
    token: &str,
    serial: &mut usize,
    before_post: &mut dyn FnMut(&Player, &Player),
) {
    let (me, other) = if white {
        (&homes.alice, &homes.bob)
    } else {
        (&homes.bob, &homes.alice)
    };
    let now = "2026-11-10T10:00:00Z";
    let mut token = token.to_owned();
    if token.contains(":w") {
        token = format!("{token}_c{}", choose(&hand(me, id), &played(me, id), true));
    }
    let names: &[&str] = if white {
        &["", "Da2:", "Db2:", "Dc2:"]
    } else {
        &["", "Dh7:", "Dg7:", "Df7:"]
    };
    let moved = names.iter().any(|name| {
        me.run(now, &["move", id, &format!("{name}{token}")])
            .status
            .success()
    });
    assert!(
        moved,
        "{token} cannot be played:\n{}",
        ok(&me.run(now, &["show", id]))
    );
    before_post(me, other);
    *serial += 1;
    post(me, other, now, id, &format!("turn{serial}"));
    play_awaited(homes, id, now, serial);
}

/// Position numbers opened by `[%deal open P KEY]` in a game file.
fn opened_positions(player: &Player, id: &str) -> Vec<usize> {
    let record = std::fs::read_to_string(game_path(player, id)).unwrap();
    let words: Vec<&str> = record.split_whitespace().collect();
    words
        .windows(3)
        .filter(|w| w[0] == "[%deal" && w[1] == "open")
        .filter_map(|w| w[2].parse().ok())
        .collect()
}

/// A long Cards II game by Maildir: both Rooks attempt in turn until the deck has run out
/// and a card of the reshuffle was played; `tamper` runs with the mover and the other
/// player once, before the mail of the first turn made after the reshuffle began.
fn long_game(name: &str, tamper: &mut dyn FnMut(&Player, &Player)) -> (Homes, String) {
    let homes = Homes::new(name, "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &[
            "--variant",
            "wickets",
            "--decision",
            "Cards II",
            "--fen",
            LONG_FEN,
        ],
    );
    let mut serial = 0;
    for (white, token) in [(true, "Kb1"), (false, "Kg8"), (true, "Ka1"), (false, "Kh8")] {
        long_turn(&homes, &id, white, token, &mut serial, &mut |_, _| {});
    }
    let cycle = [
        (true, "Re7:w9"),
        (false, "Re2:w0"),
        (true, "Rxw9"),
        (false, "Rxw0"),
    ];
    let mut tampered = false;
    for &(white, token) in cycle.iter().cycle().take(120) {
        let record = std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap();
        let now_tamper = !tampered && record.contains("reshuffle 1 mask1");
        tampered |= now_tamper;
        let cards = played(&homes.alice, &id).len();
        if tampered
            && !now_tamper
            && cards >= 30
            && opened_positions(&homes.alice, &id).iter().any(|&p| p >= 40)
        {
            return (homes, id);
        }
        assert!(!record.contains("[Result \"1-0\"]") && !record.contains("[Result \"0-1\"]"));
        let mut nothing = |_: &Player, _: &Player| {};
        let hook: &mut dyn FnMut(&Player, &Player) = if now_tamper {
            &mut *tamper
        } else {
            &mut nothing
        };
        long_turn(&homes, &id, white, token, &mut serial, hook);
    }
    panic!("120 turns without a reshuffled card played");
}

#[test]
fn a_cards_two_game_by_maildir_is_proven_fair_through_the_reshuffle() {
    let (homes, id) = long_game("fair-reshuffle", &mut |_: &Player, _: &Player| {});
    let (alice, bob) = (&homes.alice, &homes.bob);
    let said = text(&validate(&game_path(alice, &id)).stdout);
    assert!(said.contains("and its reshuffle and checked"), "{said}");
    // Each side's hand is still its own, ten cards (some may be drawn ones to come).
    let (white, black) = (hand(alice, &id), hand(bob, &id));
    assert!(white.iter().all(|card| !black.contains(card)));
    reveal_and_prove(&homes, &id, "12", "the deal, 1 reshuffle and ");
}

#[test]
fn an_edited_reshuffle_message_is_refused_at_receipt_and_nothing_is_lost() {
    let mut refused = 0;
    let (homes, id) = long_game(
        "fair-reshuffle-tamper",
        &mut |me: &Player, other: &Player| {
            let pgn = |player: &Player| {
                std::fs::read_dir(player.dir.join("games"))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.extension().is_some_and(|x| x == "pgn"))
                    .unwrap()
            };
            let (mine, theirs) = (pgn(me), pgn(other));
            let id = mine.file_stem().unwrap().to_str().unwrap().to_owned();
            let record = std::fs::read_to_string(&mine).unwrap();
            // The last message of the reshuffle in the mover's file, its first element
            // repeated in place of the second.
            let words: Vec<&str> = record.split_whitespace().collect();
            let at = words
                .windows(3)
                .rposition(|w| w[0] == "[%deal" && w[1] == "reshuffle" && w[2] == "1")
                .unwrap();
            let step = words[at + 3].to_owned();
            let (first, second) = (words[at + 4], words[at + 5]);
            let forged = record.replacen(second, first, 1);
            assert_ne!(forged, record);
            std::fs::write(&mine, &forged).unwrap();
            let before = std::fs::read(&theirs).unwrap();
            let bytes = std::fs::read(mail_of(me, "2026-11-10T10:30:00Z", &id)).unwrap();
            let out = deliver(other, "2026-11-10T11:00:00Z", &bytes, "forged");
            let said = text(&out.stdout) + &text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{said}");
            let number = &step[4..];
            assert!(
                said.contains(&format!(
                    ": message {number} of reshuffle 1: positions 0 and 1 hold the same masked card"
                )) && said.contains("not fair: ply "),
                "{said}"
            );
            assert_eq!(std::fs::read(&theirs).unwrap(), before, "nothing changed");
            std::fs::write(&mine, &record).unwrap();
            refused += 1;
        },
    );
    assert_eq!(refused, 1);
    // The true mails were taken in after the forgery, and the game went on through the
    // reshuffle.
    let path = game_path(&homes.alice, &id);
    let said = text(&validate(&path).stdout);
    assert!(said.contains("and its reshuffle and checked"), "{said}");
    // A game file whose reshuffle was edited afterwards: validate says broken, with the
    // ply and the reason, and fails.
    let record = std::fs::read_to_string(&path).unwrap();
    let words: Vec<&str> = record.split_whitespace().collect();
    let at = words
        .windows(4)
        .position(|w| w == ["[%deal", "reshuffle", "1", "mask2"])
        .unwrap();
    let (first, second) = (words[at + 4], words[at + 5]);
    let edited = path.with_file_name("edited.pgn");
    std::fs::write(&edited, record.replacen(second, first, 1)).unwrap();
    let out = validate(&edited);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("; chance broken at ply ")
            && said.contains(
                ": message 2 of reshuffle 1: positions 0 and 1 hold the same masked card"
            ),
        "{said}"
    );
}

/// The hand `show --ply N` tells the player.
fn hand_at(player: &Player, id: &str, ply: usize) -> Vec<String> {
    let ply = ply.to_string();
    hand_shown(
        player,
        &["show", id, "--ply", &ply],
        &format!("your hand after ply {ply}: "),
    )
}

#[test]
fn show_and_legal_at_an_earlier_ply_tell_the_players_own_hand_only() {
    let (homes, id, lead) = to_the_lead("fair-cards-ply");
    let (alice, bob) = (&homes.alice, &homes.bob);
    // Before her attempt White held the card she led; now she does not.
    let before = hand_at(alice, &id, 6);
    assert_eq!(before.len(), 10, "{before:?}");
    assert!(before.contains(&lead), "{before:?}");
    assert!(!hand(alice, &id).contains(&lead));
    // Black sees his own hand at that ply, none of White's cards.
    let his = hand_at(bob, &id, 6);
    assert_eq!(his.len(), 10, "{his:?}");
    assert!(
        his.iter().all(|card| !before.contains(card)),
        "{his:?} {before:?}"
    );
    // Before the deal gave Black his hand, `show --ply` says so.
    let early = ok(&bob.run("2026-11-09T00:00:00Z", &["show", &id, "--ply", "1"]));
    assert!(
        early.contains("your hand after ply 1: not dealt yet"),
        "{early}"
    );
    // `legal --ply 7`: Black's awaited card comes from his hand; White is told nothing of it.
    let legal = bob.run("2026-11-09T00:00:00Z", &["legal", &id, "--ply", "7"]);
    assert!(
        text(&legal.stderr).contains("from your hand"),
        "{}",
        text(&legal.stderr)
    );
    let cards: Vec<String> = text(&legal.stdout).lines().map(str::to_owned).collect();
    assert!(
        !cards.is_empty() && cards.iter().all(|card| his.contains(card)),
        "{cards:?}"
    );
    let theirs = alice.run("2026-11-09T00:00:00Z", &["legal", &id, "--ply", "7"]);
    assert!(!text(&theirs.stderr).contains("from your hand"));
    assert!(!text(&theirs.stdout).contains("your hand"));
}

/// While the player's card is awaited in a dealt game (issue 31, point 13): the whole turn
/// typed with a card of the hand is taken as the card alone would be, and a part that is
/// no card is refused with a card of the player's own hand as the example and the hand's
/// playable cards as the legal list.
#[test]
fn the_completed_turn_is_taken_and_a_wrong_part_names_a_card_of_the_hand() {
    let (homes, id, lead) = to_the_lead("fair-cards-completed");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let held = hand(bob, &id);
    let playable: Vec<String> = ok(&bob.run("2026-11-08T09:00:00Z", &["legal", &id]))
        .lines()
        .map(str::to_owned)
        .collect();
    let wrong = bob.run("2026-11-08T09:00:00Z", &["move", &id, "d4"]);
    let said = text(&wrong.stderr);
    assert_eq!(wrong.status.code(), Some(1), "{said}");
    assert!(said.contains("type a card you may play (as "), "{said}");
    let example = said
        .split(" (as ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        held.iter().any(|card| card == example),
        "{example}: {held:?}"
    );
    assert!(
        said.contains(&format!(
            "help: legal turns ({}): {}",
            playable.len(),
            playable.join(" ")
        )),
        "{said}"
    );
    // The whole turn, with a card Bob may play: taken, and Alice's pbem takes it in.
    let card = awaited_card(bob, &id).unwrap();
    let typed = format!("Nxe5:w9_c{lead}_c{card}");
    ok(&bob.run("2026-11-08T10:00:00Z", &["move", &id, &typed]));
    let record = std::fs::read_to_string(game_path(bob, &id)).unwrap();
    assert!(record.contains(&typed), "{record}");
    post(bob, alice, "2026-11-08T11:00:00Z", &id, "completed");
    assert_eq!(
        std::fs::read_to_string(game_path(alice, &id)).unwrap(),
        std::fs::read_to_string(game_path(bob, &id)).unwrap()
    );
}

/// A card key as `notation/fair-chance.md` ("Scalars") defines it, written from the page
/// alone: the first non-zero scalar of `SHA-512(label ‖ seed ‖ (1024 × i + r) as 8 bytes
/// big-endian)`, the digest read little-endian modulo the group order.
pub(crate) fn page_scalar(label: &str, seed: &[u8; 32], i: u64) -> curve25519_dalek::Scalar {
    use sha2::{Digest, Sha512};
    (0..)
        .map(|r: u64| {
            let mut hash = Sha512::new();
            hash.update(label.as_bytes());
            hash.update(seed);
            hash.update((1024 * i + r).to_be_bytes());
            curve25519_dalek::Scalar::from_bytes_mod_order_wide(&hash.finalize().into())
        })
        .find(|scalar| *scalar != curve25519_dalek::Scalar::ZERO)
        .expect("a non-zero scalar")
}

/// The page's card point: `from_uniform_bytes(SHA-512("pbem card v1" ‖ 32 zero bytes ‖ c
/// as 8 bytes big-endian))`.
fn page_card(c: u64) -> curve25519_dalek::RistrettoPoint {
    use sha2::{Digest, Sha512};
    let mut hash = Sha512::new();
    hash.update(b"pbem card v1");
    hash.update([0u8; 32]);
    hash.update(c.to_be_bytes());
    curve25519_dalek::RistrettoPoint::from_uniform_bytes(&hash.finalize().into())
}

pub(crate) fn unbase64(text: &str) -> [u8; 32] {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .expect("base64")
        .try_into()
        .expect("32 bytes")
}

/// A verifier written from `notation/fair-chance.md` (issue 32, point 4): the page states
/// the card-key formula this test implements, and from the two seeds revealed in the
/// bundled Cards game it recomputes every card key the record carries (`keys`, `open`)
/// and opens every position of the final deck to a different card. The library's
/// [`pbem::fair::deal::Dealer`] gives the same keys for every position, for the deal and
/// for reshuffles 1 to 3, from several seeds.
#[test]
fn the_page_s_card_key_formula_is_the_code_s() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("notation/fair-chance.md")).unwrap();
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        page.contains(
            "`SHA-512(label ‖ s ‖ (1024 × i + r) as 8 bytes big-endian)` for `r` = 0, 1, 2"
        ),
        "the page states the formula this test implements"
    );

    let game = std::fs::read_to_string(root.join("examples/wickets-cards.pgn")).unwrap();
    let mut seeds = std::collections::HashMap::new();
    let mut keys = Vec::new();
    let mut mask3 = Vec::new();
    for comment in game.split('{').skip(1) {
        let comment = comment.split('}').next().unwrap();
        let side = comment.split_whitespace().next().unwrap().to_owned();
        for command in comment.split("[%deal ").skip(1) {
            let words: Vec<&str> = command
                .split(']')
                .next()
                .unwrap()
                .split_whitespace()
                .collect();
            match words[0] {
                "seed" => {
                    seeds.insert(side.clone(), unbase64(words[1]));
                }
                "keys" | "open" => {
                    for pair in words[1..].chunks(2) {
                        let position: u64 = pair[0].parse().unwrap();
                        keys.push((side.clone(), position, unbase64(pair[1])));
                    }
                }
                "mask3" => {
                    mask3 = words[1..]
                        .iter()
                        .take_while(|word| **word != "proof")
                        .map(|word| unbase64(word))
                        .collect();
                }
                _ => {}
            }
        }
    }
    assert_eq!(seeds.len(), 2, "both seeds are revealed in the example");
    assert!(keys.len() >= 20, "{} keys in the record", keys.len());
    for (side, position, key) in &keys {
        assert!(*position < 40, "the example has no reshuffle");
        let computed = page_scalar("pbem deal card", &seeds[side], *position);
        assert_eq!(
            computed.to_bytes(),
            *key,
            "{side}'s key for position {position}"
        );
    }
    assert_eq!(mask3.len(), 40);
    let cards: Vec<u64> = (0..40)
        .map(|position| {
            let both = page_scalar("pbem deal card", &seeds["white"], position)
                * page_scalar("pbem deal card", &seeds["black"], position);
            let point = curve25519_dalek::ristretto::CompressedRistretto(mask3[position as usize])
                .decompress()
                .expect("a ristretto255 element");
            let card = both.invert() * point;
            (0..40)
                .find(|&c| page_card(c) == card)
                .unwrap_or_else(|| panic!("position {position} opens to no card"))
        })
        .collect();
    let mut distinct = cards.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 40, "every card once: {cards:?}");

    for seed in [seeds["white"], seeds["black"], [0; 32], [0xa5; 32]] {
        let dealer = pbem::fair::deal::Dealer::from_seed(seed);
        for i in 0..40 {
            assert_eq!(
                dealer.card_key(i),
                page_scalar("pbem deal card", &seed, i as u64),
                "position {i}"
            );
        }
        for k in 1..=3u64 {
            use sha2::{Digest, Sha512};
            let mut hash = Sha512::new();
            hash.update(b"pbem reshuffle v1");
            hash.update(seed);
            hash.update(k.to_be_bytes());
            let reshuffled: [u8; 32] = hash.finalize()[..32].try_into().unwrap();
            let dealer = dealer.reshuffle(k);
            for i in 0..21 {
                assert_eq!(
                    dealer.card_key(i),
                    page_scalar("pbem deal card", &reshuffled, i as u64),
                    "reshuffle {k}, place {i}"
                );
            }
        }
    }
}

/// The homes of a dealt game switched to a shared folder (`<root>/shared`), so that
/// `pbem send` really mails and `pbem sync` takes in.
pub(crate) fn through_a_shared_folder(homes: &Homes) {
    std::fs::create_dir_all(homes.root.join("shared")).unwrap();
    for player in [&homes.alice, &homes.bob] {
        let config = std::fs::read_to_string(player.config()).unwrap();
        std::fs::write(
            player.config(),
            format!("{config}shared_folder: ../shared\n"),
        )
        .unwrap();
    }
}

/// `pbem status` (with `--all` or not) as the player sees it on 1 December.
fn status_of(player: &Player, all: bool) -> String {
    let args: &[&str] = if all {
        &["status", "--all"]
    } else {
        &["status"]
    };
    ok(&player.run("2026-12-01T09:00:00Z", args))
}

/// The other player of the homes.
fn other_of<'a>(homes: &'a Homes, player: &Player) -> &'a Player {
    if player.dir == homes.alice.dir {
        &homes.bob
    } else {
        &homes.alice
    }
}

/// A player's act: who ("alice" or "bob") runs which command on the game.
type Act<'a> = (&'a str, &'a [&'a str]);

/// Every way a dealt game ends by an event (a resignation by either side, a draw
/// agreed) puts the ender's seed in its mail; the other side's pbem adds its own on
/// receipt and lists the game as owing that last mail until it is sent; then both files
/// prove the deal and `status --all` says so.
#[test]
fn the_end_of_a_dealt_game_brings_both_seeds_whatever_ends_it() {
    // (name, the acts: who ("alice" or "bob") runs which command, the result)
    let cases: [(&str, &[Act], &str); 3] = [
        ("resign-white", &[("alice", &["resign"])], "0-1"),
        ("resign-black", &[("bob", &["resign"])], "1-0"),
        (
            "draw-agreed",
            &[("alice", &["draw", "offer"]), ("bob", &["draw", "accept"])],
            "1/2-1/2",
        ),
    ];
    for (name, acts, result) in cases {
        let (homes, id) = dealt_opening(&format!("fair-cards-end-{name}"));
        through_a_shared_folder(&homes);
        let player = |who: &str| {
            if who == "alice" {
                &homes.alice
            } else {
                &homes.bob
            }
        };
        let mut ender = &homes.alice;
        for (k, (who, command)) in acts.iter().enumerate() {
            ender = player(who);
            let other = other_of(&homes, ender);
            let now = format!("2026-11-1{k}T10:00:00Z");
            let said = ok(&ender.run(&now, &[*command, &[id.as_str()]].concat()));
            if k + 1 == acts.len() {
                // The ender's seed rides in the mail of the end; its status prompts it.
                assert!(
                    said.contains("your seed of the deal is added"),
                    "{name}: {said}"
                );
                let status = status_of(ender, false);
                assert!(
                    status.contains(&format!(
                        "finished {result}; your last mail is not sent yet: pbem send {id}"
                    )),
                    "{name}: {status}"
                );
            }
            ok(&ender.run(&now, &["send", &id]));
            let taken = ok(&other.run(&now, &["sync"]));
            if k + 1 < acts.len() {
                assert!(!taken.contains("seed"), "{name}: {taken}");
            }
        }
        let other = other_of(&homes, ender);
        // The ender has sent: finished, no longer listed without --all.
        assert!(!status_of(ender, false).contains(&id), "{name}");
        // The ender's copy waits for the other side's seed.
        let waiting = if other.dir == homes.alice.dir {
            "White"
        } else {
            "Black"
        };
        let said = text(&validate(&game_path(ender, &id)).stdout);
        assert!(
            said.contains(&format!(
                "; chance not proven: {waiting} has not revealed its seed"
            )),
            "{name}: {said}"
        );
        // The other side's pbem added its seed on receipt: the last mail, listed as owed.
        let status = status_of(other, false);
        assert!(
            status.contains(&format!(
                "finished {result}; your last mail is not sent yet: pbem send {id}; chance proven fair"
            )),
            "{name}: {status}"
        );
        ok(&other.run("2026-11-20T10:00:00Z", &["send", &id]));
        assert!(!status_of(other, false).contains(&id), "{name}");
        ok(&ender.run("2026-11-20T11:00:00Z", &["sync"]));
        for player in [&homes.alice, &homes.bob] {
            let out = validate(&game_path(player, &id));
            let said = text(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{name}: {said}");
            assert!(
                said.contains("; chance proven fair (the deal and 0 cards)"),
                "{name}: {said}"
            );
            let status = status_of(player, true);
            assert!(
                status.contains(&format!(
                    "finished {result}; chance proven fair (the deal and 0 cards)"
                )),
                "{name}: {status}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap(),
            std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap()
        );
    }
}

/// A side that keeps its seed after the result (Black takes in White's resignation,
/// whose mail brings White's seed, and never mails its own) leaves the deal not proven
/// on White's side, named as Black's, for good: later mails change nothing.
#[test]
fn a_seed_withheld_after_the_result_leaves_the_deal_not_proven_for_good() {
    let (homes, id) = dealt_opening("fair-cards-withheld");
    through_a_shared_folder(&homes);
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run("2026-11-10T10:00:00Z", &["resign", &id]));
    ok(&alice.run("2026-11-10T10:00:00Z", &["send", &id]));
    let taken = ok(&bob.run("2026-11-10T11:00:00Z", &["sync"]));
    assert!(
        taken.contains(&format!("send your last mail: pbem send {id}")),
        "{taken}"
    );
    // Bob's copy has both seeds; Alice's has only her own.
    let said = text(&validate(&game_path(bob, &id)).stdout);
    assert!(said.contains("chance proven fair"), "{said}");
    for day in ["11", "30"] {
        ok(&alice.run(&format!("2026-11-{day}T10:00:00Z"), &["sync"]));
        let out = validate(&game_path(alice, &id));
        let said = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(
            said.contains("; chance not proven: Black has not revealed its seed"),
            "{said}"
        );
        assert!(!said.contains("proven fair"), "{said}");
        let status = status_of(alice, true);
        assert!(
            status.contains("finished 0-1; chance not proven: Black has not revealed its seed"),
            "{status}"
        );
    }
}
