//! The replay page in a real browser: headless Chromium driven through chromedriver
//! ([`crate::webdriver`]). For the example game of
//! each game, `pbem html` writes the page; the test opens it, presses the arrow keys,
//! Home and End, takes a screenshot after each step, and checks that the board picture
//! changes, that the move list highlights the current turn, and that the browser's
//! console shows no error. The screenshots are left in `target/browser-screenshots/`.
//! Pages whose comments, tags and title hold markup (`<!--<script>`, `</script>` in any
//! case) must parse, in the browser's HTML5 parser, to exactly the page's own script
//! elements and show that markup as text.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::webdriver::{
    ARROW_LEFT, ARROW_RIGHT, Driver, END, HOME, Session, changed, screenshots_dir,
};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::Chromium];
        replay_pages_step_through_every_game,
        markup_in_comments_and_tags_stays_text,
        long_games_show_the_boards_pbem_show_draws]
}

/// The example game of each game.
const EXAMPLES: &[&str] = &[
    "immortal",
    "wickets-cards",
    "chesica",
    "african-chess",
    "cascudo",
    "chesscala",
];

impl Session<'_> {
    /// The first game's state: the ply shown, the highlighted moves, the picture's text,
    /// the number of plies in the list, and whether the page has any other element
    /// highlighted.
    fn state(&self) -> State {
        let value = self.script(
            "var s = document.querySelector('section.game');\
             var current = Array.prototype.map.call(s.querySelectorAll('.ply.current'),\
               function (e) { return Number(e.getAttribute('data-ply')); });\
             return { ply: Number(s.getAttribute('data-ply')), current: current,\
               board: s.querySelector('.board').innerHTML,\
               plies: s.querySelectorAll('.ply').length,\
               status: s.querySelector('.status').textContent, title: document.title };",
        );
        State {
            ply: value["ply"].as_u64().expect("ply"),
            current: value["current"]
                .as_array()
                .expect("current")
                .iter()
                .filter_map(Value::as_u64)
                .collect(),
            board: value["board"].as_str().expect("board").to_owned(),
            plies: value["plies"].as_u64().expect("plies"),
            status: value["status"].as_str().expect("status").to_owned(),
            title: value["title"].as_str().expect("title").to_owned(),
        }
    }
}

impl Session<'_> {
    /// The state once `ready` holds (the page's script has run, a key has been handled),
    /// or the last state seen after ten seconds.
    fn state_when(&self, ready: impl Fn(&State) -> bool) -> State {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let state = self.state();
            if ready(&state) || Instant::now() > deadline {
                return state;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[derive(Debug)]
struct State {
    ply: u64,
    current: Vec<u64>,
    board: String,
    plies: u64,
    status: String,
    title: String,
}

fn replay_pages_step_through_every_game() {
    let pages = std::env::temp_dir().join(format!("pbem-browser-{}", std::process::id()));
    std::fs::create_dir_all(&pages).expect("a temporary folder");
    let shots = screenshots_dir();
    let driver = Driver::start();
    let session = Session::open(&driver);
    for example in EXAMPLES {
        let page = pages.join(format!("{example}.html"));
        let status = Command::new(env!("CARGO_BIN_EXE_pbem"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["html", &format!("examples/{example}.pgn"), "-o"])
            .arg(&page)
            .status()
            .expect("run pbem html");
        assert!(status.success(), "{example}: pbem html failed");
        session.go(&format!("file://{}", page.display()));

        let start =
            session.state_when(|state| state.title == *example && !state.current.is_empty());
        assert_eq!(start.title, *example, "the page is loaded");
        assert_eq!(
            (start.ply, start.current.as_slice()),
            (0, &[0][..]),
            "{example}"
        );
        assert!(
            start.board.starts_with("<svg"),
            "{example}: {}",
            start.board
        );
        assert!(
            start.status.starts_with("start"),
            "{example}: {}",
            start.status
        );
        let mut shot = session.screenshot();
        std::fs::write(shots.join(format!("{example}-0.png")), &shot).expect("save");

        let mut boards = vec![start.board.clone()];
        for step in 1..=2u64 {
            session.press(ARROW_RIGHT);
            let state = session.state_when(|state| state.ply == step);
            assert_eq!(state.ply, step, "{example}: Right moves one ply on");
            assert_eq!(state.current, [step], "{example}: the move list follows");
            assert_ne!(
                &state.board,
                boards.last().expect("a board"),
                "{example}: board"
            );
            assert!(
                state.status.starts_with(&format!("after ply {step}")),
                "{}",
                state.status
            );
            let next = session.screenshot();
            let share = changed(&shot, &next);
            assert!(
                share > 0.001,
                "{example}: the screenshot did not change ({share})"
            );
            std::fs::write(shots.join(format!("{example}-{step}.png")), &next).expect("save");
            shot = next;
            boards.push(state.board);
        }
        session.press(ARROW_LEFT);
        let back = session.state_when(|state| state.ply == 1);
        assert_eq!(
            (back.ply, back.current.as_slice()),
            (1, &[1][..]),
            "{example}"
        );
        assert_eq!(
            back.board, boards[1],
            "{example}: Left shows the same picture again"
        );

        session.press(END);
        let end = session.state_when(|state| state.ply + 1 == state.plies);
        assert_eq!(
            end.ply,
            end.plies - 1,
            "{example}: End goes to the last ply"
        );
        assert_eq!(end.current, [end.ply], "{example}");
        std::fs::write(
            shots.join(format!("{example}-end.png")),
            session.screenshot(),
        )
        .expect("save");
        session.press(HOME);
        let home = session.state_when(|state| state.ply == 0);
        assert_eq!(
            (home.ply, home.board.as_str()),
            (0, boards[0].as_str()),
            "{example}"
        );

        let errors = session.console_errors();
        assert!(errors.is_empty(), "{example}: console errors {errors:?}");
    }
    let _ = std::fs::remove_dir_all(&pages);
}

/// Text that would end or turn the page's script elements if the data carried it as it
/// is: an HTML comment opener (which makes a following `<script` open a nested script
/// that swallows the real `</script>`), end tags and start tags in any case. Each goes on
/// a page of its own (a later `-->` would mend an earlier `<!--<script>`).
const MARKUP: &[&str] = &[
    "<!--<script>",
    "<!--<SCRIPT>",
    "<!-- <sCrIpT type=module",
    "</script><script>document.title = 'broken'</script>",
    "<SCRIPT src=x></SCRIPT>",
    "</sCrIpT ><!--",
    "<!--",
    "a < b && c > d \\u003c \\/ <\\/script> \"quoted\"",
];

/// For each text of [`MARKUP`], a game whose comments (before the first move and after
/// every move), tag values and page title hold it: the browser's HTML5 parser must find
/// exactly the page's two script elements (the game's data and the page's script), every
/// ply must be reachable, and each comment must read exactly as written.
fn markup_in_comments_and_tags_stays_text() {
    let dir = std::env::temp_dir().join(format!("pbem-browser-markup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let driver = Driver::start();
    let session = Session::open(&driver);
    let moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"];
    let query = "var s = document.querySelector('section.game');\
         return { title: document.title, sections: document.querySelectorAll('section.game').length,\
           scripts: Array.prototype.map.call(document.querySelectorAll('script'),\
             function (e) { return [e.type, e.className]; }),\
           heading: s ? s.querySelector('h2').textContent : null,\
           subtitle: s ? s.querySelector('.subtitle').textContent : null,\
           plies: s ? s.querySelectorAll('.ply').length : 0,\
           ply: s ? Number(s.getAttribute('data-ply')) : -1,\
           comment: s ? s.querySelector('.comment').textContent : null };";
    let state_when = |ready: &dyn Fn(&Value) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let state = session.script(query);
            if ready(&state) || Instant::now() > deadline {
                return state;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    for (number, markup) in MARKUP.iter().enumerate() {
        let tag = markup.replace('\\', "\\\\").replace('"', "\\\"");
        let mut game = format!(
            "[Event \"{tag}\"]\n[Site \"?\"]\n[Date \"2026.01.01\"]\n[White \"{tag}\"]\n\
             [Black \"{tag}\"]\n[Result \"*\"]\n\n{{{markup}}}"
        );
        for (index, token) in moves.iter().enumerate() {
            if index % 2 == 0 {
                game.push_str(&format!(" {}.", index / 2 + 1));
            }
            game.push_str(&format!(" {token} {{{markup}}}"));
        }
        game.push_str(" *\n");
        let (_, page) = write_page(&dir, &format!("markup-{number}"), markup, &game);

        session.go(&format!("file://{}", page.display()));
        let state =
            state_when(&|state| state["title"] == json!(markup) && state["ply"] == json!(0));
        assert_eq!(state["title"], json!(markup), "the page's title: {state}");
        assert_eq!(
            state["scripts"],
            json!([["application/json", "frames"], ["", ""]]),
            "{markup}: the page's script elements"
        );
        assert_eq!(state["sections"], json!(1), "{markup}: {state}");
        assert_eq!(state["heading"], json!(format!("{markup} – {markup}")));
        assert_eq!(
            state["subtitle"],
            json!(format!("Chess · {markup} · 2026.01.01")),
            "{markup}"
        );
        assert_eq!(state["plies"], json!(moves.len() + 1), "{markup}: {state}");
        for ply in 0..=moves.len() {
            if ply > 0 {
                session.press(ARROW_RIGHT);
            }
            let state = state_when(&|state| state["ply"] == json!(ply));
            assert_eq!(state["ply"], json!(ply), "{markup}: Right moves one ply on");
            assert_eq!(
                state["comment"],
                json!(markup),
                "{markup}: the comment after ply {ply}"
            );
        }
        let errors = session.console_errors();
        assert!(errors.is_empty(), "{markup}: console errors {errors:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes `game` to `STEM.pgn` in `dir` and its page, titled `title`, to `STEM.html`
/// with `pbem html`; returns both files.
fn write_page(
    dir: &std::path::Path,
    stem: &str,
    title: &str,
    game: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let source = dir.join(format!("{stem}.pgn"));
    std::fs::write(&source, game).expect("write the game");
    let page = dir.join(format!("{stem}.html"));
    let status = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(["html", "--title", title, "-o"])
        .arg(&page)
        .arg(&source)
        .status()
        .expect("run pbem html");
    assert!(status.success(), "{title}: pbem html failed");
    (source, page)
}

/// The plies of each long game that the page is taken to, in this order: forward one
/// by one, far forward, back across the page's saved copies (every 64th ply), and to
/// the end.
const LONG_PLIES: &[u64] = &[0, 1, 2, 1_000, 1_999, 999, 64, 63, 1_500, 3, 2_000];

/// A long game (2,000 plies) of each game: the page opens, and at each ply of
/// [`LONG_PLIES`], reached by a click on the move and then by Right and Left, the board
/// is the very picture `pbem show --format svg --ply N` draws (compared as the browser
/// reads both).
fn long_games_show_the_boards_pbem_show_draws() {
    use crate::support::playouts::LONG_GAMES;
    let dir = std::env::temp_dir().join(format!("pbem-browser-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let driver = Driver::start();
    let session = Session::open(&driver);
    let compare = "var board = document.querySelector('section.game .board').innerHTML;\
         var shown = document.createElement('div'); shown.innerHTML = arguments[0];\
         var expected = shown.innerHTML; var at = 0;\
         while (at < board.length && board[at] === expected[at]) { at += 1; }\
         return { ply: Number(document.querySelector('section.game').getAttribute('data-ply')),\
           same: board === expected, board: board.slice(Math.max(0, at - 80), at + 80),\
           expected: expected.slice(Math.max(0, at - 80), at + 80) };";
    for (name, long_game) in LONG_GAMES {
        let (source, page) = write_page(&dir, name, name, &long_game(2_000, 7));
        session.go(&format!("file://{}", page.display()));
        let start = session.state_when(|state| state.title == name && !state.current.is_empty());
        // Every walk keeps to the turns the history allows: the page holds every ply.
        let last = start.plies - 1;
        assert_eq!(last, 2_000, "{name}: not every ply is on the page");
        let check = |ply: u64, how: &str| {
            let output = Command::new(env!("CARGO_BIN_EXE_pbem"))
                .args(["show", "--format", "svg", "--ply", &ply.to_string()])
                .arg(&source)
                .output()
                .expect("run pbem show");
            assert!(output.status.success(), "{name}: pbem show --ply {ply}");
            let svg = String::from_utf8(output.stdout).expect("utf-8");
            let deadline = Instant::now() + Duration::from_secs(10);
            let state = loop {
                let state = session.driver.call(
                    "POST",
                    &session.path("execute/sync"),
                    Some(&json!({"script": compare, "args": [svg]})),
                );
                if state["ply"] == json!(ply) || Instant::now() > deadline {
                    break state;
                }
                std::thread::sleep(Duration::from_millis(50));
            };
            assert_eq!(state["ply"], json!(ply), "{name}: {how}");
            assert!(
                state["same"] == json!(true),
                "{name}, ply {ply} ({how}): the page shows\n{}\nwhere pbem show draws\n{}",
                state["board"],
                state["expected"]
            );
        };
        for ply in LONG_PLIES.iter().map(|&ply| ply.min(last)) {
            session.script(&format!(
                "document.querySelector('section.game .ply[data-ply=\"{ply}\"]').click();"
            ));
            check(ply, "a click on the move");
            if ply < last {
                session.press(ARROW_RIGHT);
                check(ply + 1, "Right");
                session.press(ARROW_LEFT);
                check(ply, "Left");
            }
        }
        let errors = session.console_errors();
        assert!(errors.is_empty(), "{name}: console errors {errors:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
