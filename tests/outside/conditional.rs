//! Conditional moves through the test SMTP and IMAP servers (issue 35): Alice runs
//! nothing but `pbem sync`, and her conditional replies to three of Bob's turns are
//! played, sent by SMTP and taken in by Bob over IMAP; a turn no line expects drops the
//! lines and tells her; a book answers in two games at once, and a tree read from a PGN
//! with variations comes before it; a Dice branch is chosen by the roll Bob's pbem draws
//! from the fair dice whose commitments and reveals ride in the same mails; no mail holds
//! a line not played.

use std::cell::Cell;

use crate::imap::{self, relay};
use crate::smtp::{self, Options};
use crate::support::homes::{Homes, Player, TO_THE_ATTEMPT, game_path, ok, text};
use crate::support::homes::{assert_proven_fair_on_both_sides, lines_for_each_roll};
use crate::support::homes::{assert_the_roll_s_reply_played, other_rolls, roll_in};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::Imap, Need::Smtp];
        conditional_replies_travel_by_smtp_and_imap_with_nothing_but_sync,
        a_book_in_two_games_and_a_pgn_tree_by_smtp_and_imap,
        a_dice_branch_is_chosen_by_the_roll_by_smtp_and_imap,
    ]
}

/// Alice and Bob with the test SMTP and IMAP servers.
struct Servers {
    homes: Homes,
    smtp: smtp::SmtpServer,
    imap: imap::ImapServer,
    relayed: Cell<usize>,
}

impl Servers {
    fn start(name: &str) -> Servers {
        let imap = imap::start(name);
        let smtp = smtp::start(name, Options::default());
        let homes = Homes::new(&format!("imap-{name}"), "");
        let smtp_section = smtp.config_section();
        for (player, user) in [
            (&homes.alice, "alice@example.org"),
            (&homes.bob, "bob@example.org"),
        ] {
            player.set_sections(&format!("{smtp_section}{}", imap.config(user, false, "")));
        }
        Servers {
            homes,
            smtp,
            imap,
            relayed: Cell::new(0),
        }
    }

    /// pbem run by `player` at `now`, with both servers' passwords; what it printed.
    fn run(&self, player: &Player, now: &str, args: &[&str]) -> String {
        let env = [
            (imap::PASSWORD_VARIABLE, imap::PASSWORD),
            (smtp::PASSWORD_VARIABLE, self.smtp.password),
        ];
        ok(&player.run_with(now, args, &env))
    }

    /// `player` plays `turn` and sends it; the mail reaches the other's IMAP mailbox.
    fn play(&self, player: &Player, now: &str, id: &str, turn: &str) {
        self.run(player, now, &["move", id, turn]);
        self.run(player, now, &["send", id]);
        self.relay();
    }

    /// `player` runs `pbem sync` at `now`; what it sent reaches the other's mailbox.
    fn sync(&self, player: &Player, now: &str) -> String {
        let synced = self.run(player, now, &["sync"]);
        self.relay();
        synced
    }

    /// Plays `turns` from the start of game `id`, each on day `ply + 1` by its mover, who
    /// first takes in the other's last turn with `pbem sync`.
    fn play_from_the_start(&self, id: &str, turns: &[&str]) {
        for (ply, turn) in turns.iter().enumerate() {
            let now = format!("2026-11-{:02}T10:00:00Z", ply + 1);
            let (mover, _) = self.homes.mover_and_other(ply);
            self.sync(mover, &now);
            self.play(mover, &now, id, turn);
        }
    }

    fn relay(&self) {
        let mut relayed = self.relayed.get();
        relay(&self.smtp, &self.imap, &mut relayed);
        self.relayed.set(relayed);
    }

    /// Asserts that no mail the SMTP server carried holds any of `secrets`.
    fn assert_never_mailed(&self, secrets: &[&str]) {
        for mail in self.smtp.delivered() {
            let mail = text(&mail);
            let body = mail
                .split("Content-Type: image/")
                .next()
                .unwrap_or_default();
            for secret in secrets {
                assert!(!body.contains(secret), "{secret}: {body}");
            }
        }
    }
}

fn conditional_replies_travel_by_smtp_and_imap_with_nothing_but_sync() {
    let servers = Servers::start("conditional");
    let (alice, bob) = (&servers.homes.alice, &servers.homes.bob);
    let id = servers.homes.start("2026-11-01T09:00:00Z", &[]);
    servers.play(alice, "2026-11-01T10:00:00Z", &id, "e4");
    servers.run(
        alice,
        "2026-11-01T10:00:00Z",
        &[
            "if",
            &id,
            "1... e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O",
            "1... c5 2. Qh5",
        ],
    );
    for (day, (theirs, mine)) in [("e5", "2. Nf3"), ("Nc6", "3. Bb5"), ("a6", "4. Ba4")]
        .into_iter()
        .enumerate()
    {
        let now = format!("2026-11-0{}T10:00:00Z", day + 2);
        let synced = servers.sync(bob, &now);
        assert!(synced.contains(&format!("changed: {id}")), "{synced}");
        servers.play(bob, &now, &id, theirs);
        let synced = servers.sync(alice, &now);
        assert!(
            synced.contains(&format!("{id}: played your conditional reply {mine}")),
            "{synced}"
        );
        assert!(synced.contains(&format!("sent {id}")), "{synced}");
    }
    // Bob leaves the line: Alice is told and nothing is played.
    let synced = servers.sync(bob, "2026-11-05T10:00:00Z");
    assert!(synced.contains("played 4. Ba4"), "{synced}");
    servers.play(bob, "2026-11-05T10:00:00Z", &id, "b5");
    let synced = servers.sync(alice, "2026-11-05T11:00:00Z");
    assert!(
        synced.contains(&format!(
            "{id}: 1 conditional line no longer matches the game and is dropped (the game went 4... b5 where they expected 4... Nf6)"
        )),
        "{synced}"
    );
    assert!(!synced.contains("played your"), "{synced}");
    assert_eq!(servers.relayed.get(), 8);
    let alices = std::fs::read_to_string(game_path(alice, &id)).unwrap();
    let bobs = std::fs::read_to_string(game_path(bob, &id)).unwrap();
    assert_eq!(alices, bobs);
    servers.assert_never_mailed(&["conditional", "Qh5", "Nf6", "O-O"]);
}

fn a_book_in_two_games_and_a_pgn_tree_by_smtp_and_imap() {
    let servers = Servers::start("conditional-book");
    let (alice, bob) = (&servers.homes.alice, &servers.homes.bob);
    let book = servers.homes.root.join("white.pgn");
    std::fs::write(&book, "1. e4 e5 (1... c5 2. Nc3) 2. Nf3 Nc6 3. Bb5 *\n").unwrap();
    servers.run(
        alice,
        "2026-11-01T09:00:00Z",
        &["book", "add", book.to_str().unwrap()],
    );
    let first = servers.homes.start("2026-11-01T09:00:00Z", &[]);
    let second = servers.homes.start("2026-11-01T09:00:01Z", &[]);
    for id in [&first, &second] {
        servers.play(alice, "2026-11-01T10:00:00Z", id, "e4");
    }
    servers.sync(bob, "2026-11-02T10:00:00Z");
    servers.play(bob, "2026-11-02T10:00:00Z", &first, "e5");
    servers.play(bob, "2026-11-02T10:00:00Z", &second, "c5");
    let synced = servers.sync(alice, "2026-11-02T11:00:00Z");
    for (id, reply) in [(&first, "2. Nf3"), (&second, "2. Nc3")] {
        assert!(
            synced.contains(&format!("{id}: played your book white's reply {reply}")),
            "{synced}"
        );
    }
    // In the first game Alice's own tree, from a PGN with variations, comes before the
    // book: after 2... Nc6 it plays 3. Bc4, not the book's 3. Bb5.
    let tree = servers.homes.root.join("tree.pgn");
    std::fs::write(&tree, "2... Nc6 (2... d6 3. d4) 3. Bc4 *\n").unwrap();
    let added = servers.run(
        alice,
        "2026-11-02T11:00:00Z",
        &["if", &first, "--file", tree.to_str().unwrap()],
    );
    assert!(added.contains("2 conditional lines added"), "{added}");
    servers.sync(bob, "2026-11-03T10:00:00Z");
    servers.play(bob, "2026-11-03T10:00:00Z", &first, "Nc6");
    let synced = servers.sync(alice, "2026-11-03T11:00:00Z");
    assert!(
        synced.contains(&format!("{first}: played your conditional reply 3. Bc4")),
        "{synced}"
    );
    let synced = servers.sync(bob, "2026-11-04T10:00:00Z");
    assert!(synced.contains("played 3. Bc4"), "{synced}");
    for id in [&first, &second] {
        let alices = std::fs::read_to_string(game_path(alice, id)).unwrap();
        let bobs = std::fs::read_to_string(game_path(bob, id)).unwrap();
        assert_eq!(alices, bobs);
    }
    servers.assert_never_mailed(&["conditional", "Bb5", "white's"]);
}

/// A Dice branch on the roll (issue 35): a Chess with wickets game in the Dice mode,
/// played by mail from its start, so that the fair dice's commitments and reveals travel
/// by SMTP and IMAP as in any game. Bob has a line for each roll of White's attempt;
/// running nothing but `pbem sync`, his pbem draws the roll as it takes the attempt in
/// and plays and mails that roll's branch alone.
fn a_dice_branch_is_chosen_by_the_roll_by_smtp_and_imap() {
    let servers = Servers::start("conditional-dice");
    let (alice, bob) = (&servers.homes.alice, &servers.homes.bob);
    let id = servers.homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", "Dice"],
    );
    servers.play_from_the_start(&id, &TO_THE_ATTEMPT);
    let lines = lines_for_each_roll();
    let args: Vec<&str> = ["if", id.as_str()]
        .into_iter()
        .chain(lines.iter().map(String::as_str))
        .collect();
    let added = servers.run(bob, "2026-11-07T09:00:00Z", &args);
    assert!(added.contains("6 conditional lines added"), "{added}");

    // White's attempt goes without its roll.
    servers.sync(alice, "2026-11-07T10:00:00Z");
    servers.play(alice, "2026-11-07T10:00:00Z", &id, "Nxe5:w9");
    let synced = servers.sync(bob, "2026-11-07T11:00:00Z");
    let (roll, reply) = assert_the_roll_s_reply_played(bob, &id, &synced);
    assert!(synced.contains(&format!("sent {id}")), "{synced}");
    let synced = servers.sync(alice, "2026-11-07T12:00:00Z");
    assert!(synced.contains(&format!("played 4... {reply}")), "{synced}");
    // The roll is the fair one: both pbem computed it from both committed values, and
    // each copy proves it.
    assert_eq!(roll_in(alice, &id), roll, "the roll in Alice's copy");
    assert_proven_fair_on_both_sides(&servers.homes, &id, "; chance proven fair (1 roll");
    assert_eq!(servers.relayed.get(), 8);
    // The branches of the other rolls never left Bob's home.
    let others = other_rolls(roll);
    let others: Vec<&str> = others.iter().map(String::as_str).collect();
    servers.assert_never_mailed(&[&others[..], &["conditional"]].concat());
}
