//! `pbem play` started for a test, and a plain HTTP/1.1 client over std's `TcpStream`
//! that speaks to it as a browser would (the token cookie, the `Host` and `Origin`
//! headers), or as anything else would.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running `pbem play --no-open`, stopped (killed) when dropped.
pub struct Server {
    child: Option<Child>,
    stdout: BufReader<ChildStdout>,
    /// The address it printed, token included.
    pub address: String,
    pub host: String,
    pub port: u16,
    pub token: String,
}

/// An answer: its status code, headers (names lowercase) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|error| panic!("{error}: {}", self.body))
    }
}

impl Server {
    /// Starts `command` (a `pbem ... play --no-open ...`) and reads the address it prints.
    pub fn start(mut command: Command) -> Server {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("pbem play runs");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .expect("pbem play prints its address");
        let address = line
            .trim()
            .strip_prefix("pbem play: open ")
            .unwrap_or_else(|| panic!("pbem play printed {line:?}"))
            .to_owned();
        let rest = address
            .strip_prefix("http://")
            .unwrap_or_else(|| panic!("{address}"));
        let (host, query) = rest.split_once("/?token=").expect("a token in the address");
        let port = host
            .rsplit_once(':')
            .and_then(|(_, port)| port.parse().ok())
            .expect("a port");
        Server {
            child: Some(child),
            stdout,
            host: host.to_owned(),
            port,
            token: query.to_owned(),
            address,
        }
    }

    /// Sends `head` (the request line and headers, without the blank line) and `body`.
    pub fn raw(&self, head: &str, body: &str) -> Reply {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let request = format!(
            "{head}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        parse(&bytes)
    }

    /// The token's cookie as the browser sends it back: `pbem_token_PORT=TOKEN`.
    pub fn cookie(&self) -> String {
        format!("pbem_token_{}={}", self.port, self.token)
    }

    /// The first load of the address printed, as a browser makes it: no cookie yet.
    pub fn first_load(&self) -> Reply {
        self.raw(
            &format!("GET /?token={} HTTP/1.1\r\nHost: {}", self.token, self.host),
            "",
        )
    }

    /// A GET as the page makes it: this server's `Host` and the token's cookie.
    pub fn get(&self, path: &str) -> Reply {
        self.raw(
            &format!(
                "GET {path} HTTP/1.1\r\nHost: {}\r\nCookie: {}",
                self.host,
                self.cookie()
            ),
            "",
        )
    }

    /// A POST as the page makes it: `Host`, the cookie and the page's `Origin`.
    pub fn post(&self, path: &str, json: &str) -> Reply {
        self.raw(
            &format!(
                "POST {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n\
                 Cookie: {}\r\nContent-Type: application/json",
                self.cookie(),
                host = self.host
            ),
            json,
        )
    }

    /// Waits up to `within` for the server to end; its status and the rest of its output.
    pub fn wait(mut self, within: Duration) -> Option<(ExitStatus, String)> {
        let child = self.child.as_mut()?;
        let until = Instant::now() + within;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let mut rest = String::new();
                self.stdout.read_to_string(&mut rest).unwrap();
                self.child = None;
                return Some((status, rest));
            }
            if Instant::now() > until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's process id.
    pub fn id(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// The server's process, to kill it.
    pub fn take_child(&mut self) -> Child {
        self.child.take().expect("running")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Reads an HTTP/1.1 answer (a body of known length, or chunked).
fn parse(bytes: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(bytes);
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(name, value)| name == "transfer-encoding" && value.contains("chunked"));
    let body = if chunked {
        let mut out = String::new();
        let mut rest = body;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if size == 0 {
                break;
            }
            out.push_str(&after[..size]);
            rest = after[size..].trim_start_matches("\r\n");
        }
        out
    } else {
        body.to_owned()
    };
    Reply {
        status,
        headers,
        body,
    }
}
