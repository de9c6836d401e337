//! Fair cards by mail (issue 16, `notation/fair-chance.md`, "Cards"): two players' pbem,
//! each with its own Maildir, deal a Cards II game in their first mails, play it to a
//! scoring attempt from hands each sees alone, reveal their seeds, and both game files
//! validate "chance proven fair"; a card not held is refused, and a swapped card or an
//! edited key in a mail is refused with the ply and the reason.

use crate::support::homes::{Homes, Player, deliver, game_path, mail_of, ok, post, text, validate};

/// The player's hand as `pbem show` tells it.
fn hand(player: &Player, id: &str) -> Vec<String> {
    let shown = ok(&player.run("2026-11-09T00:00:00Z", &["show", id]));
    let line = shown
        .lines()
        .find_map(|line| line.strip_prefix("your hand: "))
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

/// A Cards II game by Maildir to White's scoring attempt, its cards played from the
/// hands until it is decided; returns the homes, the id and the mail that decided it
/// (not yet delivered).
fn play_to_attempt(name: &str) -> (Homes, String) {
    let homes = Homes::new(name, "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", "Cards II"],
    );
    let (alice, bob) = (&homes.alice, &homes.bob);
    for (i, token) in ["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6"]
        .iter()
        .enumerate()
    {
        let now = format!("2026-11-0{}T10:00:00Z", i + 1);
        let (from, to) = if i % 2 == 0 {
            (alice, bob)
        } else {
            (bob, alice)
        };
        ok(&from.run(&now, &["move", &id, token]));
        post(from, to, &now, &id, &format!("m{i}"));
    }
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
    let mut turn = (bob, alice);
    for k in 0..8 {
        let Some(card) = awaited_card(turn.0, &id) else {
            break;
        };
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
    let (alice, bob) = (&homes.alice, &homes.bob);
    // Before the seeds: not proven, but every card played already opened and checked.
    let said = text(&validate(&game_path(alice, &id)).stdout);
    assert!(
        said.contains("chance not proven: the seeds are not revealed yet"),
        "{said}"
    );
    // Each reveals its seed (as for an arbiter) and mails it.
    let revealed = ok(&bob.run("2026-11-09T10:00:00Z", &["fair", "reveal", &id]));
    assert!(revealed.contains("your seed is revealed"), "{revealed}");
    post(bob, alice, "2026-11-09T10:01:00Z", &id, "seed-b");
    ok(&alice.run("2026-11-09T11:00:00Z", &["fair", "reveal", &id]));
    post(alice, bob, "2026-11-09T11:01:00Z", &id, "seed-a");
    for player in [alice, bob] {
        let out = validate(&game_path(player, &id));
        let said = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(
            said.contains("; chance proven fair (the deal and "),
            "{said}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(game_path(alice, &id)).unwrap(),
        std::fs::read_to_string(game_path(bob, &id)).unwrap()
    );
}

/// A dealt Cards II game played by mail to White's scoring attempt with a card led,
/// mailed to Black, whose card is now awaited; also the lead.
fn to_the_lead(name: &str) -> (Homes, String, String) {
    let homes = Homes::new(name, "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", "Cards II"],
    );
    let (alice, bob) = (&homes.alice, &homes.bob);
    for (i, token) in ["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6"]
        .iter()
        .enumerate()
    {
        let now = format!("2026-11-0{}T10:00:00Z", i + 1);
        let (from, to) = if i % 2 == 0 {
            (alice, bob)
        } else {
            (bob, alice)
        };
        ok(&from.run(&now, &["move", &id, token]));
        post(from, to, &now, &id, &format!("m{i}"));
    }
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
    ok(&bob.run("2026-11-08T10:00:00Z", &["move", &id, &reply]));
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
    // Another card of the same suit and value class in place of Black's reply: one Black
    // does not hold at that position.
    let token = record
        .split_whitespace()
        .find(|word| word.starts_with(&format!("Nxe5:w9_c{lead}_c")))
        .unwrap_or_else(|| panic!("{record}"))
        .to_owned();
    // (The same value in another suit, so that the pair is judged alike.)
    let value = &reply[1..];
    let swapped = ["C", "D", "H", "S"]
        .iter()
        .map(|suit| format!("{suit}{value}"))
        .find(|card| *card != reply && *card != lead)
        .unwrap();
    let forged_token = token.replacen(&format!("_c{reply}"), &format!("_c{swapped}"), 1);
    let said = forge(&record.replace(&token, &forged_token), "f1");
    assert!(said.contains("ply 7:"), "{said}");
    assert!(said.contains("(a swapped card)"), "{said}");
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
        said.contains("chance not proven: the seeds are not revealed yet"),
        "{said}"
    );
    // A game file edited afterwards: validate says broken, with the ply, and fails.
    let now = std::fs::read_to_string(&path).unwrap();
    let edited_file = path.with_file_name("edited.pgn");
    std::fs::write(&edited_file, now.replace(&key, &edited)).unwrap();
    let out = validate(&edited_file);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("chance broken at ply 7"),
        "{}",
        text(&out.stdout)
    );
}
