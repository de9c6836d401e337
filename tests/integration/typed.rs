//! Turns typed by hand (issue 14): an opponent answers pbem's mail from an ordinary mail
//! client with the turn as the first line they write. The fixtures in
//! `tests/data/mail/typed/` are shaped like what common clients send (a Thunderbird reply
//! posted below the quote with `format=flowed`, a Gmail html-only reply posted above it
//! with a signature, a phone's base64 reply with a German `AW:` prefix); their game and
//! threading headers are filled in from the mail they answer.

use std::path::{Path, PathBuf};

use crate::support::homes::assert_refused;
use crate::support::homes::{
    Homes, Player, TO_THE_ATTEMPT, deliver, game_path, game_words, mail_of, maildir, ok, text,
};
use crate::support::mail::{self, header};

/// A fixture filled in as a reply to `answered` (a pbem mail) of game `id`.
fn reply_from_fixture(fixture: &str, id: &str, answered: &Path) -> Vec<u8> {
    let template = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/mail/typed")
            .join(fixture),
    )
    .unwrap();
    let answered = std::fs::read_to_string(answered).unwrap();
    let message_id = header(&answered, "Message-ID");
    template
        .replace("{GAME}", id)
        .replace("{IN_REPLY_TO}", &message_id)
        .replace("{REFERENCES}", &message_id)
        .into_bytes()
}

/// A plain reply by hand: `first` as its first line, then a quote; threaded to
/// `answered` when given.
fn hand_reply(from: &str, first: &str, message_id: &str, answered: Option<&Path>) -> Vec<u8> {
    hand_reply_to(from, "alice@example.org", first, message_id, answered)
}

/// [`hand_reply`] to `to`.
fn hand_reply_to(
    from: &str,
    to: &str,
    first: &str,
    message_id: &str,
    answered: Option<&Path>,
) -> Vec<u8> {
    let answered =
        answered.map(|path| header(&std::fs::read_to_string(path).unwrap(), "Message-ID"));
    mail::hand_reply(
        from,
        to,
        first,
        &format!("{message_id}@example.org"),
        answered.as_deref(),
    )
}

fn receive(player: &Player, now: &str, name: &str, bytes: &[u8]) -> std::process::Output {
    let path = player.dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    player.run(now, &["receive", path.to_str().unwrap()])
}

/// The handle of the refused mail `pbem status` lists (at 10:31), and what
/// `pbem send --refusal HANDLE --dry-run` said (at 10:32), the refusal's mail written into
/// the player's `refusals` folder.
fn send_refusal(player: &Player) -> (String, String) {
    let status = ok(&player.run("2026-11-01T10:31:00Z", &["status"]));
    let handle = status
        .lines()
        .find(|line| line.starts_with("refused mail "))
        .and_then(|line| line.split_whitespace().nth(2))
        .unwrap_or_else(|| panic!("{status}"))
        .to_owned();
    let drafts = player.dir.join("refusals");
    let written = ok(&player.run(
        "2026-11-01T10:32:00Z",
        &[
            "send",
            "--refusal",
            &handle,
            "--dry-run",
            drafts.to_str().unwrap(),
        ],
    ));
    (handle, written)
}

#[test]
fn a_game_is_played_against_replies_typed_in_mail_clients() {
    let homes = Homes::new("typed-game", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let alice = &homes.alice;

    // Thunderbird, below the quote, found by In-Reply-To alone.
    ok(&alice.run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let first = mail_of(alice, "2026-11-01T10:00:00Z", &id);
    let reply = reply_from_fixture("thunderbird-bottom-posted.eml", &id, &first);
    let taken = ok(&receive(alice, "2026-11-01T10:40:00Z", "r1.eml", &reply));
    assert!(
        taken.contains(&format!(
            "{id}: bob@example.org played 1... e5 (typed by hand)"
        )),
        "{taken}"
    );
    assert!(taken.contains("your turn: 2."), "{taken}");
    // The same reply again changes nothing.
    let again = ok(&receive(alice, "2026-11-01T10:41:00Z", "r1.eml", &reply));
    assert!(again.contains("already known"), "{again}");

    // Gmail, html only, above the quote, with a signature.
    ok(&alice.run("2026-11-01T11:00:00Z", &["move", &id, "Nf3"]));
    let second = mail_of(alice, "2026-11-01T11:00:00Z", &id);
    let reply = reply_from_fixture("gmail-html-only.eml", &id, &second);
    let taken = ok(&receive(alice, "2026-11-01T11:40:00Z", "r2.eml", &reply));
    assert!(taken.contains("played 2... Nc6 (typed by hand)"), "{taken}");

    // A phone: base64, above the quote, a signature, "AW:".
    ok(&alice.run("2026-11-01T12:00:00Z", &["move", &id, "Bc4"]));
    let third = mail_of(alice, "2026-11-01T12:00:00Z", &id);
    let reply = reply_from_fixture("phone-top-posted-base64.eml", &id, &third);
    let taken = ok(&receive(alice, "2026-11-01T12:40:00Z", "r3.eml", &reply));
    assert!(taken.contains("played 3... Nf6 (typed by hand)"), "{taken}");

    // The game file holds the typed turns with the replies' dates, and validates.
    let game = game_path(alice, &id);
    let record = game_words(alice, &id);
    assert!(
        record.contains("1... e5 {[%sent 2026-11-01T10:30:00Z] [%typed bob@example.org]}"),
        "{record}"
    );
    assert!(
        record.contains("Nc6 {[%sent 2026-11-01T11:30:00Z] [%typed bob@example.org]}")
            && record.contains("Nf6 {[%sent 2026-11-01T12:30:00Z] [%typed bob@example.org]}"),
        "{record}"
    );
    ok(&alice.run(
        "2026-11-01T12:41:00Z",
        &["validate", game.to_str().unwrap()],
    ));
    // Alice's next mail carries the whole record, typed turns included.
    ok(&alice.run("2026-11-01T13:00:00Z", &["move", &id, "Ng5"]));
    let fourth = mail_of(alice, "2026-11-01T13:00:00Z", &id);
    let mail = std::fs::read_to_string(&fourth).unwrap();
    assert!(mail.contains("3. Bc4"), "{mail}");
    assert!(mail.contains("4. Ng5"), "{mail}");
}

#[test]
fn a_typo_is_refused_with_the_legal_turns_and_the_refusal_mailed_back() {
    let homes = Homes::new("typed-typo", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let alice = &homes.alice;
    ok(&alice.run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let first = mail_of(alice, "2026-11-01T10:00:00Z", &id);
    let game = game_path(alice, &id);
    let before = std::fs::read_to_string(&game).unwrap();

    // "Nf5" is no legal turn: refused, with the legal turns; nothing changes.
    let typo = hand_reply("Bob <bob@example.org>", "Nf5", "typo", Some(&first));
    let refused = receive(alice, "2026-11-01T10:30:00Z", "typo.eml", &typo);
    assert_eq!(refused.status.code(), Some(1));
    let said = text(&refused.stdout);
    assert!(said.contains("\"Nf5\", is refused"), "{said}");
    assert!(said.contains("legal turns (20):"), "{said}");
    assert!(said.contains(" Nf6 ") && said.contains(" e5 "), "{said}");
    assert_eq!(std::fs::read_to_string(&game).unwrap(), before);

    // The refusal goes back to Bob: the game as it stands, the reason, its own id.
    let (_, written) = send_refusal(alice);
    let refusal_path = PathBuf::from(written.lines().next().unwrap());
    let refusal = std::fs::read_to_string(&refusal_path).unwrap();
    assert!(
        refusal.contains("Alice's pbem refused your typed turn Nf5:"),
        "{refusal}"
    );
    assert!(refusal.contains("Nf5"), "{refusal}");
    assert!(refusal.contains("It is your turn (1...)"), "{refusal}");
    let refusal_id = header(&refusal, "Message-ID");
    assert!(
        refusal_id.starts_with(&format!("<{id}.1.")) && refusal_id.contains("-refused-"),
        "{refusal_id}"
    );
    assert_ne!(
        refusal_id,
        header(&std::fs::read_to_string(&first).unwrap(), "Message-ID")
    );

    // Bob answers the refusal: taken in.
    let fixed = hand_reply(
        "Bob <bob@example.org>",
        "1... Nf6",
        "fixed",
        Some(&refusal_path),
    );
    let taken = ok(&receive(alice, "2026-11-01T11:00:00Z", "fixed.eml", &fixed));
    assert!(taken.contains("played 1... Nf6 (typed by hand)"), "{taken}");

    // A reply that is not a turn, and one from a stranger, are refused and change nothing.
    let chat = hand_reply(
        "Bob <bob@example.org>",
        "Thanks, I will answer tomorrow",
        "chat",
        Some(&first),
    );
    assert_refused(
        &receive(alice, "2026-11-01T11:10:00Z", "chat.eml", &chat),
        "is not one turn",
    );
    ok(&alice.run("2026-11-01T11:20:00Z", &["move", &id, "e5"]));
    let second = mail_of(alice, "2026-11-01T11:20:00Z", &id);
    let forged = hand_reply(
        "Mallory <mallory@example.org>",
        "Nxe4",
        "forged",
        Some(&second),
    );
    assert_refused(
        &receive(alice, "2026-11-01T11:30:00Z", "forged.eml", &forged),
        "comes from mallory@example.org",
    );
    // A reply to an old mail once the game has moved on is refused too.
    let stale = hand_reply("Bob <bob@example.org>", "d5", "stale", Some(&first));
    assert_refused(
        &receive(alice, "2026-11-01T11:40:00Z", "stale.eml", &stale),
        "answers your mail of ply 1, but the game is at ply 3",
    );
}

#[test]
fn with_a_secret_typed_turns_are_refused_unless_the_game_allows_them() {
    let homes = Homes::new("typed-secret", "");
    let alice = &homes.alice;
    for allow in [false, true] {
        let mut extra = vec!["--secret"];
        if allow {
            extra.push("--allow-typed");
        }
        let id = homes.start("2026-11-01T09:00:00Z", &extra);
        // The status says whether the game takes typed turns.
        let status = ok(&alice.run("2026-11-01T09:30:00Z", &["status"]));
        let said = if allow {
            "; with a secret, typed turns allowed".to_owned()
        } else {
            format!("; with a secret, typed turns refused (`pbem allow-typed {id}` allows them)")
        };
        let line = status
            .lines()
            .find(|line| line.starts_with(&id))
            .unwrap_or_else(|| panic!("{status}"));
        assert!(line.ends_with(&said), "{status}");
        ok(&alice.run("2026-11-01T10:00:00Z", &["move", &id, "d4"]));
        let first = mail_of(alice, "2026-11-01T10:00:00Z", &id);
        let reply = hand_reply(
            "Bob <bob@example.org>",
            "d5",
            &format!("secret-{allow}"),
            Some(&first),
        );
        let output = receive(alice, "2026-11-01T10:30:00Z", "secret.eml", &reply);
        let said = text(&output.stdout);
        if allow {
            assert_eq!(output.status.code(), Some(0), "{said}");
            assert!(said.contains("played 1... d5 (typed by hand)"), "{said}");
        } else {
            assert_eq!(output.status.code(), Some(1), "{said}");
            assert!(said.contains(&format!("`pbem allow-typed {id}`")), "{said}");
            let status = ok(&alice.run("2026-11-01T10:31:00Z", &["status"]));
            assert!(
                status.contains("carries no authentication code"),
                "{status}"
            );
            // `pbem allow-typed` allows them without the secret typed again: the same
            // reply is taken in; `--off` refuses typed turns again.
            let allowed = ok(&alice.run("2026-11-01T10:32:00Z", &["allow-typed", &id]));
            assert!(
                allowed.contains("turns typed by hand in a reply are taken in"),
                "{allowed}"
            );
            let status = ok(&alice.run("2026-11-01T10:33:00Z", &["status"]));
            assert!(
                status.contains("with a secret, typed turns allowed"),
                "{status}"
            );
            let output = receive(alice, "2026-11-01T10:34:00Z", "secret.eml", &reply);
            assert!(
                text(&output.stdout).contains("played 1... d5 (typed by hand)"),
                "{}",
                text(&output.stdout)
            );
            ok(&alice.run("2026-11-01T10:35:00Z", &["allow-typed", &id, "--off"]));
            let status = ok(&alice.run("2026-11-01T10:36:00Z", &["status"]));
            assert!(
                status.contains(&format!(
                    "typed turns refused (`pbem allow-typed {id}` allows them)"
                )),
                "{status}"
            );
        }
    }
}

#[test]
fn a_typed_reply_in_a_maildir_is_taken_in_and_other_mail_left_alone() {
    let homes = Homes::new("typed-maildir", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let alice = &homes.alice;
    ok(&alice.run("2026-11-01T10:00:00Z", &["move", &id, "c4"]));
    let first = mail_of(alice, "2026-11-01T10:00:00Z", &id);
    let inbox = maildir(alice);
    let reply = hand_reply("Bob <bob@example.org>", "e5", "maildir", Some(&first));
    std::fs::write(inbox.join("new/1762000001.M1P1.host"), &reply).unwrap();
    let other = b"From: Carol <carol@example.org>\r\nSubject: Re: lunch\r\n\
        Message-ID: <lunch@example.org>\r\n\r\nc4 is a fine opening\r\n";
    std::fs::write(inbox.join("new/1762000002.M2P1.host"), other).unwrap();
    let taken = ok(&alice.run(
        "2026-11-01T10:30:00Z",
        &["receive", "--maildir", inbox.to_str().unwrap()],
    ));
    assert!(taken.contains("played 1... e5 (typed by hand)"), "{taken}");
    assert!(inbox.join("cur/1762000001.M1P1.host:2,S").is_file());
    assert_eq!(
        std::fs::read(inbox.join("new/1762000002.M2P1.host")).unwrap(),
        other
    );
    let again = ok(&alice.run(
        "2026-11-01T10:40:00Z",
        &["receive", "--maildir", inbox.to_str().unwrap()],
    ));
    assert_eq!(again.trim(), "no new moves");
}

/// A clock for a game played by mail: each call is a minute later.
struct Clock(u32);

impl Clock {
    fn tick(&mut self) -> String {
        self.0 += 1;
        format!("2026-11-01T{:02}:{:02}:00Z", 10 + self.0 / 60, self.0 % 60)
    }
}

/// The other player of the two.
fn other<'a>(homes: &'a Homes, player: &Player) -> &'a Player {
    if player.dir == homes.alice.dir {
        &homes.bob
    } else {
        &homes.alice
    }
}

/// Plays `turns` by pbem mail in game `id`, each by `player` then the other in turn
/// (a card answer is a turn of its own, by whoever `who` names): the player moves,
/// writes the mail and the other takes it in. Returns the last mail written.
fn by_mail<'a>(
    homes: &'a Homes,
    id: &str,
    turns: &[(&str, &'a Player)],
    clock: &mut Clock,
) -> PathBuf {
    let mut last = None;
    for (turn, player) in turns {
        let now = clock.tick();
        ok(&player.run(&now, &["move", id, turn]));
        let mail = mail_of(player, &now, id);
        let taken =
            ok(&other(homes, player).run(&clock.tick(), &["receive", mail.to_str().unwrap()]));
        assert!(!taken.contains("no new moves"), "{turn}: {taken}");
        last = Some(mail);
    }
    last.expect("a turn")
}

/// The opening of Chess with wickets up to White's scoring attempt ([`TO_THE_ATTEMPT`]),
/// each turn with its mover, for [`by_mail`].
fn to_the_attempt(homes: &Homes) -> Vec<(&'static str, &Player)> {
    TO_THE_ATTEMPT
        .iter()
        .enumerate()
        .map(|(ply, token)| (*token, homes.mover_and_other(ply).0))
        .collect()
}

/// `receive` of a typed reply, with what it printed.
fn receive_typed(
    player: &Player,
    clock: &mut Clock,
    from: &str,
    to: &str,
    first: &str,
    answered: &Path,
) -> (Option<i32>, String) {
    let tag = format!("typed-{}", clock.0);
    let reply = hand_reply_to(from, to, first, &tag, Some(answered));
    let output = receive(player, &clock.tick(), &format!("{tag}.eml"), &reply);
    (output.status.code(), text(&output.stdout))
}

#[test]
fn a_typed_sowing_that_names_the_touchstone_square_is_taken_in_and_a_typo_refused() {
    // African Chess: Black's touchstone and two stones on d8, sown south-east, may end
    // the touchstone on e7, f6 or g5, so the token names where (`d8SE=f6`, the shape of
    // `d2NE=e2`).
    let homes = Homes::new("typed-african", "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &[
            "--variant",
            "African Chess",
            "--fen",
            "3(tpp)4/8/8/3(PP)4/3P4/8/8/7T w 1",
        ],
    );
    let alice = &homes.alice;
    let mut clock = Clock(0);
    ok(&alice.run(&clock.tick(), &["move", &id, "Th1-g1"]));
    let first = mail_of(alice, &clock.tick(), &id);
    let bob = "Bob <bob@example.org>";
    let to = "alice@example.org";
    // A typo: e6 is not on the diagonal.
    let (code, said) = receive_typed(alice, &mut clock, bob, to, "1... d8SE=e6", &first);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("\"1... d8SE=e6\", is refused"), "{said}");
    assert!(said.contains("legal turns (17):"), "{said}");
    for legal in ["d8SE=e7", "d8SE=f6", "d8SE=g5"] {
        assert!(said.contains(legal), "{legal}: {said}");
    }
    // The short form alone fits three turns: refused as ambiguous.
    let (code, said) = receive_typed(alice, &mut clock, bob, to, "d8SE", &first);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("\"d8SE\", is refused"), "{said}");
    // Where the touchstone goes, named: taken in.
    let (code, said) = receive_typed(alice, &mut clock, bob, to, "1... d8SE=f6", &first);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("bob@example.org played 1... d8SE=f6 (typed by hand)"),
        "{said}"
    );
}

#[test]
fn a_typed_throw_into_the_wicket_is_taken_in_and_a_typo_refused() {
    // Chess with wickets: an opening (1. e4 e5 2. Ke2:f3 Ke7 3. Nxf3 Kd6) played by pbem mail,
    // then White (Alice) answers Bob's mail by hand with the throw `Nxe5:w9`.
    let homes = Homes::new("typed-wickets", "");
    let id = homes.start("2026-11-01T09:00:00Z", &["--variant", "wickets"]);
    let bob = &homes.bob;
    let mut clock = Clock(0);
    let last = by_mail(&homes, &id, &to_the_attempt(&homes), &mut clock);
    let from = "Alice <alice@example.org>";
    let (code, said) = receive_typed(
        bob,
        &mut clock,
        from,
        "bob@example.org",
        "4. Nxe6:w9",
        &last,
    );
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("\"4. Nxe6:w9\", is refused"), "{said}");
    assert!(said.contains(" Nxe5:w9"), "{said}");
    let (code, said) = receive_typed(
        bob,
        &mut clock,
        from,
        "bob@example.org",
        "4. Nxe5:w9",
        &last,
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("alice@example.org played 4. Nxe5:w9"),
        "{said}"
    );
    assert!(said.contains("(typed by hand)"), "{said}");
}

/// An opening (1. e4 e5 2. Ke2:f3 Ke7 3. Nxf3 Kd6) by pbem mail, then White's attempt on w9
/// with its lead card `lead`: the last mail written, Alice's, awaits Bob's card.
fn cards_attempt(
    homes: &Homes,
    decision: &str,
    lead: &str,
    clock: &mut Clock,
) -> (String, PathBuf) {
    // Typed cards are the honour system: no fair deal (its keys are not typed).
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &[
            "--variant",
            "wickets",
            "--decision",
            decision,
            "--cards-by-hand",
        ],
    );
    let alice = &homes.alice;
    let mut turns = to_the_attempt(homes);
    turns.extend([("Nxe5:w9", alice), (lead, alice)]);
    let last = by_mail(homes, &id, &turns, clock);
    (id, last)
}

#[test]
fn a_card_typed_in_reply_completes_the_attempt_and_a_played_card_is_refused() {
    let homes = Homes::new("typed-cards", "");
    let mut clock = Clock(0);
    let (id, last) = cards_attempt(&homes, "Cards", "S9", &mut clock);
    let alice = &homes.alice;
    let legal = ok(&alice.run(&clock.tick(), &["legal", &id]));
    let cards: Vec<&str> = legal.lines().collect();
    assert!(cards.contains(&"S6") && !cards.contains(&"S9"), "{legal}");
    let bob = "Bob <bob@example.org>";
    // S9 was White's lead: no card Bob may play.
    let (code, said) = receive_typed(alice, &mut clock, bob, "alice@example.org", "S9", &last);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("\"S9\", is refused"), "{said}");
    assert!(
        said.contains(&format!("({}): {}", cards.len(), cards.join(" "))),
        "{said}"
    );
    // S6, as in the example: 9 beats 6 + 2.5, the wicket is taken.
    let (code, said) = receive_typed(alice, &mut clock, bob, "alice@example.org", "S6", &last);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("Nxe5:w9_cS9_cS6"), "{said}");
    assert!(said.contains("(typed by hand)"), "{said}");
    let game = std::fs::read_to_string(game_path(alice, &id)).unwrap();
    assert!(game.contains("Nxe5:w9_cS9_cS6"), "{game}");
}

#[test]
fn in_cards_ii_the_thrower_declines_the_second_pair_with_a_typed_dash() {
    let homes = Homes::new("typed-cards2", "");
    let mut clock = Clock(0);
    let (id, _) = cards_attempt(&homes, "Cards II", "S1", &mut clock);
    let bob = &homes.bob;
    // Bob's ten beats the one: the first pair fails, the thrower (Alice) chooses.
    let last = by_mail(&homes, &id, &[("S10", bob)], &mut clock);
    let legal = ok(&bob.run(&clock.tick(), &["legal", &id]));
    assert!(legal.lines().any(|line| line == "-"), "{legal}");
    let alice = "Alice <alice@example.org>";
    let (code, said) = receive_typed(bob, &mut clock, alice, "bob@example.org", "S1", &last);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("\"S1\", is refused"), "{said}");
    assert!(said.contains(" -"), "{said}");
    let (code, said) = receive_typed(bob, &mut clock, alice, "bob@example.org", "-", &last);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("Nxe5:w9_cS1_cS10_c-"), "{said}");
    assert!(said.contains("(typed by hand)"), "{said}");
}

/// The secret of a game, from its creator's state file.
fn secret_in(player: &Player, id: &str) -> String {
    let state =
        std::fs::read_to_string(player.dir.join("games").join(format!("{id}.state.yaml"))).unwrap();
    state
        .lines()
        .find_map(|line| line.strip_prefix("secret: "))
        .unwrap_or_else(|| panic!("{state}"))
        .trim_matches(['\'', '"', ' '])
        .to_owned()
}

/// Alice's mail that carries Bob's turn `2... d6`, typed in a reply, and her `3. Bc4`,
/// after 1. e4 e5 2. Nf3 by pbem mail; `extra` goes to `pbem new`.
fn after_a_typed_turn(homes: &Homes, extra: &[&str]) -> (String, PathBuf) {
    let id = homes.start("2026-11-01T09:00:00Z", extra);
    let (alice, bob) = (&homes.alice, &homes.bob);
    if extra.contains(&"--secret") {
        let secret = secret_in(alice, &id);
        ok(&bob.run("2026-11-01T09:10:00Z", &["secret", &id, &secret]));
    }
    let mut clock = Clock(0);
    let second = by_mail(
        homes,
        &id,
        &[("e4", alice), ("e5", bob), ("Nf3", alice)],
        &mut clock,
    );
    // Bob answers from his mail client, above the quote.
    let (code, said) = receive_typed(
        alice,
        &mut clock,
        "Bob <bob@example.org>",
        "alice@example.org",
        "2... d6",
        &second,
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("played 2... d6 (typed by hand)"), "{said}");
    let now = clock.tick();
    ok(&alice.run(&now, &["move", &id, "Bc4"]));
    let mail = mail_of(alice, &now, &id);
    (id, mail)
}

#[test]
fn a_turn_typed_in_a_mail_comes_back_to_its_author_as_the_opponent_recorded_it() {
    let homes = Homes::new("typed-back", "");
    let (id, mail) = after_a_typed_turn(&homes, &[]);
    let (alice, bob) = (&homes.alice, &homes.bob);
    let record = std::fs::read_to_string(game_path(alice, &id)).unwrap();
    assert!(record.contains("[%typed bob@example.org]"), "{record}");

    // Bob's pbem takes in his own typed turn, marked typed from his address, then Alice's.
    let taken = ok(&bob.run("2026-11-01T12:00:00Z", &["receive", mail.to_str().unwrap()]));
    assert!(
        taken.contains(&format!(
            "{id}: alice@example.org played 3. Bc4 (after your turn 2... d6, typed in a mail, \
             as your opponent's pbem recorded it)"
        )),
        "{taken}"
    );
    assert!(taken.contains("your turn: 3..."), "{taken}");
    assert_eq!(
        std::fs::read_to_string(game_path(bob, &id)).unwrap(),
        record
    );
    // And the game goes on by pbem mail.
    ok(&bob.run("2026-11-01T12:10:00Z", &["move", &id, "Nf6"]));
    let answer = mail_of(bob, "2026-11-01T12:10:00Z", &id);
    let taken = ok(&alice.run(
        "2026-11-01T12:20:00Z",
        &["receive", answer.to_str().unwrap()],
    ));
    assert!(taken.contains("bob@example.org played 3... Nf6"), "{taken}");
}

#[test]
fn own_turns_not_recorded_as_typed_by_the_reader_are_refused_with_the_mend() {
    let homes = Homes::new("typed-back-forged", "");
    let (id, mail) = after_a_typed_turn(&homes, &[]);
    let bob = &homes.bob;
    let original = std::fs::read_to_string(&mail).unwrap();
    let before = std::fs::read_to_string(game_path(bob, &id)).unwrap();
    let cases = [
        ("unmarked", "", "did not record as typed by you in a mail"),
        (
            "carol",
            "[%typed carol@example.org]",
            "recorded as typed in a mail from carol@example.org, not from you (bob@example.org)",
        ),
    ];
    for (name, marker, says) in cases {
        let forged = original.replace("[%typed bob@example.org]", marker);
        assert_ne!(forged, original);
        let path = bob.dir.join(format!("{name}.eml"));
        std::fs::write(&path, forged).unwrap();
        let output = bob.run("2026-11-01T12:00:00Z", &["receive", path.to_str().unwrap()]);
        assert_refused(&output, says);
        assert_refused(&output, "among them your 2... d6");
        assert_refused(
            &output,
            &format!(
                "enter it with `pbem move {id} d6` (there is no need to send it), then receive this mail again"
            ),
        );
        assert_eq!(
            std::fs::read_to_string(game_path(bob, &id)).unwrap(),
            before
        );
    }
    // The mend: Bob enters his turn, and the refused mail is taken in.
    ok(&bob.run("2026-11-01T12:10:00Z", &["move", &id, "d6"]));
    let taken = ok(&bob.run(
        "2026-11-01T12:20:00Z",
        &["receive", bob.dir.join("unmarked.eml").to_str().unwrap()],
    ));
    assert!(taken.contains("alice@example.org played 3. Bc4"), "{taken}");
}

#[test]
fn with_a_secret_an_own_typed_turn_is_taken_in_only_where_typed_turns_are_allowed() {
    let homes = Homes::new("typed-back-secret", "");
    let (id, mail) = after_a_typed_turn(&homes, &["--secret", "--allow-typed"]);
    let bob = &homes.bob;
    let original = std::fs::read_to_string(&mail).unwrap();
    // A marker taken out breaks the code.
    let forged = bob.dir.join("forged.eml");
    std::fs::write(&forged, original.replace(" [%typed bob@example.org]", "")).unwrap();
    assert_refused(
        &bob.run(
            "2026-11-01T12:00:00Z",
            &["receive", forged.to_str().unwrap()],
        ),
        "authentication",
    );
    // Bob's pbem does not take typed turns in this game yet.
    let refused = bob.run("2026-11-01T12:01:00Z", &["receive", mail.to_str().unwrap()]);
    assert_refused(
        &refused,
        "your turn 2... d6, typed in a mail, as your opponent's pbem recorded it, but the game has a secret",
    );
    assert_refused(&refused, &format!("`pbem allow-typed {id}` allows them"));
    ok(&bob.run("2026-11-01T12:02:00Z", &["allow-typed", &id]));
    let taken = ok(&bob.run("2026-11-01T12:03:00Z", &["receive", mail.to_str().unwrap()]));
    assert!(
        taken.contains("played 3. Bc4 (after your turn 2... d6, typed in a mail"),
        "{taken}"
    );
}

#[test]
fn an_own_typed_turn_is_taken_in_from_a_maildir() {
    let homes = Homes::new("typed-back-maildir", "");
    let (id, mail) = after_a_typed_turn(&homes, &[]);
    let bob = &homes.bob;
    let taken = ok(&deliver(
        bob,
        "2026-11-01T12:00:00Z",
        &std::fs::read(&mail).unwrap(),
        "1762000100.M1P1.host",
    ));
    assert!(
        taken.contains(&format!(
            "{id}: alice@example.org played 3. Bc4 (after your turn 2... d6"
        )),
        "{taken}"
    );
    assert_eq!(
        std::fs::read_to_string(game_path(bob, &id)).unwrap(),
        std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap()
    );
}

#[test]
fn a_refusal_sent_dismisses_the_refused_mail_and_its_reader_sees_why() {
    let homes = Homes::new("typed-refusal-note", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let first = mail_of(alice, "2026-11-01T10:00:00Z", &id);
    ok(&bob.run(
        "2026-11-01T10:10:00Z",
        &["receive", first.to_str().unwrap()],
    ));
    // Bob types a knight move no knight can make.
    let typo = hand_reply(
        "Bob <bob@example.org>",
        "1... Nf5",
        "typo-note",
        Some(&first),
    );
    assert_refused(
        &receive(alice, "2026-11-01T10:30:00Z", "typo.eml", &typo),
        "\"1... Nf5\", is refused",
    );
    // Sending the refusal deals with the refused mail: status no longer lists it.
    let (handle, written) = send_refusal(alice);
    assert!(
        written.contains(&format!(
            "refused mail {handle} dismissed: the refusal answers it"
        )),
        "{written}"
    );
    let status = ok(&alice.run("2026-11-01T10:33:00Z", &["status"]));
    assert!(!status.contains("refused mail"), "{status}");
    // Bob's pbem shows why, though the game is as his pbem has it.
    let refusal = PathBuf::from(written.lines().next().unwrap());
    let before = std::fs::read_to_string(game_path(bob, &id)).unwrap();
    let shown = ok(&bob.run(
        "2026-11-01T11:00:00Z",
        &["receive", refusal.to_str().unwrap()],
    ));
    assert!(
        shown.contains(&format!(
            "{id}: Alice's pbem refused your typed turn 1... Nf5: "
        )),
        "{shown}"
    );
    assert!(shown.contains("legal turns (20): "), "{shown}");
    assert!(shown.contains("; your game is as it was"), "{shown}");
    assert!(!shown.contains("repeated delivery"), "{shown}");
    assert_eq!(
        std::fs::read_to_string(game_path(bob, &id)).unwrap(),
        before
    );
}

#[test]
fn move_and_receive_say_what_the_cards_of_an_attempt_decided() {
    // (decision, White's lead, Black's reply, White's decline, what both sides are told
    // after the reply, and after the decline). White's Defender sees its wicket here, so
    // Black's card has the 2.5 bonus.
    let cases = [
        (
            "Cards",
            "S9",
            "S6",
            None,
            "the cards S9 beats S6 and the Defender's 2.5 bonus: the attempt succeeds",
            "",
        ),
        (
            "Cards",
            "S1",
            "S10",
            None,
            "the cards S10 with the Defender's 2.5 bonus beats S1: the attempt fails",
            "",
        ),
        (
            "Cards II",
            "S1",
            "S10",
            Some("-"),
            "the cards S10 with the Defender's 2.5 bonus beats S1: the first pair fails; \
             the thrower leads a second pair or declines it (_c-)",
            "the cards S10 with the Defender's 2.5 bonus beats S1: the thrower declines a \
             second pair (_c-): the attempt fails",
        ),
    ];
    for (index, (decision, lead, reply, decline, replied, declined)) in
        cases.into_iter().enumerate()
    {
        let homes = Homes::new(&format!("chance-words-{index}"), "");
        let mut clock = Clock(0);
        let (id, _) = cards_attempt(&homes, decision, lead, &mut clock);
        let (alice, bob) = (&homes.alice, &homes.bob);
        // `from` (at `address`) moves `token` and mails it to `to`: both runs say `words`.
        let mut turn = |from: &Player, to: &Player, address: &str, token: &str, words: &str| {
            let now = clock.tick();
            let moved = ok(&from.run(&now, &["move", &id, token]));
            assert!(
                moved.contains(&format!("{id}: {words}")),
                "{decision}: {moved}"
            );
            let mail = mail_of(from, &now, &id);
            let taken = ok(&to.run(&clock.tick(), &["receive", mail.to_str().unwrap()]));
            assert!(
                taken.contains(&format!("{id}: {address} updated the game; {words}")),
                "{decision}: {taken}"
            );
        };
        turn(bob, alice, "bob@example.org", reply, replied);
        let Some(decline) = decline else {
            continue;
        };
        turn(alice, bob, "alice@example.org", decline, declined);
    }
}

/// The text/plain part of a mail file.
fn body_text(mail: &Path) -> String {
    let bytes = std::fs::read(mail).unwrap();
    let message = mail_parser::MessageParser::default()
        .parse(&bytes)
        .expect("a mail");
    message
        .body_text(0)
        .expect("a text part")
        .replace("\r\n", "\n")
}

#[test]
fn a_move_mail_says_how_to_answer_by_hand_and_replies_quoting_it_are_read() {
    let homes = Homes::new("typed-hint", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let mail = mail_of(alice, "2026-11-01T10:00:00Z", &id);
    let body = body_text(&mail);
    assert!(
        body.contains(
            "\nTo answer without pbem, reply with your turn (1...) alone on the first line.\n"
        ),
        "{body}"
    );
    // Bob's pbem reads the mail as before.
    let taken = ok(&bob.run("2026-11-01T10:10:00Z", &["receive", mail.to_str().unwrap()]));
    assert!(
        taken.contains("new game from alice@example.org, last turn 1. e4"),
        "{taken}"
    );
    // A reply above the whole mail quoted (the line and the record too) is taken in.
    let message_id = header(&std::fs::read_to_string(&mail).unwrap(), "Message-ID");
    let quoted: String = body.lines().map(|line| format!("> {line}\r\n")).collect();
    let reply = format!(
        "From: Bob <bob@example.org>\r\nTo: alice@example.org\r\nSubject: Re: [pbem {id}] 1. e4\r\n\
         Message-ID: <quoted-hint@example.org>\r\nIn-Reply-To: {message_id}\r\nReferences: {message_id}\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n1... e5\r\n\r\nOn Sunday, Alice wrote:\r\n{quoted}"
    );
    let taken = ok(&receive(
        alice,
        "2026-11-01T10:30:00Z",
        "quoted.eml",
        reply.as_bytes(),
    ));
    assert!(
        taken.contains("bob@example.org played 1... e5 (typed by hand)"),
        "{taken}"
    );
    // Alice's next mail tells Bob his turn's number.
    ok(&alice.run("2026-11-01T10:40:00Z", &["move", &id, "Nf3"]));
    let body = body_text(&mail_of(alice, "2026-11-01T10:40:00Z", &id));
    assert!(body.contains("reply with your turn (2...) alone"), "{body}");

    // With a secret that refuses typed turns the mail says nothing of it, until allowed.
    let secret = homes.start("2026-11-02T09:00:00Z", &["--secret"]);
    ok(&alice.run("2026-11-02T10:00:00Z", &["move", &secret, "d4"]));
    let body = body_text(&mail_of(alice, "2026-11-02T10:00:00Z", &secret));
    assert!(!body.contains("To answer without pbem"), "{body}");
    ok(&alice.run("2026-11-02T10:01:00Z", &["allow-typed", &secret]));
    let body = body_text(&mail_of(alice, "2026-11-02T10:02:00Z", &secret));
    assert!(body.contains("reply with your turn (1...) alone"), "{body}");
}
