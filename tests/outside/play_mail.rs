//! Two players by mail from two play pages (issue 34): Alice and Bob each run
//! `pbem play` in their own home, whose config sends through the test SMTP server and
//! takes mail in from the test IMAP server (Dovecot), and each drives their page in a
//! browser session of its own. After `pbem new` no command is run: every turn is clicked,
//! sent (Alice with `#send`; Bob's config says `play: send: auto`, so his page mails a
//! turn as soon as it is played), and taken in by the other page's `#sync` (the mail
//! system between them is [`crate::imap::relay`]). At the end both game files are the
//! same and validate.

use serde_json::json;

use crate::imap::{self, ImapServer};
use crate::play_page::{NOW, PlayServer, assert_valid, tokens};
use crate::smtp::{self, Options, SmtpServer};
use crate::support::homes::{Homes, Player, game_path};
use crate::webdriver::{Driver, Session};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::Chromium, Need::Smtp, Need::Imap];
        a_fools_mate_is_played_from_two_pages_by_mail,
        a_wickets_dice_game_is_played_from_two_pages_by_mail_to_a_resignation]
}

/// The two players' servers and browser sessions, the mail servers between them, and the
/// game.
struct Table<'a> {
    homes: Homes,
    smtp: SmtpServer,
    imap: ImapServer,
    relayed: usize,
    id: String,
    alice: (PlayServer, Session<'a>),
    bob: (PlayServer, Session<'a>),
}

impl<'a> Table<'a> {
    /// Alice starts a game against Bob with `pbem new EXTRA`, then each starts `pbem
    /// play` (Alice on the game, Bob on his list of games, which does not hold it yet)
    /// and opens it in a browser session of `driver`.
    fn set(name: &str, extra: &[&str], driver: &'a Driver) -> Table<'a> {
        let imap = imap::start(name);
        let smtp = smtp::start(name, Options::default());
        let homes = imap::homes_by_mail(name, &smtp, &imap, "");
        let config = std::fs::read_to_string(homes.bob.config()).expect("Bob's config");
        std::fs::write(homes.bob.config(), format!("{config}play:\n  send: auto\n"))
            .expect("Bob's config");
        let id = homes.start(NOW, extra);
        let env = [
            (imap::PASSWORD_VARIABLE, imap::PASSWORD),
            (smtp::PASSWORD_VARIABLE, smtp.password),
        ];
        let alice = PlayServer::start(&homes.alice, &[&id], &env);
        let alice_session = Session::open(driver);
        alice.open(&alice_session, &id);
        let bob = PlayServer::start(&homes.bob, &[], &env);
        let bob_session = Session::open(driver);
        bob_session.go(&bob.opening);
        Table {
            homes,
            smtp,
            imap,
            relayed: 0,
            id,
            alice: (alice, alice_session),
            bob: (bob, bob_session),
        }
    }

    /// The mover's page and the other's at ply `ply` (White, Alice, at even plies).
    fn sides(&self, ply: usize) -> (&(PlayServer, Session<'a>), &(PlayServer, Session<'a>)) {
        if ply.is_multiple_of(2) {
            (&self.alice, &self.bob)
        } else {
            (&self.bob, &self.alice)
        }
    }

    /// The mover at ply `ply` clicks `token`, which is sent; the mail reaches the other,
    /// whose page takes it in with `#sync` and shows it.
    fn play(&mut self, ply: usize, token: &str) {
        let ((server, session), _) = self.sides(ply);
        let said = server.click_turn(session, token);
        self.send_and_take_in(ply, &said, Some(token));
    }

    /// The mover at ply `ply`, whose page said `said`, sends the game: Alice with
    /// `#send`, Bob's page sent it already (`play: send: auto`). The other's page takes
    /// the mail in and must show `shows` at ply `ply + 1` of its move list, if given.
    fn send_and_take_in(&mut self, ply: usize, said: &str, shows: Option<&str>) {
        let ((server, session), _) = self.sides(ply);
        let sent = if ply.is_multiple_of(2) {
            server.press(session, "#send")
        } else {
            said.to_owned()
        };
        assert!(sent.contains(&format!("sent {}", self.id)), "{sent}");
        imap::relay(&self.smtp, &self.imap, &mut self.relayed);
        let (_, (server, session)) = self.sides(ply);
        let on_a_game = session
            .script("return location.pathname;")
            .as_str()
            .is_some_and(|path| path.starts_with("/game/"));
        // Bob's first mail: his list of games (`/`) must take it in too, since the game
        // is not his yet and no command is run after `pbem play`.
        assert!(
            on_a_game || session.find("#sync").is_some(),
            "{}'s list of games (/) has no #sync to take in the first mail of {}: {}",
            if ply.is_multiple_of(2) {
                "Bob"
            } else {
                "Alice"
            },
            self.id,
            session.script("return document.body.innerText;")
        );
        let synced = server.press(session, "#sync");
        assert!(
            synced.contains(&format!("changed: {}", self.id)),
            "{synced}"
        );
        if !on_a_game {
            // Bob's list of games, which the first mail brought this one into.
            let link = format!("a[data-game=\"{}\"]", self.id);
            let listed = session.until(
                20,
                "return !!document.querySelector(arguments[0]);",
                &[json!(link)],
            );
            assert!(
                listed.is_some(),
                "{}: not in the list of games after #sync: {}",
                self.id,
                session.script("return document.body.innerText;")
            );
            session.click(&link);
            server.wait_ready(session);
        }
        let Some(shows) = shows else {
            return;
        };
        let shown = session.until(
            30,
            "var p = document.querySelector('#moves [data-ply=\"' + arguments[0] + '\"]');\
             return !!p && p.textContent.indexOf(arguments[1]) >= 0;",
            &[json!(ply + 1), json!(shows)],
        );
        assert!(
            shown.is_some(),
            "ply {}: {shows} does not show on the other page: {}",
            ply + 1,
            session.script("return document.querySelector('#moves').textContent;")
        );
    }

    /// Both game files, which must be the same and validate.
    fn assert_same_and_valid(&self) -> String {
        let alices = game_path(&self.homes.alice, &self.id);
        let bobs = game_path(&self.homes.bob, &self.id);
        let game = std::fs::read_to_string(&alices).expect("Alice's file");
        assert_eq!(
            game,
            std::fs::read_to_string(&bobs).expect("Bob's file"),
            "the two game files differ"
        );
        assert_valid(&self.homes.alice, &alices);
        assert_valid(&self.homes.bob, &bobs);
        for (_, session) in [&self.alice, &self.bob] {
            let errors = session.console_errors();
            assert!(errors.is_empty(), "console errors {errors:?}");
        }
        game
    }

    fn player(&self, ply: usize) -> &Player {
        if ply.is_multiple_of(2) {
            &self.homes.alice
        } else {
            &self.homes.bob
        }
    }
}

fn a_fools_mate_is_played_from_two_pages_by_mail() {
    let driver = Driver::start();
    let mut table = Table::set("play-mail-fools", &[], &driver);
    for (ply, token) in ["f3", "e5", "g4", "Qh4#"].into_iter().enumerate() {
        table.play(ply, token);
    }
    let game = table.assert_same_and_valid();
    assert!(game.contains("[Result \"0-1\"]"), "{game}");
    let file = game_path(table.player(0), &table.id);
    assert_eq!(tokens(&file), ["f3", "e5", "g4", "Qh4#"]);
}

fn a_wickets_dice_game_is_played_from_two_pages_by_mail_to_a_resignation() {
    let driver = Driver::start();
    let mut table = Table::set(
        "play-mail-dice",
        &["--variant", "wickets", "--decision", "Dice"],
        &driver,
    );
    // To White's scoring attempt, which goes without its roll: Bob's pbem rolls it when
    // it takes the mail in.
    let turns = ["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6", "Nxe5:w9"];
    for (ply, token) in turns.into_iter().enumerate() {
        table.play(ply, token);
    }
    // Bob answers with the first turn his page offers after the roll.
    let ((server, session), _) = table.sides(7);
    let view = session.script(
        "return fetch('/api/game/' + location.pathname.split('/').pop())\
           .then(function (r) { return r.json(); });",
    );
    let reply = view["turns"][0]["token"]
        .as_str()
        .unwrap_or_else(|| panic!("Bob has no turn after the attempt: {view}"))
        .to_owned();
    let said = server.click_turn(session, &reply);
    table.send_and_take_in(7, &said, Some(&reply));
    // Alice resigns from her page.
    let ((server, session), _) = table.sides(8);
    let resigned = server.press(session, "#resign");
    assert!(resigned.contains("resign"), "#resign: {resigned}");
    table.send_and_take_in(8, &resigned, None);
    let game = table.assert_same_and_valid();
    assert!(game.contains("[%resign]"), "{game}");
    assert!(game.contains("[Result \"0-1\"]"), "{game}");
    let roll = tokens(&game_path(&table.homes.bob, &table.id))[6].clone();
    assert!(roll.starts_with("Nxe5:w9_r"), "the attempt's roll: {roll}");
}
