//! `pbem play` in a real browser (issue 34): the play page served by the real binary,
//! driven in headless Chromium through chromedriver ([`crate::webdriver`]) as a player
//! drives it, by clicks on the board's places (`#board [data-place]`), on the choice
//! buttons (`#choices button[data-token]`) and on `#confirm`.
//!
//! - For each of the six games, the hardest kinds of turn (a promotion, a Chesscala
//!   two-move turn with a sowing order, a Cascudo cascade of five moves, an African Chess
//!   sowing that captures on two squares, a Chesica multi-jump, a Chess with wickets
//!   throw with its card from a fair deal and an attempt in Dice mode) are clicked, and
//!   the game file then holds exactly that turn and validates.
//! - For every position of every example, the turns the page can build by its own
//!   clicks (`window.pbem.buildableAt`) are exactly the lines of `pbem legal --ply K`.
//! - A turn made in one tab shows in another without a reload.
//! - A long game's move list is a window around the ply shown, moved by its "...".
//! - The picture of the page of a game by mail with a piece picked and its targets
//!   marked is written to
//!   `docs/play.png` when `PBEM_UPDATE_DOCS=1` is set (the README shows it), else under
//!   `target/browser-screenshots/`, so that a plain `cargo test` changes no tracked file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::homes::{
    Homes, Player, game_path, ok, play_by_maildir, text, wickets_to_the_attempt,
};
use crate::support::page::Server;
use crate::webdriver::{Driver, Session, changed, pixel, screenshots_dir};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::Chromium];
        a_turn_of_each_game_is_clicked_in_the_page_and_saved,
        the_page_builds_exactly_the_legal_turns_at_every_ply_of_the_examples,
        a_turn_made_in_one_tab_shows_in_the_other,
        the_move_list_of_a_long_game_moves_its_window_with_the_ply_shown,
        the_page_marks_the_targets_of_a_picked_piece_as_docs_play_png_shows]
}

/// The instant every pbem of these tests runs at.
pub const NOW: &str = "2026-11-20T10:00:00Z";

/// A running `pbem play` (the tests' [`Server`]), stopped when dropped, and what a
/// browser does with its page.
pub struct PlayServer {
    /// Held: dropping it stops the server.
    _server: Server,
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    /// The address it printed, with its token.
    pub opening: String,
}

impl PlayServer {
    /// Starts `pbem play ARGS --no-open` as `player` at [`NOW`] with `env`, and reads the
    /// address it prints.
    pub fn start(player: &Player, args: &[&str], env: &[(&str, &str)]) -> PlayServer {
        let all = [&["play"][..], args, &["--no-open"]].concat();
        let mut command = player.command(NOW, &all);
        for (name, value) in env {
            command.env(name, value);
        }
        PlayServer::spawn(command)
    }

    /// Starts `command` (a `pbem play`) and reads the address it prints, which must be
    /// on 127.0.0.1.
    pub fn spawn(command: Command) -> PlayServer {
        let server = Server::start(command);
        assert!(
            server.host.starts_with("127.0.0.1:"),
            "pbem play listens on {}",
            server.host
        );
        PlayServer {
            address: format!("http://{}", server.host),
            opening: server.address.clone(),
            _server: server,
        }
    }

    /// Opens the printed address in `session` (which sets the token's cookie), then the
    /// page of game `game` (`local` for a file), and waits until its script has drawn
    /// the board.
    pub fn open(&self, session: &Session, game: &str) {
        session.go(&self.opening);
        session.go(&format!("{}/game/{game}", self.address));
        self.wait_ready(session);
    }

    /// Waits until the page shows a board and its hooks are there.
    pub fn wait_ready(&self, session: &Session) {
        let ready = session.until(
            30,
            "return !!(window.pbem && document.querySelector('#board svg') \
             && document.body.dataset.version);",
            &[],
        );
        if ready.is_none() {
            let shown = session.script("return document.body ? document.body.innerText : '';");
            panic!(
                "the play page did not come up: {shown}\nconsole: {:?}",
                session.console_errors()
            );
        }
    }

    /// Builds `token` on the page by clicks (each place must be marked `.target` before
    /// it is clicked, then the choice button if the clicks leave several turns), checks
    /// that `#built` shows it, and confirms; returns what `#messages` then says.
    pub fn click_turn(&self, session: &Session, token: &str) -> String {
        let clicks = clicks_of(session, token);
        for place in &clicks {
            self.click_place(session, place);
        }
        // The clicks leave the turn alone (confirm is enabled), or with others that
        // share them, told apart by a button each.
        let button = format!("#choices button[data-token=\"{token}\"]");
        let left = session.until(
            10,
            "if (document.querySelector(arguments[0])) { return 'button'; }\
             return !document.querySelector('#confirm').disabled && 'alone';",
            &[json!(button)],
        );
        match left {
            Some(left) if left == json!("button") => session.click(&button),
            Some(_) => {}
            None => panic!(
                "{token}: neither alone nor a choice after the clicks {clicks:?}; {}",
                page_state(session)
            ),
        }
        let shown = session.until(
            10,
            "return document.querySelector('#built').textContent.trim() === arguments[0]\
               && !document.querySelector('#confirm').disabled;",
            &[json!(token)],
        );
        assert!(
            shown.is_some(),
            "{token}: #built does not show the turn, or #confirm is disabled; {}",
            page_state(session)
        );
        self.press(session, "#confirm")
    }

    /// Clicks the place `place` of the board, which must be marked as a target first.
    pub fn click_place(&self, session: &Session, place: &str) {
        let css = format!("#board [data-place=\"{place}\"]");
        let marked = session.until(
            10,
            "return !!document.querySelector(arguments[0]);",
            &[json!(format!("{css}.target"))],
        );
        assert!(
            marked.is_some(),
            "the place {place} is not marked as a target; {}",
            page_state(session)
        );
        session.click(&css);
    }

    /// Clicks the button `css` (accepting the dialog it may open), waits until
    /// `#messages` says what came of it, and returns that, which must not be an error.
    pub fn press(&self, session: &Session, css: &str) -> String {
        session.script(
            "var m = document.querySelector('#messages');\
             m.textContent = ''; m.classList.remove('error');",
        );
        session.click(css);
        accept_a_dialog(session);
        let done = session.until(
            30,
            "return document.querySelector('#messages').textContent.trim() !== '';",
            &[],
        );
        let (messages, error) = {
            let value = session.script(
                "var m = document.querySelector('#messages');\
                 return [m.textContent, m.classList.contains('error')];",
            );
            (
                value[0].as_str().unwrap_or_default().to_owned(),
                value[1] == json!(true),
            )
        };
        assert!(
            done.is_some() && !error,
            "{css}: {messages}; {}",
            page_state(session)
        );
        messages
    }
}

/// Accepts a `confirm()` dialog if the page opened one.
fn accept_a_dialog(session: &Session) {
    let _ = session
        .driver
        .try_call("POST", &session.path("alert/accept"), Some(&json!({})));
}

/// The places the page's own view (`GET /api/game/ID`, contract 1's `Buildable`) says
/// build `token` at the position shown.
fn clicks_of(session: &Session, token: &str) -> Vec<String> {
    let view = session.script(
        "var id = location.pathname.split('/').pop();\
         return fetch('/api/game/' + id).then(function (r) { return r.json(); });",
    );
    let turns = view["turns"].as_array().cloned().unwrap_or_default();
    let Some(turn) = turns.iter().find(|turn| turn["token"] == json!(token)) else {
        let tokens: Vec<&Value> = turns.iter().map(|turn| &turn["token"]).take(40).collect();
        panic!("{token} is not among the page's turns: {tokens:?}");
    };
    turn["clicks"]
        .as_array()
        .expect("clicks")
        .iter()
        .map(|place| place.as_str().expect("a place").to_owned())
        .collect()
}

/// What the page shows, for failure messages.
fn page_state(session: &Session) -> Value {
    session.script(
        "function text(id) { var e = document.querySelector(id); return e ? e.textContent : null; }\
         return { built: text('#built'), choices: text('#choices'), messages: text('#messages'),\
           turn: text('#turn'),\
           targets: Array.prototype.map.call(document.querySelectorAll('#board .target'),\
             function (e) { return e.getAttribute('data-place'); }),\
           picked: Array.prototype.map.call(document.querySelectorAll('#board .picked'),\
             function (e) { return e.getAttribute('data-place'); }) };",
    )
}

/// The tokens of a game file's main line.
pub fn tokens(file: &Path) -> Vec<String> {
    let game = std::fs::read_to_string(file).expect("the game file");
    let record = pbem::notation::parse_record(&game)
        .unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    record
        .moves
        .turns
        .iter()
        .map(|turn| turn.token.to_string())
        .collect()
}

/// `pbem validate FILE` as `player`, which must pass.
pub fn assert_valid(player: &Player, file: &Path) {
    let output = player.run(NOW, &["validate", file.to_str().expect("a path")]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}: {}{}",
        file.display(),
        text(&output.stdout),
        text(&output.stderr)
    );
}

/// The lines `pbem legal` prints with `args` (none when the game is over).
fn legal(player: &Player, args: &[&str]) -> Result<Vec<String>, Output> {
    let output = player.run(NOW, &[&["legal"][..], args].concat());
    match output.status.code() {
        Some(0) => Ok(text(&output.stdout).lines().map(str::to_owned).collect()),
        Some(1) if text(&output.stderr).contains("the game is over") => Ok(Vec::new()),
        _ => Err(output),
    }
}

/// Where a turn of [`CLICKED`] is played.
enum Position {
    /// An example of `examples/` cut after this many plies, played as a local file.
    Example(&'static str, usize),
    /// A game by mail that Alice starts with `pbem new --variant V --fen F`; she plays.
    Fen(&'static str, &'static str),
    /// A Chess with wickets game by mail in this decision mode, played by Maildir up to
    /// White's scoring attempt (`TO_THE_ATTEMPT`, a fair deal in the Cards modes).
    Wickets(&'static str),
}

/// The turns clicked: what, where, the turn (as `pbem legal` lists it there), and whether
/// the player then adds the part it awaits: a card of the player's hand, chosen among
/// the page's buttons.
const CLICKED: &[(&str, Position, &str, bool)] = &[
    (
        "a promotion to a knight (the choice of piece)",
        Position::Fen("Chess", "7k/P7/8/8/8/8/8/K7 w - - 0 1"),
        "a8=N",
        false,
    ),
    (
        "Chesscala: a capture and a sowing in a chosen order",
        Position::Example("chesscala", 1),
        "Bd7xHb5,e8:HONB",
        false,
    ),
    (
        "Cascudo: a cascade of five moves",
        Position::Example("cascudo", 0),
        "Ra1-b1-e1-c1-d3xb5",
        false,
    ),
    (
        "African Chess: a sowing whose touchstone and last stone capture",
        Position::Fen("African Chess", "7t/8/8/8/3p4/3(pp)4/8/3(TPP)4 w 1"),
        "d1N=d3xd3xd4",
        false,
    ),
    (
        "Chesica: a multi-jump",
        Position::Example("chesica", 14),
        "g3xe5xg7",
        false,
    ),
    (
        "Chess with wickets, Cards (fair deal): a throw, then a card of the hand",
        Position::Wickets("Cards"),
        "Nxe5:w9",
        true,
    ),
    (
        "Chess with wickets, Dice: an attempt",
        Position::Wickets("Dice"),
        "Nxe5:w9",
        false,
    ),
];

/// Writes `examples/NAME.pgn` cut after `ply` plies (the result `*`) to `dir`.
fn cut_example(name: &str, ply: usize, dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.pgn"));
    let game = std::fs::read_to_string(source).expect("the example");
    let mut record = pbem::notation::parse_record(&game).expect("the example reads");
    record.moves.turns.truncate(ply);
    record.set_tag("Result", "*");
    record.result = Some(pbem::games::GameResult::Unknown);
    let file = dir.join(format!("{name}-{ply}.pgn"));
    std::fs::write(
        &file,
        pbem::notation::record_to_string(&record, pbem::notation::Numbering::default()),
    )
    .expect("write the cut example");
    file
}

fn a_turn_of_each_game_is_clicked_in_the_page_and_saved() {
    let driver = Driver::start();
    let session = Session::open(&driver);
    for (number, (what, position, token, then_a_card)) in CLICKED.iter().enumerate() {
        // Each case in homes of its own: Alice plays (White, or a local file).
        let (homes, file, game, target) = match position {
            Position::Example(name, ply) => {
                let homes = Homes::new(&format!("play-click-{number}"), "");
                let file = cut_example(name, *ply, &homes.root);
                let target = file.to_str().expect("a path").to_owned();
                (homes, file, "local".to_owned(), target)
            }
            Position::Fen(variant, fen) => {
                let homes = Homes::new(&format!("play-click-{number}"), "");
                let id = homes.start(NOW, &["--variant", variant, "--fen", fen]);
                homes_file(homes, &id)
            }
            Position::Wickets(decision) => {
                let (homes, id) = wickets_to_the_attempt(&format!("play-click-{number}"), decision);
                homes_file(homes, &id)
            }
        };
        let alice = &homes.alice;
        let lines = legal(alice, &[&target])
            .unwrap_or_else(|output| panic!("{what}: pbem legal: {}", text(&output.stderr)));
        let token = (*token).to_owned();
        assert!(
            lines.contains(&token),
            "{what}: {token} is not legal there: {lines:?}"
        );
        let before = tokens(&file);

        let server = PlayServer::start(alice, &[&target], &[]);
        server.open(&session, &game);
        let said = server.click_turn(&session, &token);

        let after = tokens(&file);
        assert_eq!(
            after,
            [before, vec![token.clone()]].concat(),
            "{what}: the game file holds the turn, and only it (the page said {said})"
        );
        assert_valid(alice, &file);
        if *then_a_card {
            play_a_card(&server, &session, &homes, &game, what);
        }
        let errors = session.console_errors();
        assert!(errors.is_empty(), "{what}: console errors {errors:?}");
        // Away from the page before its server stops, so that its polling fails nowhere.
        session.go("about:blank");
    }
}

/// Alice plays the first card of her hand that the page offers for the awaited part of
/// game `id`, and her file then holds exactly what `pbem move ID CARD` writes in a copy
/// of her home.
fn play_a_card(server: &PlayServer, session: &Session, homes: &Homes, id: &str, what: &str) {
    let twin = Player {
        dir: homes.root.join("twin"),
    };
    let copied = Command::new("cp")
        .arg("-a")
        .arg(&homes.alice.dir)
        .arg(&twin.dir)
        .status()
        .expect("cp runs");
    assert!(copied.success(), "copy Alice's home");
    let card = session.until(
        10,
        "var cards = Array.prototype.map.call(\
           document.querySelectorAll('#choices button[data-token]'),\
           function (b) { return b.dataset.token; }).filter(function (t) { return t !== '-'; });\
         return cards.length > 0 ? cards[0] : null;",
        &[],
    );
    let Some(Value::String(card)) = card else {
        panic!(
            "{what}: no card of the hand offered; {}",
            page_state(session)
        );
    };
    let hand = session.script("return document.querySelector('#hand').textContent;");
    assert!(
        hand.as_str().is_some_and(|hand| hand.contains(&card)),
        "{what}: {card} is not in the hand shown, {hand}"
    );
    session.click(&format!("#choices button[data-token=\"{card}\"]"));
    let said = server.press(session, "#confirm");
    ok(&twin.run(NOW, &["move", id, &card]));
    let (file, twins) = (game_path(&homes.alice, id), game_path(&twin, id));
    assert_eq!(
        tokens(&file),
        tokens(&twins),
        "{what}: the card {card} from the page (which said {said}) and from pbem move"
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("Alice's file"),
        std::fs::read_to_string(&twins).expect("the twin's file"),
        "{what}: the card {card} from the page and from pbem move"
    );
    assert_valid(&homes.alice, &file);
}

/// The homes, Alice's file of game `id`, the game's page name and `pbem play`'s argument.
fn homes_file(homes: Homes, id: &str) -> (Homes, PathBuf, String, String) {
    let file = game_path(&homes.alice, id);
    (homes, file, id.to_owned(), id.to_owned())
}

/// Every example but `mistakes.pgn`, whose games are wrong on purpose.
const EXAMPLES: &[&str] = &[
    "immortal",
    "wickets-deterministic",
    "wickets-dice",
    "wickets-cards",
    "chesica",
    "african-chess",
    "cascudo",
    "chesscala",
];

fn the_page_builds_exactly_the_legal_turns_at_every_ply_of_the_examples() {
    let homes = Homes::new("play-buildable", "");
    let driver = Driver::start();
    let session = Session::open(&driver);
    for example in EXAMPLES {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{example}.pgn"));
        let file = homes.root.join(format!("{example}.pgn"));
        std::fs::copy(&source, &file).expect("copy the example");
        let path = file.to_str().expect("a path");
        let server = PlayServer::start(&homes.alice, &[path], &[]);
        server.open(&session, "local");
        let plies = tokens(&file).len();
        let mut checked = 0;
        for ply in 0..=plies {
            let wanted = match legal(&homes.alice, &[path, "--ply", &ply.to_string()]) {
                Ok(lines) => lines,
                // A resignation or a draw agreed is a ply of the record but no position.
                Err(output) if text(&output.stderr).contains("playable plies") => break,
                Err(output) => panic!("{example}, ply {ply}: {}", text(&output.stderr)),
            };
            let built = session.script_with(
                "return window.pbem.buildableAt(arguments[0]);",
                &[json!(ply)],
            );
            let mut built: Vec<String> = built
                .as_array()
                .unwrap_or_else(|| panic!("{example}, ply {ply}: buildableAt gave {built}"))
                .iter()
                .map(|token| token.as_str().expect("a token").to_owned())
                .collect();
            built.sort();
            let mut wanted = wanted;
            wanted.sort();
            if built != wanted {
                let missing: Vec<&String> = wanted.iter().filter(|t| !built.contains(t)).collect();
                let extra: Vec<&String> = built.iter().filter(|t| !wanted.contains(t)).collect();
                panic!(
                    "{example}, ply {ply}: the page builds {} turns, pbem legal lists {}; \
                     not buildable: {missing:?}; not legal: {extra:?}",
                    built.len(),
                    wanted.len()
                );
            }
            checked += 1;
        }
        assert!(
            checked + 1 >= plies,
            "{example}: only {checked} of {plies} plies checked"
        );
        let errors = session.console_errors();
        assert!(errors.is_empty(), "{example}: console errors {errors:?}");
        session.go("about:blank");
        std::fs::copy(&source, &file).expect("copy the example");
        assert_eq!(
            std::fs::read(&file).unwrap(),
            std::fs::read(&source).unwrap()
        );
    }
}

fn a_turn_made_in_one_tab_shows_in_the_other() {
    let homes = Homes::new("play-tabs", "");
    let file = cut_example("immortal", 4, &homes.root);
    let path = file.to_str().expect("a path");
    let server = PlayServer::start(&homes.alice, &[path], &[]);
    let driver = Driver::start();
    let session = Session::open(&driver);
    server.open(&session, "local");
    let first = session.tab();
    let second = session.new_tab();
    session.switch_to(&second);
    server.open(&session, "local");
    // White's turn in the first tab, Black's in the second, each seen in the other.
    for (ply, (by, other, token)) in [(&first, &second, "Bc4"), (&second, &first, "Qh4+")]
        .into_iter()
        .enumerate()
    {
        session.switch_to(by);
        server.click_turn(&session, token);
        session.switch_to(other);
        let shown = session.until(
            20,
            "var p = document.querySelector('#moves [data-ply=\"' + arguments[0] + '\"]');\
             return !!p && p.textContent.indexOf(arguments[1]) >= 0;",
            &[json!(4 + ply + 1), json!(token)],
        );
        assert!(
            shown.is_some(),
            "{token} made in one tab does not show in the other: {}",
            page_state(&session)
        );
    }
    assert_eq!(tokens(&file)[4..], ["Bc4".to_owned(), "Qh4+".to_owned()]);
    assert_valid(&homes.alice, &file);
}

fn the_move_list_of_a_long_game_moves_its_window_with_the_ply_shown() {
    let homes = Homes::new("play-long", "");
    let file = homes.root.join("long.pgn");
    std::fs::write(&file, crate::support::playouts::long_chesscala(1_000, 7)).unwrap();
    let path = file.to_str().expect("a path");
    let server = PlayServer::start(&homes.alice, &[path], &[]);
    let driver = Driver::start();
    let session = Session::open(&driver);
    server.open(&session, "local");
    // The list's plies (the first and last few, and how many) and the ply shown, once the
    // ply shown is `arguments[0]`.
    let list_at = |ply: u64| {
        session.until(
            20,
            "var items = Array.prototype.map.call(document.querySelectorAll('#moves li'),\
               function (e) { return e.dataset.ply + ':' + e.textContent; });\
             var shown = document.querySelector('#moves .shown');\
             if (!shown || shown.dataset.ply !== String(arguments[0])) return null;\
             return [items.length, items.slice(0, 3), items[items.length - 1]];",
            &[json!(ply)],
        )
    };
    // With a turn typed: whether Confirm is disabled, and what the page says of the turn,
    // once the ply shown is `arguments[0]`.
    let confirm_at = |ply: u64| {
        session.until(
            20,
            "var shown = document.querySelector('#moves .shown');\
             if (!shown || shown.dataset.ply !== String(arguments[0])) return null;\
             var typed = document.getElementById('token');\
             typed.value = 'a1';\
             typed.dispatchEvent(new Event('input'));\
             return [document.getElementById('confirm').disabled,\
               document.getElementById('turn').textContent];",
            &[json!(ply)],
        )
    };
    let tokens = tokens(&file);
    let end = list_at(1_000).unwrap_or_else(|| panic!("{}", page_state(&session)));
    let at_end = confirm_at(1_000).unwrap_or_else(|| panic!("{}", page_state(&session)));
    assert_eq!(at_end[0], json!(false), "{at_end}");
    assert_eq!(
        end,
        json!([
            202,
            ["0:start", "800:...", format!("801:{}", tokens[800])],
            format!("1000:{}", tokens[999])
        ])
    );
    // "..." shows the ply before the window, and the window around it.
    session.click("#moves [data-ply=\"800\"]");
    let middle = list_at(800).unwrap_or_else(|| panic!("{}", page_state(&session)));
    assert_eq!(
        middle,
        json!([
            203,
            ["0:start", "700:...", format!("701:{}", tokens[700])],
            "901:..."
        ])
    );
    // A turn is tried at an earlier ply but played only at the game's end.
    let earlier = confirm_at(800).unwrap_or_else(|| panic!("{}", page_state(&session)));
    assert_eq!(
        earlier,
        json!([
            true,
            "ply 800 of 1000: the game goes on after it (go to its end to play)"
        ])
    );
}

fn the_page_marks_the_targets_of_a_picked_piece_as_docs_play_png_shows() {
    // A game by mail between Alice and Bob, the Immortal Game's first eight plies played
    // by Maildir; Alice's page with her bishop on c4 picked.
    let homes = Homes::new("play-picture", "");
    let id = homes.start("2026-11-01T09:00:00Z", &["--time-control", "10/50d"]);
    let immortal = cut_example("immortal", 8, &homes.root);
    for (ply, token) in tokens(&immortal).iter().enumerate() {
        play_by_maildir(&homes, &id, ply, token);
    }
    let server = PlayServer::start(&homes.alice, &[&id], &[]);
    let driver = Driver::start();
    let session = Session::open(&driver);
    server.open(&session, &id);
    let before = session.screenshot();
    session.click("#board [data-place=\"c4\"]");
    let marked = session.until(
        10,
        "return Array.prototype.map.call(document.querySelectorAll('#board .target'),\
           function (e) { return e.getAttribute('data-place'); }).sort().join(' ');",
        &[],
    );
    // Bc4's turns as `pbem legal --ply 8` lists them: Bb3, Bd3, Bd5, Be2, Be6, Bxb5 and
    // Bxf7+.
    assert_eq!(
        marked,
        Some(json!("b3 b5 d3 d5 e2 e6 f7")),
        "{}",
        page_state(&session)
    );
    let picture = session.screenshot();
    let share = changed(&before, &picture);
    assert!(share > 0.001, "the marks do not show ({share})");
    // A target is told from the last turn's yellow (b7-b5) at a glance: the middle of an
    // empty target (b3, d3; a dot) and the corner of a capture (f7; a ring), against the
    // middle of b7, a light square as they are.
    let at = |place: &str, corner: bool| -> [u8; 3] {
        let spot = session.script_with(
            "var r = document.querySelector('#board [data-place=\"' + arguments[0] + '\"]')\
               .getBoundingClientRect(); var d = window.devicePixelRatio;\
             return arguments[1] ? [(r.left + 4) * d, (r.top + 4) * d]\
               : [(r.left + r.width / 2) * d, (r.top + r.height / 2) * d];",
            &[json!(place), json!(corner)],
        );
        let coordinate = |i: usize| spot[i].as_f64().expect("a coordinate") as u32;
        pixel(&picture, coordinate(0), coordinate(1))
    };
    let last = at("b7", false);
    for (place, corner) in [("b3", false), ("d3", false), ("f7", true)] {
        let target = at(place, corner);
        let apart: u32 = target
            .iter()
            .zip(last)
            .map(|(a, b)| u32::from(a.abs_diff(b)))
            .sum();
        assert!(
            apart > 120,
            "the target {place} ({target:?}) looks like the last turn's mark on b7 ({last:?})"
        );
    }
    let to = if std::env::var("PBEM_UPDATE_DOCS").as_deref() == Ok("1") {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/play.png")
    } else {
        screenshots_dir().join("play.png")
    };
    std::fs::write(&to, picture).expect("write the picture");
}
