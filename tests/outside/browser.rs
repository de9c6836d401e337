//! The replay page in a real browser: headless Chromium (Debian's `chromium` and
//! `chromium-driver`, installed by `.ci/browser-setup`) driven through chromedriver's
//! WebDriver protocol over a plain HTTP connection on loopback. For the example game of
//! each game, `pbem html` writes the page; the test opens it, presses the arrow keys,
//! Home and End, takes a screenshot after each step, and checks that the board picture
//! changes, that the move list highlights the current turn, and that the browser's
//! console shows no error. The screenshots are left in `target/browser-screenshots/`.
//! Pages whose comments, tags and title hold markup (`<!--<script>`, `</script>` in any
//! case) must parse, in the browser's HTML5 parser, to exactly the page's own script
//! elements and show that markup as text.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use resvg::tiny_skia::Pixmap;
use serde_json::{Value, json};

use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::Chromium];
        replay_pages_step_through_every_game,
        markup_in_comments_and_tags_stays_text,
        long_games_show_the_boards_pbem_show_draws]
}

/// The browser binary.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// The example game of each game.
const EXAMPLES: &[&str] = &[
    "immortal",
    "wickets-cards",
    "chesica",
    "african-chess",
    "cascudo",
    "chesscala",
];

/// Key codes of the WebDriver protocol.
const ARROW_LEFT: &str = "\u{E012}";
const ARROW_RIGHT: &str = "\u{E014}";
const HOME: &str = "\u{E011}";
const END: &str = "\u{E010}";

/// chromedriver on a free loopback port, stopped when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let driver = Driver { child, port };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(status) = driver.try_call("GET", "/status", None)
                && status["ready"] == json!(true)
            {
                return driver;
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// One WebDriver command: its `value`, or why it failed.
    fn try_call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let body = body.map(Value::to_string).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        stream
            .write_all(request.as_bytes())
            .map_err(|e| e.to_string())?;
        // chromedriver keeps the connection open: read the head, then the length it gives.
        let mut response = Vec::new();
        let mut buffer = [0u8; 65536];
        let (split, length) = loop {
            let read = stream.read(&mut buffer).map_err(|e| e.to_string())?;
            if read == 0 {
                return Err("the connection closed early".to_owned());
            }
            response.extend_from_slice(&buffer[..read]);
            if let Some(split) = response.windows(4).position(|window| window == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .and_then(|value| value.trim().parse::<usize>().ok());
                break (split, length);
            }
        };
        let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
        if let Some(length) = length {
            while response.len() < split + 4 + length {
                let read = stream.read(&mut buffer).map_err(|e| e.to_string())?;
                if read == 0 {
                    break;
                }
                response.extend_from_slice(&buffer[..read]);
            }
        } else {
            stream
                .read_to_end(&mut response)
                .map_err(|e| e.to_string())?;
        }
        let mut content = response[split + 4..].to_vec();
        if head.contains("transfer-encoding: chunked") {
            content = dechunk(&content);
        }
        let value: Value = serde_json::from_slice(&content).map_err(|e| e.to_string())?;
        if head.starts_with("http/1.1 200") {
            Ok(value["value"].clone())
        } else {
            Err(format!("{method} {path}: {value}"))
        }
    }

    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|error| panic!("webdriver: {error}"))
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
}

/// Decodes standard base64 (the screenshots).
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut buffer = 0u32;
        for (index, digit) in chunk.iter().enumerate() {
            buffer |= u32::from(*digit) << (18 - 6 * index);
        }
        let bytes = buffer.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

/// A browser session on one page.
struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self
            .driver
            .try_call("DELETE", &format!("/session/{}", self.id), None);
    }
}

impl Session<'_> {
    fn open(driver: &Driver) -> Session<'_> {
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1200,900",
                         "--allow-file-access-from-files"]
            },
            "goog:loggingPrefs": {"browser": "ALL"}
        }}});
        let value = driver.call("POST", "/session", Some(&capabilities));
        let id = value["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        Session { driver, id }
    }

    fn path(&self, rest: &str) -> String {
        format!("/session/{}/{rest}", self.id)
    }

    fn go(&self, url: &str) {
        self.driver
            .call("POST", &self.path("url"), Some(&json!({ "url": url })));
    }

    fn script(&self, script: &str) -> Value {
        self.driver.call(
            "POST",
            &self.path("execute/sync"),
            Some(&json!({"script": script, "args": []})),
        )
    }

    fn press(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.driver
            .call("POST", &self.path("actions"), Some(&actions));
    }

    fn screenshot(&self) -> Vec<u8> {
        let value = self.driver.call("GET", &self.path("screenshot"), None);
        base64(value.as_str().expect("base64 text"))
    }

    /// The console's entries of level SEVERE (errors and uncaught exceptions).
    fn console_errors(&self) -> Vec<String> {
        let entries = self.driver.call(
            "POST",
            &self.path("se/log"),
            Some(&json!({"type": "browser"})),
        );
        entries
            .as_array()
            .expect("log entries")
            .iter()
            .filter(|entry| entry["level"] == json!("SEVERE"))
            .map(|entry| entry["message"].to_string())
            .collect()
    }

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

/// The share of pixels that differ between two screenshots.
fn changed(a: &[u8], b: &[u8]) -> f64 {
    let (a, b) = (
        Pixmap::decode_png(a).expect("a png screenshot"),
        Pixmap::decode_png(b).expect("a png screenshot"),
    );
    if (a.width(), a.height()) != (b.width(), b.height()) {
        return 1.0;
    }
    let differing = a
        .data()
        .chunks(4)
        .zip(b.data().chunks(4))
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 16))
        .count();
    differing as f64 / (a.data().len() / 4) as f64
}

fn screenshots_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-screenshots");
    std::fs::create_dir_all(&dir).expect("the screenshots folder");
    dir
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
