//! A WebDriver client for the tests that drive a real browser: headless Chromium
//! (Debian's `chromium` and `chromium-driver`, installed by `.ci/browser-setup`) through
//! chromedriver's protocol over a plain HTTP connection on loopback. The replay pages
//! (`browser`) and the play page (`play_page`, `play_mail`) share it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use resvg::tiny_skia::Pixmap;
use serde_json::{Value, json};

/// The browser binary.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// Key codes of the WebDriver protocol.
pub const ARROW_LEFT: &str = "\u{E012}";
pub const ARROW_RIGHT: &str = "\u{E014}";
pub const HOME: &str = "\u{E011}";
pub const END: &str = "\u{E010}";

/// chromedriver on a free loopback port, stopped when dropped.
pub struct Driver {
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
    pub fn start() -> Driver {
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
    pub fn try_call(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, String> {
        // A signal to this process may interrupt the connection or a read: they are
        // tried again, as `write_all` and `read_to_end` do.
        let mut stream = loop {
            match TcpStream::connect(("127.0.0.1", self.port)) {
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                connected => break connected.map_err(|e| e.to_string())?,
            }
        };
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
            let read = read_some(&mut stream, &mut buffer)?;
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
                let read = read_some(&mut stream, &mut buffer)?;
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

    pub fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|error| panic!("webdriver: {error}"))
    }
}

/// One read from `stream`, again when a signal interrupted it.
fn read_some(stream: &mut TcpStream, buffer: &mut [u8]) -> Result<usize, String> {
    loop {
        match stream.read(buffer) {
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            read => return read.map_err(|e| e.to_string()),
        }
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
pub struct Session<'a> {
    pub driver: &'a Driver,
    pub id: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self
            .driver
            .try_call("DELETE", &format!("/session/{}", self.id), None);
    }
}

impl Session<'_> {
    pub fn open(driver: &Driver) -> Session<'_> {
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

    pub fn path(&self, rest: &str) -> String {
        format!("/session/{}/{rest}", self.id)
    }

    pub fn go(&self, url: &str) {
        self.driver
            .call("POST", &self.path("url"), Some(&json!({ "url": url })));
    }

    pub fn script(&self, script: &str) -> Value {
        self.driver.call(
            "POST",
            &self.path("execute/sync"),
            Some(&json!({"script": script, "args": []})),
        )
    }

    pub fn press(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.driver
            .call("POST", &self.path("actions"), Some(&actions));
    }

    pub fn screenshot(&self) -> Vec<u8> {
        let value = self.driver.call("GET", &self.path("screenshot"), None);
        base64(value.as_str().expect("base64 text"))
    }

    /// The console's entries of level SEVERE (errors and uncaught exceptions).
    pub fn console_errors(&self) -> Vec<String> {
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

    /// Runs `script` with `args` (`arguments[0]`...); a Promise it returns is awaited.
    pub fn script_with(&self, script: &str, args: &[Value]) -> Value {
        self.driver.call(
            "POST",
            &self.path("execute/sync"),
            Some(&json!({"script": script, "args": args})),
        )
    }

    /// The value of `script` once it is truthy (checked every 50 ms), or `None` after
    /// `seconds`.
    pub fn until(&self, seconds: u64, script: &str, args: &[Value]) -> Option<Value> {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            let value = self.script_with(script, args);
            let truthy = !matches!(&value, Value::Null | Value::Bool(false))
                && value != json!("")
                && value != json!(0);
            if truthy {
                return Some(value);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The WebDriver id of the first element that `css` selects, if any.
    pub fn find(&self, css: &str) -> Option<String> {
        let found = self
            .driver
            .try_call(
                "POST",
                &self.path("element"),
                Some(&json!({"using": "css selector", "value": css})),
            )
            .ok()?;
        found[ELEMENT].as_str().map(str::to_owned)
    }

    /// Clicks the first element that `css` selects, as a user does (the pointer at the
    /// element's centre, so what is drawn on top there gets the click).
    pub fn click(&self, css: &str) {
        let found = self.driver.try_call(
            "POST",
            &self.path("element"),
            Some(&json!({"using": "css selector", "value": css})),
        );
        let element = match &found {
            Ok(found) => found[ELEMENT].as_str(),
            Err(_) => None,
        }
        .unwrap_or_else(|| panic!("no element {css} to click: {found:?}"));
        self.driver.call(
            "POST",
            &self.path(&format!("element/{element}/click")),
            Some(&json!({})),
        );
    }

    /// Opens a new tab and returns its handle (the session stays on the current one).
    pub fn new_tab(&self) -> String {
        let value = self.driver.call(
            "POST",
            &self.path("window/new"),
            Some(&json!({"type": "tab"})),
        );
        value["handle"]
            .as_str()
            .expect("a window handle")
            .to_owned()
    }

    /// The current tab's handle.
    pub fn tab(&self) -> String {
        let value = self.driver.call("GET", &self.path("window"), None);
        value.as_str().expect("a window handle").to_owned()
    }

    /// Makes `handle` the tab that the next commands drive.
    pub fn switch_to(&self, handle: &str) {
        self.driver.call(
            "POST",
            &self.path("window"),
            Some(&json!({ "handle": handle })),
        );
    }
}

/// The key under which WebDriver names an element.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The share of pixels that differ between two screenshots.
pub fn changed(a: &[u8], b: &[u8]) -> f64 {
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

/// The colour (red, green, blue) of a screenshot's pixel at (`x`, `y`).
pub fn pixel(png: &[u8], x: u32, y: u32) -> [u8; 3] {
    let picture = Pixmap::decode_png(png).expect("a png screenshot");
    let colour = picture.pixel(x, y).expect("a pixel inside the screenshot");
    [colour.red(), colour.green(), colour.blue()]
}

pub fn screenshots_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-screenshots");
    std::fs::create_dir_all(&dir).expect("the screenshots folder");
    dir
}
