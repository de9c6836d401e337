//! Two players' homes play whole games by real mail: `pbem new`, `move`, `send` through a
//! real SMTP server on loopback (STARTTLS and AUTH, the test server of `smtp`), and
//! `receive` from Maildirs (each mail with its picture of the position); then the fault
//! cases, the outbox and the trust checks.

use std::path::PathBuf;

use mail_parser::MimeHeaders;

use crate::smtp::{self, Options, PASSWORD_VARIABLE, SmtpServer};
use crate::support::homes::{
    Homes, Player, assert_reshuffled, count, game_path, game_words, maildir, ok,
    start_before_the_reshuffle, text,
};
use crate::support::homes::{assert_error, assert_proven_fair_on_both_sides, assert_refused};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::Smtp];
        two_players_play_a_whole_game_by_mail,
        a_repeated_an_older_and_a_forged_mail_change_nothing,
        with_a_secret_only_authenticated_mail_is_taken_in,
        a_failed_send_waits_in_the_outbox_and_a_retry_delivers_it_once,
        a_cards_game_is_played_by_mail_through_an_attempt_a_tie_and_the_reshuffle,
        a_dice_two_game_by_real_mail_is_proven_fair_on_both_sides,
        a_cards_two_game_by_real_mail_is_proven_fair_on_both_sides,
    ]
}

/// Starts a test SMTP server that fails as `options` say, points the player's config at
/// it and runs `pbem send --retry`, which must fail (exit 2); returns the server and the
/// output.
fn retry_through(
    player: &Player,
    name: &str,
    options: Options,
    now: &str,
) -> (SmtpServer, std::process::Output) {
    let server = smtp::start(name, options);
    player.set_sections(&server.config_section());
    let failed = pbem(player, &server, now, &["send", "--retry"]);
    assert_eq!(failed.status.code(), Some(2), "{}", text(&failed.stderr));
    (server, failed)
}

/// `pbem move ID TOKEN` by `player` at `now`, which must succeed; returns what it said.
fn play(player: &Player, server: &SmtpServer, now: &str, id: &str, token: &str) -> String {
    ok(&pbem(player, server, now, &["move", id, token]))
}

fn pbem(player: &Player, server: &SmtpServer, now: &str, args: &[&str]) -> std::process::Output {
    player.run_with(now, args, &[(PASSWORD_VARIABLE, server.password)])
}

/// Moves every mail the server delivered since the last call into the recipient's own
/// Maildir (by the `To` address), as a mail host would.
fn deliver(server: &SmtpServer, homes: &Homes) -> usize {
    let new = server.maildir.join("new");
    let mut moved = 0;
    let mut names: Vec<PathBuf> = std::fs::read_dir(&new)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let message = std::fs::read_to_string(&path).unwrap();
        let to_line = message
            .lines()
            .find(|line| line.to_ascii_lowercase().starts_with("to:"))
            .unwrap_or_default()
            .to_ascii_lowercase();
        let player = if to_line.contains("bob@example.org") {
            &homes.bob
        } else {
            &homes.alice
        };
        let maildir = maildir(player);
        std::fs::rename(&path, maildir.join("new").join(path.file_name().unwrap())).unwrap();
        moved += 1;
    }
    moved
}

fn receive(player: &Player, server: &SmtpServer, now: &str) -> String {
    let dir = maildir(player);
    ok(&pbem(
        player,
        server,
        now,
        &["receive", "--maildir", dir.to_str().unwrap()],
    ))
}

/// The Message-IDs of the mails the server holds, not yet delivered.
fn waiting_ids(server: &SmtpServer) -> Vec<String> {
    std::fs::read_dir(server.maildir.join("new"))
        .unwrap()
        .map(|entry| {
            let message = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            message
                .lines()
                .find(|line| line.to_ascii_lowercase().starts_with("message-id:"))
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// The mails the server holds, not yet delivered, as the server wrote them.
fn waiting_mails(server: &SmtpServer) -> Vec<Vec<u8>> {
    std::fs::read_dir(server.maildir.join("new"))
        .unwrap()
        .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
        .collect()
}

/// Each mail, as it came through the server, is the record's text with an HTML
/// alternative whose picture is an inline PNG named by the Content-ID the HTML refers to.
fn assert_carries_the_picture(mails: &[Vec<u8>]) {
    assert!(!mails.is_empty(), "no mail waits at the server");
    for mail in mails {
        let message = mail_parser::MessageParser::default()
            .parse(mail)
            .expect("a mail");
        let types = crate::support::mail::part_types(&message);
        assert_eq!(types, crate::support::mail::WITH_PICTURE);
        let (html, image) = (&message.parts[3], &message.parts[4]);
        let cid = image.content_id().expect("the picture has a Content-ID");
        let html = html.text_contents().expect("the html");
        assert!(html.contains(&format!("src=\"cid:{cid}\"")), "{html}");
        assert!(
            image.contents().starts_with(b"\x89PNG\r\n\x1a\n"),
            "the picture is a PNG"
        );
    }
}

/// Chess with wickets in the Cards modes: a scoring attempt whose cards come one mail at a
/// time (the thrower's lead, the reply, a tie, the thrower's next card, the deciding
/// reply), with the discards reshuffled on the way; every mail has its own Message-ID.
fn a_cards_game_is_played_by_mail_through_an_attempt_a_tie_and_the_reshuffle() {
    for mode in ["cards", "cards2"] {
        let server = smtp::start(&format!("wickets_{mode}_by_mail"), Options::default());
        let homes = Homes::new(&format!("wickets-{mode}-mail"), &server.config_section());
        let id = start_before_the_reshuffle(&homes, mode);
        let mut ids = Vec::new();
        let mut mail = |from: &Player, to: &Player, now: &str| {
            ok(&pbem(from, &server, now, &["send", &id]));
            ids.extend(waiting_ids(&server));
            assert_eq!(deliver(&server, &homes), 1);
            receive(to, &server, now)
        };
        mail(&homes.alice, &homes.bob, "2026-11-01T09:30:00Z");
        // White throws into w9 and leads the five of hearts.
        play(
            &homes.alice,
            &server,
            "2026-11-02T10:00:00Z",
            &id,
            "Ke2:w9_cH5",
        );
        let taken = mail(&homes.alice, &homes.bob, "2026-11-02T11:00:00Z");
        assert!(taken.contains("Ke2:w9_cH5"), "{taken}");
        // Black answers with the five of spades: a tie, and the discards are reshuffled.
        play(&homes.bob, &server, "2026-11-03T10:00:00Z", &id, "S5");
        let taken = mail(&homes.bob, &homes.alice, "2026-11-03T11:00:00Z");
        assert!(taken.contains("updated the game"), "{taken}");
        // White's next card, Black's reply decides: the wicket is taken.
        play(&homes.alice, &server, "2026-11-04T10:00:00Z", &id, "H9");
        mail(&homes.alice, &homes.bob, "2026-11-04T11:00:00Z");
        play(&homes.bob, &server, "2026-11-05T10:00:00Z", &id, "S2");
        play(&homes.bob, &server, "2026-11-05T10:00:00Z", &id, "Dh7:Kg8");
        let taken = mail(&homes.bob, &homes.alice, "2026-11-05T11:00:00Z");
        assert!(taken.contains("Dh7:Kg8"), "{taken}");
        let file = |player: &Player| std::fs::read_to_string(game_path(player, &id)).unwrap();
        assert_eq!(file(&homes.alice), file(&homes.bob));
        assert!(
            file(&homes.alice).contains("1. Ke2:w9_cH5_cS5_cH9_cS2 {"),
            "{}",
            file(&homes.alice)
        );
        assert_reshuffled(
            &homes.alice,
            "2026-11-06T00:00:00Z",
            &game_path(&homes.alice, &id),
            mode,
        );
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
    }
}

fn two_players_play_a_whole_game_by_mail() {
    let server = smtp::start("two_players_play_a_whole_game_by_mail", Options::default());
    let homes = Homes::new("by-mail", &server.config_section());
    let check = ok(&pbem(
        &homes.alice,
        &server,
        "2026-11-01T09:00:00Z",
        &["config", "check"],
    ));
    assert!(check.contains("smtp: connected and logged in"), "{check}");

    let id = homes.start("2026-11-01T09:00:00Z", &["--time-control", "10/30d"]);
    // The fool's mate, one mail per turn, a day apart.
    let turns = ["f3", "e5", "g4", "Qh4"];
    for (index, turn) in turns.iter().enumerate() {
        let (mover, other) = homes.mover_and_other(index);
        let day = 2 + 2 * index;
        let moved = format!("2026-11-{day:02}T10:00:00Z");
        let read = format!("2026-11-{:02}T08:00:00Z", day + 1);
        ok(&pbem(mover, &server, &moved, &["move", &id, turn]));
        let sent = ok(&pbem(mover, &server, &moved, &["send", &id]));
        assert!(
            sent.contains(&format!("sent {id} (ply {})", index + 1)),
            "{sent}"
        );
        assert_carries_the_picture(&waiting_mails(&server));
        assert_eq!(deliver(&server, &homes), 1);
        let received = receive(other, &server, &read);
        assert!(received.contains(&format!("{id}: ")), "{received}");
        if index < 3 {
            assert!(received.contains("your turn"), "{received}");
        }
    }
    // Both copies are the same game, over by mate, and valid.
    let file = |player: &Player| std::fs::read_to_string(game_path(player, &id)).unwrap();
    assert_eq!(file(&homes.alice), file(&homes.bob));
    let words = game_words(&homes.alice, &id);
    assert!(
        words.contains("2. g4 {[%received 2026-11-05T08:00:00Z] [%sent 2026-11-06T10:00:00Z]}"),
        "{words}"
    );
    assert!(
        file(&homes.alice).contains("[Result \"0-1\"]"),
        "{}",
        file(&homes.alice)
    );
    let path = game_path(&homes.alice, &id);
    let validated = ok(&homes.alice.run(
        "2026-11-10T00:00:00Z",
        &["validate", path.to_str().unwrap()],
    ));
    assert!(
        validated.contains("valid, 4 plies, 0-1 (Black wins by checkmate)"),
        "{validated}"
    );
    let status = ok(&homes
        .alice
        .run("2026-11-10T00:00:00Z", &["status", "--all"]));
    assert!(status.contains("finished 0-1"), "{status}");
    // Every mail was taken in: nothing left in new/, nothing in the outboxes.
    assert_eq!(count(&maildir(&homes.alice).join("new")), 0);
    assert_eq!(count(&homes.alice.dir.join("outbox")), 0);
    assert_eq!(count(&homes.bob.dir.join("outbox")), 0);
}

fn a_repeated_an_older_and_a_forged_mail_change_nothing() {
    let server = smtp::start("a_repeated_an_older_and_a_forged_mail", Options::default());
    let homes = Homes::new("repeats", &server.config_section());
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    play(&homes.alice, &server, "2026-11-01T10:00:00Z", &id, "e4");
    ok(&pbem(
        &homes.alice,
        &server,
        "2026-11-01T10:00:00Z",
        &["send", &id],
    ));
    let first = server.delivered().pop().unwrap();
    deliver(&server, &homes);
    receive(&homes.bob, &server, "2026-11-01T11:00:00Z");

    // The same mail again: a no-op.
    let again = homes.bob.dir.join("again.eml");
    std::fs::write(&again, &first).unwrap();
    let repeated = ok(&pbem(
        &homes.bob,
        &server,
        "2026-11-01T12:00:00Z",
        &["receive", again.to_str().unwrap()],
    ));
    assert!(repeated.contains("already known"), "{repeated}");

    // Bob answers; the old mail of Alice's first turn is now older than his copy.
    play(&homes.bob, &server, "2026-11-02T10:00:00Z", &id, "c5");
    let older = ok(&pbem(
        &homes.bob,
        &server,
        "2026-11-02T11:00:00Z",
        &["receive", again.to_str().unwrap()],
    ));
    assert!(older.contains("an older mail"), "{older}");

    // A mail claiming to be Bob's, with a different history, is a conflict.
    let forged = String::from_utf8(first.clone())
        .unwrap()
        .replace("1. e4", "1. d4");
    let forged_path = homes.alice.dir.join("forged.eml");
    std::fs::write(&forged_path, forged).unwrap();
    let before = std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap();
    let refused = pbem(
        &homes.bob,
        &server,
        "2026-11-02T12:00:00Z",
        &["receive", forged_path.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stdout));
    assert!(
        text(&refused.stdout).contains("refused"),
        "{}",
        text(&refused.stdout)
    );
    let after = std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap();
    assert_eq!(before, after);
}

fn with_a_secret_only_authenticated_mail_is_taken_in() {
    let server = smtp::start("with_a_secret", Options::default());
    let homes = Homes::new("secret", &server.config_section());
    let output = homes.run_new("2026-11-01T09:00:00Z", &["--secret"]);
    let path = PathBuf::from(ok(&output).trim());
    let id = path.file_stem().unwrap().to_str().unwrap().to_owned();
    let notice = text(&output.stderr);
    let secret = notice
        .split_whitespace()
        .skip_while(|word| *word != "is")
        .nth(1)
        .unwrap()
        .to_owned();
    assert_eq!(secret.len(), 32, "{notice}");
    assert!(!std::fs::read_to_string(&path).unwrap().contains(&secret));

    play(&homes.alice, &server, "2026-11-01T10:00:00Z", &id, "d4");
    ok(&pbem(
        &homes.alice,
        &server,
        "2026-11-01T10:00:00Z",
        &["send", &id],
    ));
    let genuine = server.delivered().pop().unwrap();
    deliver(&server, &homes);

    // Without the secret Bob cannot take it in; the mail waits in new/.
    let dir = maildir(&homes.bob);
    let waiting = pbem(
        &homes.bob,
        &server,
        "2026-11-01T11:00:00Z",
        &["receive", "--maildir", dir.to_str().unwrap()],
    );
    assert_refused(&waiting, &format!("pbem secret {id}"));
    assert_eq!(count(&dir.join("new")), 1);

    // A forged copy (same code, another move) is refused once he has the secret.
    ok(&homes
        .bob
        .run("2026-11-01T11:00:00Z", &["secret", &id, &secret]));
    let forged = String::from_utf8(genuine)
        .unwrap()
        .replace("1. d4", "1. e4");
    let forged_path = homes.bob.dir.join("forged.eml");
    std::fs::write(&forged_path, forged).unwrap();
    let refused = pbem(
        &homes.bob,
        &server,
        "2026-11-01T11:30:00Z",
        &["receive", forged_path.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(!game_path(&homes.bob, &id).exists());

    // The genuine one is taken in.
    let taken = receive(&homes.bob, &server, "2026-11-01T12:00:00Z");
    assert!(taken.contains("1. d4"), "{taken}");
    assert_eq!(count(&dir.join("new")), 0);
}

fn a_failed_send_waits_in_the_outbox_and_a_retry_delivers_it_once() {
    let dropping = smtp::start(
        "a_failed_send_dropping",
        Options {
            drop_mid_message: true,
            ..Options::default()
        },
    );
    let password = dropping.password;
    let homes = Homes::new("outbox", &dropping.config_section());
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&pbem(
        &homes.alice,
        &dropping,
        "2026-11-01T10:00:00Z",
        &["move", &id, "e4"],
    ));
    let failed = pbem(
        &homes.alice,
        &dropping,
        "2026-11-01T10:00:00Z",
        &["send", &id],
    );
    assert_eq!(failed.status.code(), Some(2));
    let said = text(&failed.stderr);
    assert!(
        said.contains("not sent") && said.contains("pbem send --retry"),
        "{said}"
    );
    assert!(!said.contains(dropping.password), "{said}");
    assert_eq!(count(&homes.alice.dir.join("outbox")), 2);
    drop(dropping);

    // A refused login: still waiting, still no password shown.
    let (refused_login, failed) = retry_through(
        &homes.alice,
        "a_failed_send_login",
        Options {
            refuse_login: true,
            ..Options::default()
        },
        "2026-11-01T10:05:00Z",
    );
    assert!(!text(&failed.stderr).contains(refused_login.password));
    assert!(
        text(&failed.stderr).contains("1 mail could not be sent and waits in the outbox"),
        "{}",
        text(&failed.stderr)
    );
    assert_eq!(count(&homes.alice.dir.join("outbox")), 2);
    let check = pbem(
        &homes.alice,
        &refused_login,
        "2026-11-01T10:05:00Z",
        &["config", "check"],
    );
    assert_error(&check, "smtp check failed");
    drop(refused_login);

    // A server that offers no STARTTLS: the client refuses to go on in plain text.
    let (no_tls, failed) = retry_through(
        &homes.alice,
        "a_failed_send_no_tls",
        Options {
            no_starttls: true,
            ..Options::default()
        },
        "2026-11-01T10:10:00Z",
    );
    assert!(
        text(&failed.stderr)
            .to_ascii_lowercase()
            .contains("starttls"),
        "{}",
        text(&failed.stderr)
    );
    assert_eq!(count(&homes.alice.dir.join("outbox")), 2);
    drop(no_tls);

    // No server at all any more on that port.
    let failed = homes.alice.run_with(
        "2026-11-01T10:15:00Z",
        &["send", "--retry"],
        &[(PASSWORD_VARIABLE, password)],
    );
    assert_error(&failed, "not sent");
    assert_eq!(count(&homes.alice.dir.join("outbox")), 2);

    let working = smtp::start("a_failed_send_working", Options::default());
    homes.alice.set_sections(&working.config_section());
    let sent = ok(&pbem(
        &homes.alice,
        &working,
        "2026-11-01T11:00:00Z",
        &["send", "--retry"],
    ));
    assert!(sent.contains(&format!("sent {id} (ply 1)")), "{sent}");
    assert_eq!(working.delivered().len(), 1);
    let again = ok(&pbem(
        &homes.alice,
        &working,
        "2026-11-01T11:05:00Z",
        &["send", "--retry"],
    ));
    assert!(again.contains("the outbox is empty"), "{again}");
    assert_eq!(working.delivered().len(), 1);

    // The game file never lost the move.
    deliver(&working, &homes);
    let taken = receive(&homes.bob, &working, "2026-11-01T12:00:00Z");
    assert!(taken.contains("1. e4"), "{taken}");
}

/// A game of Chess with wickets between two homes by real mail: each mail sent through
/// the test server, delivered into the other's Maildir and taken in there.
struct WicketsByMail {
    homes: Homes,
    server: SmtpServer,
    id: String,
}

impl WicketsByMail {
    /// Alice starts the game in decision mode `decision`; `name` names the server and
    /// the homes.
    fn start(name: &str, decision: &str) -> WicketsByMail {
        let server = smtp::start(name, Options::default());
        let homes = Homes::new(name, &server.config_section());
        let id = homes.start(
            "2026-11-01T09:00:00Z",
            &["--variant", "wickets", "--decision", decision],
        );
        WicketsByMail { homes, server, id }
    }

    /// `pbem ARGS` by `player` at `now`.
    fn pbem(&self, player: &Player, now: &str, args: &[&str]) -> std::process::Output {
        pbem(player, &self.server, now, args)
    }

    /// `pbem move ID TOKEN` by `player` at `now`, which must succeed.
    fn play(&self, player: &Player, now: &str, token: &str) {
        ok(&self.pbem(player, now, &["move", &self.id, token]));
    }

    /// `from` sends the game and `to` takes the mail in; returns what the receive said.
    fn mail(&self, from: &Player, to: &Player, now: &str) -> String {
        ok(&self.pbem(from, now, &["send", &self.id]));
        assert_eq!(deliver(&self.server, &self.homes), 1);
        receive(to, &self.server, now)
    }

    /// Plays `turns` from the start, each by its mover on day `ply + 1` and mailed;
    /// returns what the last receive said.
    fn play_from_the_start(&self, turns: &[&str]) -> String {
        let mut taken = String::new();
        for (ply, token) in turns.iter().enumerate() {
            let now = format!("2026-11-0{}T10:00:00Z", ply + 1);
            let (from, to) = self.homes.mover_and_other(ply);
            self.play(from, &now, token);
            taken = self.mail(from, to, &now);
        }
        taken
    }

    /// The player's game file.
    fn game(&self, player: &Player) -> PathBuf {
        game_path(player, &self.id)
    }
}

/// Chess with wickets in Dice II by real mail (issue 16): the attempt goes without its
/// roll, the opponent's pbem rolls it from both players' committed values on receipt,
/// the thrower's pbem checks it on the reply, and each side's file validates "chance
/// proven fair".
fn a_dice_two_game_by_real_mail_is_proven_fair_on_both_sides() {
    let game = WicketsByMail::start("wickets-dice-mail", "Dice II");
    let (alice, bob) = (&game.homes.alice, &game.homes.bob);
    let taken =
        game.play_from_the_start(&["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6", "Nxe5:w9_sa2"]);
    assert!(taken.contains("the roll"), "{taken}");
    let record = std::fs::read_to_string(game.game(bob)).unwrap();
    let token = record
        .split_whitespace()
        .find(|word| word.starts_with("Nxe5:w9_r"))
        .unwrap_or_else(|| panic!("{record}"))
        .to_owned();
    let reply = if token.ends_with("_r5") || token.ends_with("_r6") {
        "Dg8:Kxe5"
    } else {
        "Kxe5"
    };
    game.play(bob, "2026-11-08T10:00:00Z", reply);
    let taken = game.mail(bob, alice, "2026-11-08T10:00:00Z");
    assert!(taken.contains(reply), "{taken}");
    assert_proven_fair_on_both_sides(&game.homes, &game.id, "; chance proven fair (");
}

/// Chess with wickets in Cards II by real mail (issue 16): the deal rides in the first
/// three mails, each side plays its attempt's cards from the hand only its own pbem
/// shows, both reveal their seeds, and each side's file validates "chance proven fair".
fn a_cards_two_game_by_real_mail_is_proven_fair_on_both_sides() {
    let game = WicketsByMail::start("wickets-cards-fair-mail", "Cards II");
    let (alice, bob) = (&game.homes.alice, &game.homes.bob);
    game.play_from_the_start(&["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6"]);
    let shown = ok(&game.pbem(alice, "2026-11-07T09:00:00Z", &["show", &game.id]));
    let lead = crate::support::homes::first_card(&shown);
    game.play(alice, "2026-11-07T10:00:00Z", &format!("Nxe5:w9_c{lead}"));
    game.mail(alice, bob, "2026-11-07T10:00:00Z");
    // Each awaited card comes from its player's hand, as `pbem legal` lists it.
    let mut turn = (bob, alice);
    for _ in 0..8 {
        let legal = game.pbem(turn.0, "2026-11-08T10:00:00Z", &["legal", &game.id]);
        if !text(&legal.stderr).contains("from your hand") {
            break;
        }
        let cards = text(&legal.stdout);
        let lines: Vec<&str> = cards.lines().collect();
        let card = if lines.contains(&"-") { "-" } else { lines[0] };
        game.play(turn.0, "2026-11-08T10:00:00Z", card);
        game.mail(turn.0, turn.1, "2026-11-08T10:00:00Z");
        turn = (turn.1, turn.0);
    }
    // The seeds, as for an arbiter.
    ok(&game.pbem(bob, "2026-11-09T10:00:00Z", &["fair", "reveal", &game.id]));
    game.mail(bob, alice, "2026-11-09T10:00:00Z");
    ok(&game.pbem(alice, "2026-11-09T11:00:00Z", &["fair", "reveal", &game.id]));
    game.mail(alice, bob, "2026-11-09T11:00:00Z");
    assert_proven_fair_on_both_sides(&game.homes, &game.id, "; chance proven fair (the deal and ");
}
