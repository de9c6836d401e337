//! The README's mail walk-through ("Play a game by email") run as it is written, against
//! the test SMTP server (aiosmtpd) and the test IMAP server (Dovecot); and its "Try it on
//! one machine" section, which needs no server (blocks marked `try-alice`, `try-bob`
//! and `try-output`, see `the_readme_one_machine_try_out_prints_what_it_says`).
//!
//! The walk-through's blocks are marked by their info string: ```` ```sh walk-alice ````
//! and ```` ```sh walk-bob ```` hold the commands a player types, each followed by a
//! ```` ```text walk-output ```` block with what they print (standard output and
//! standard error, as a terminal shows them), and ```` ```yaml walk-config ```` is what
//! each player adds to their config. The commands run with the built pbem first on the
//! `PATH`, in two homes (`HOME` is Alice's or Bob's folder; nothing else of the
//! environment but the passwords the config names), one `sh` per block that stops at the
//! first failing command. The config is the README's with only the servers swapped: host,
//! port, `ca_file` and the login (user and password). Mail the SMTP server accepted is
//! delivered to the recipient's IMAP mailbox before each block, as a mail system would.
//!
//! Outputs are compared after the values that differ from run to run are replaced on both
//! sides by placeholders: a game id (`g-` date `-` 8 hex digits), a secret (32 hex
//! digits), a date and a time of day; in the output only, the home folder is `~` and the
//! test servers' addresses are the README's. A game id or secret the README shows stands
//! for the one the run printed at the same place, in every later command (a start of the
//! id too, as in `pbem move g-2026 c5`).
//!
//! A ```` ```sh walk-alice-page ```` block holds one `pbem play` command: it is started
//! in the player's home (`BROWSER=true`, so no browser is opened but the test's) and
//! its first line compared with the next output block, the address standing as
//! `<address>`; the page is then opened in headless Chromium, and the ```` ```text
//! walk-clicks ```` block that follows says what the player clicks there, in order: a
//! place of the board (`e2`) or a button by its label (`Confirm`). What the page's
//! `#messages` said after each button, one after the other, is compared with the output
//! block after the clicks; then the server stops.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::imap::{self, ImapServer};
use crate::play_page::PlayServer;
use crate::smtp::{self, Options, SmtpServer};
use crate::webdriver::{Driver, Session};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    let mut tests = crate::tests![&[Need::Smtp, Need::Imap, Need::Chromium];
        the_readme_mail_walk_through_prints_what_it_says,
    ];
    tests.extend(crate::tests![&[];
        the_readme_one_machine_try_out_prints_what_it_says,
    ]);
    tests
}

/// A marked block of the walk-through.
#[derive(Debug)]
enum Block {
    /// Commands a player types (`alice` or `bob`).
    Commands {
        player: String,
        script: String,
        line: usize,
    },
    /// What the commands just before print.
    Output { text: String },
    /// What each player adds to their config file.
    Config { yaml: String },
    /// `pbem play`, started by a player (`alice` or `bob`), which runs on.
    Page {
        player: String,
        command: String,
        line: usize,
    },
    /// What the player clicks on the page just started: places and button labels.
    Clicks { words: Vec<String>, line: usize },
}

/// The blocks of a Markdown text marked with `prefix` (`walk-`, `try-`), in order.
fn blocks(markdown: &str, prefix: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut lines = markdown.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let mut body = String::new();
        for (_, inner) in lines.by_ref() {
            if inner.trim_start().starts_with("```") {
                break;
            }
            body.push_str(inner);
            body.push('\n');
        }
        let Some(mark) = info
            .split_whitespace()
            .find_map(|word| word.strip_prefix(prefix))
        else {
            continue;
        };
        found.push(match mark {
            "output" => Block::Output { text: body },
            "config" => Block::Config { yaml: body },
            "clicks" => Block::Clicks {
                words: body.split_whitespace().map(str::to_owned).collect(),
                line: number + 1,
            },
            _ if mark.ends_with("-page") => Block::Page {
                player: mark.trim_end_matches("-page").to_owned(),
                command: body.trim().to_owned(),
                line: number + 1,
            },
            _ => Block::Commands {
                player: mark.to_owned(),
                script: body,
                line: number + 1,
            },
        });
    }
    found
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Game,
    Secret,
    Date,
    Time,
    /// The address `pbem play` prints, with its port and token.
    Address,
}

impl Kind {
    fn placeholder(self) -> &'static str {
        match self {
            Kind::Game => "<game id>",
            Kind::Secret => "<secret>",
            Kind::Date => "<date>",
            Kind::Time => "<time>",
            Kind::Address => "<address>",
        }
    }
}

/// The values that vary from run to run in `text`: byte ranges and kinds.
fn varying(text: &str) -> Vec<(usize, usize, Kind)> {
    let bytes = text.as_bytes();
    let digits = |from: usize, count: usize| {
        from + count <= bytes.len() && bytes[from..from + count].iter().all(u8::is_ascii_digit)
    };
    let hex = |from: usize, count: usize| {
        from + count <= bytes.len()
            && bytes[from..from + count]
                .iter()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(byte))
    };
    let at = |index: usize| bytes.get(index).copied();
    let word = |byte: Option<u8>| byte.is_some_and(|byte| byte.is_ascii_alphanumeric());
    let mut found = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        let starts = index == 0 || !word(at(index - 1));
        let matched = if !starts {
            None
        } else if let Some(length) = play_address(&bytes[index..]) {
            Some((length, Kind::Address))
        } else if bytes[index..].starts_with(b"g-")
            && digits(index + 2, 8)
            && at(index + 10) == Some(b'-')
            && hex(index + 11, 8)
            && !word(at(index + 19))
        {
            Some((19, Kind::Game))
        } else if hex(index, 32) && !word(at(index + 32)) {
            Some((32, Kind::Secret))
        } else if digits(index, 4)
            && at(index + 4) == Some(b'-')
            && digits(index + 5, 2)
            && at(index + 7) == Some(b'-')
            && digits(index + 8, 2)
        {
            Some((10, Kind::Date))
        } else if digits(index, 2) && at(index + 2) == Some(b':') && digits(index + 3, 2) {
            if at(index + 5) == Some(b':') && digits(index + 6, 2) {
                Some((8, Kind::Time))
            } else {
                Some((5, Kind::Time))
            }
        } else {
            None
        };
        match matched {
            Some((length, kind)) => {
                found.push((index, index + length, kind));
                index += length;
            }
            None => index += 1,
        }
    }
    found
}

/// The length of the address `pbem play` prints (`http://127.0.0.1:PORT/?token=HEX`)
/// at the start of `bytes`, if one is there.
fn play_address(bytes: &[u8]) -> Option<usize> {
    let start = b"http://127.0.0.1:";
    let rest = bytes.strip_prefix(start)?;
    let port = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let rest = rest[port..].strip_prefix(b"/?token=")?;
    let token = rest
        .iter()
        .take_while(|byte| byte.is_ascii_hexdigit())
        .count();
    (port > 0 && token > 0).then_some(start.len() + port + "/?token=".len() + token)
}

/// `text` with its varying values replaced by placeholders, each line's trailing blanks
/// and the trailing blank lines dropped.
fn normalized(text: &str) -> String {
    let mut out = String::new();
    let mut last = 0;
    for (start, end, kind) in varying(text) {
        out.push_str(&text[last..start]);
        out.push_str(kind.placeholder());
        last = end;
    }
    out.push_str(&text[last..]);
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end().to_owned()
}

/// The values of a kind in `text`, in order.
fn values(text: &str, kind: Kind) -> Vec<String> {
    varying(text)
        .into_iter()
        .filter(|(_, _, found)| *found == kind)
        .map(|(start, end, _)| text[start..end].to_owned())
        .collect()
}

/// What the README's game ids and secrets stand for in this run.
#[derive(Default)]
struct Bindings(HashMap<String, String>);

impl Bindings {
    /// Pairs the README's values with the run's at the same places.
    fn bind(&mut self, expected: &str, actual: &str) -> Result<(), String> {
        for kind in [Kind::Game, Kind::Secret] {
            for (readme, run) in values(expected, kind).into_iter().zip(values(actual, kind)) {
                if let Some(earlier) = self.0.get(&readme)
                    && *earlier != run
                {
                    return Err(format!(
                        "the README's {readme} stood for {earlier} and now for {run}"
                    ));
                }
                self.0.insert(readme, run);
            }
        }
        Ok(())
    }

    /// A script with the README's values replaced by the run's; a start of a game id
    /// (a word `g-...` that begins one) by the same start of the run's.
    fn apply(&self, script: &str) -> String {
        let mut script = script.to_owned();
        for (readme, run) in &self.0 {
            script = script.replace(readme.as_str(), run);
        }
        let mut out = String::new();
        let mut rest = script.as_str();
        while let Some(start) = rest.find("g-") {
            let before = rest[..start].chars().next_back();
            out.push_str(&rest[..start]);
            let word_end = rest[start..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .map_or(rest.len(), |end| start + end);
            let word = &rest[start..word_end];
            let replaced = if before.is_some_and(|c| c.is_ascii_alphanumeric()) {
                None
            } else {
                self.0.iter().find_map(|(readme, run)| {
                    (readme.starts_with("g-") && readme.starts_with(word) && word.len() > 2)
                        .then(|| run[..word.len()].to_owned())
                })
            };
            out.push_str(replaced.as_deref().unwrap_or(word));
            rest = &rest[word_end..];
        }
        out.push_str(rest);
        out
    }
}

/// The README's config made to reach the test servers.
struct Adapted {
    /// The config text to append to a player's config file.
    yaml: String,
    /// The environment variables the config names, with the test passwords.
    passwords: Vec<(String, String)>,
    /// The test servers' addresses and the README's for them.
    addresses: Vec<(String, String)>,
}

/// The README's `yaml` with host, port, ca_file and the login of the smtp and imap
/// sections replaced by the test servers' (the imap user is the player's address).
fn adapt(yaml: &str, email: &str, smtp: &SmtpServer, imap: &ImapServer) -> Adapted {
    let mut adapted = Adapted {
        yaml: String::new(),
        passwords: Vec::new(),
        addresses: Vec::new(),
    };
    let mut section = String::new();
    let mut fields: HashMap<String, String> = HashMap::new();
    let flush = |section: &str, fields: &mut HashMap<String, String>, out: &mut Adapted| {
        let security = fields.get("security").cloned().unwrap_or_default();
        let (port, user, password, default_port) = match section {
            "smtp" => (
                smtp.port,
                smtp.user.to_owned(),
                smtp.password.to_owned(),
                match security.as_str() {
                    "tls" => 465,
                    "plain" => 25,
                    _ => 587,
                },
            ),
            "imap" => {
                let starttls = security == "starttls";
                (
                    if starttls {
                        imap.starttls_port
                    } else {
                        imap.tls_port
                    },
                    email.to_owned(),
                    imap::PASSWORD.to_owned(),
                    if starttls { 143 } else { 993 },
                )
            }
            _ => return,
        };
        let ca = if section == "smtp" {
            &smtp.ca_file
        } else {
            &imap.ca_file
        };
        out.yaml.push_str(&format!(
            "  host: 127.0.0.1\n  port: {port}\n  user: {user}\n  ca_file: {}\n",
            ca.display()
        ));
        let host = fields.get("host").cloned().unwrap_or_default();
        let readme_port = fields
            .get("port")
            .cloned()
            .unwrap_or_else(|| default_port.to_string());
        out.addresses
            .push((format!("127.0.0.1:{port}"), format!("{host}:{readme_port}")));
        if let Some(variable) = fields.get("password_env") {
            out.passwords.push((variable.clone(), password));
        }
        fields.clear();
    };
    for line in yaml.lines() {
        let code = line.split(" #").next().unwrap_or_default().trim_end();
        if !line.starts_with([' ', '#']) && code.ends_with(':') {
            flush(&section, &mut fields, &mut adapted);
            section = code.trim_end_matches(':').to_owned();
            adapted.yaml.push_str(line);
            adapted.yaml.push('\n');
            continue;
        }
        if let Some((key, value)) = code.trim_start().split_once(':')
            && !code.trim_start().starts_with('#')
        {
            let key = key.trim().to_owned();
            fields.insert(key.clone(), value.trim().to_owned());
            if matches!(key.as_str(), "host" | "port" | "user" | "ca_file") {
                continue;
            }
        }
        adapted.yaml.push_str(line);
        adapted.yaml.push('\n');
    }
    flush(&section, &mut fields, &mut adapted);
    adapted
}

/// A player's home.
struct Home {
    email: String,
    dir: PathBuf,
    passwords: Vec<(String, String)>,
    addresses: Vec<(String, String)>,
}

impl Home {
    /// `program` in the player's home and environment: the built pbem first on the
    /// `PATH`, `HOME` the player's folder, the passwords the config names, and no
    /// browser to open (`BROWSER=true`) but the test's.
    fn command(&self, program: &str) -> Command {
        let bin = Path::new(env!("CARGO_BIN_EXE_pbem")).parent().unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".to_owned())
        );
        let mut command = Command::new(program);
        command
            .current_dir(&self.dir)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &self.dir)
            .env("BROWSER", "true");
        for (variable, password) in &self.passwords {
            command.env(variable, password);
        }
        command
    }

    /// Runs a block's commands as the player types them; their exit status and what
    /// they print.
    fn run(&self, script: &str) -> (bool, String) {
        let mut command = self.command("sh");
        command
            .arg("-c")
            .arg(format!("set -e\nexec 2>&1\n{script}"))
            .stdin(Stdio::null())
            .stderr(Stdio::inherit());
        let output = command.output().expect("sh runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    }

    /// What the player saw, with the home as `~` and the servers as the README's.
    fn shown(&self, output: &str) -> String {
        let mut output = output.replace(&self.dir.display().to_string(), "~");
        for (test, readme) in &self.addresses {
            output = output.replace(test, readme);
        }
        output
    }
}

fn the_readme_mail_walk_through_prints_what_it_says() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let blocks = blocks(&readme, "walk-");
    let steps = blocks
        .iter()
        .filter(|block| matches!(block, Block::Commands { .. }))
        .count();
    assert!(
        steps >= 6,
        "the README's walk-through has {steps} marked command blocks: {blocks:?}"
    );

    let imap = imap::start("walk-through");
    let smtp = smtp::start("walk-through", Options::default());
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("walk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut homes: HashMap<String, Home> = HashMap::new();
    for player in ["alice", "bob"] {
        let dir = root.join(player);
        std::fs::create_dir_all(&dir).unwrap();
        homes.insert(
            player.to_owned(),
            Home {
                email: format!("{player}@example.org"),
                dir,
                passwords: Vec::new(),
                addresses: Vec::new(),
            },
        );
    }
    let mut bindings = Bindings::default();
    let mut mail = Mail {
        smtp: &smtp,
        imap: &imap,
        relayed: 0,
    };
    let mut failures = Vec::new();
    let driver = Driver::start();
    let mut page: Option<(PlayServer, Session, String)> = None;
    let mut blocks = blocks.into_iter().peekable();
    while let Some(block) = blocks.next() {
        match block {
            Block::Config { yaml } => {
                for home in homes.values_mut() {
                    let adapted = adapt(&yaml, &home.email, &smtp, &imap);
                    let config = home.dir.join(".config/pbem/config.yaml");
                    let written = std::fs::read_to_string(&config).unwrap_or_else(|error| {
                        panic!(
                            "{}: no config before the README's config block: {error}",
                            config.display()
                        )
                    });
                    std::fs::write(&config, format!("{written}{}", adapted.yaml)).unwrap();
                    home.passwords = adapted.passwords;
                    home.addresses = adapted.addresses;
                }
            }
            Block::Output { .. } => panic!("README.md: a walk-output block follows no commands"),
            Block::Page {
                player,
                command,
                line,
            } => {
                let (expected, home) = step_start(&mut blocks, &homes, &player, line, &mut mail);
                let command = bindings.apply(&command);
                let words: Vec<&str> = command.split_whitespace().collect();
                assert_eq!(
                    words.first(),
                    Some(&"pbem"),
                    "README.md line {line}: a page block holds one pbem command"
                );
                let mut program = home.command(env!("CARGO_BIN_EXE_pbem"));
                program.args(&words[1..]);
                let server = PlayServer::spawn(program);
                let shown = home.shown(&format!("pbem play: open {}\n", server.opening));
                failures.extend(step_differs(
                    line,
                    &player,
                    &command,
                    &expected,
                    true,
                    &shown,
                    &mut bindings,
                ));
                let session = Session::open(&driver);
                session.go(&server.opening);
                server.wait_ready(&session);
                page = Some((server, session, player));
            }
            Block::Clicks { words, line } => {
                let expected = output_after(&mut blocks, line);
                let Some((server, session, player)) = page.take() else {
                    panic!("README.md line {line}: clicks, but no page is open");
                };
                let mut said = String::new();
                for word in &words {
                    if word.chars().next().is_some_and(char::is_uppercase) {
                        let id = session.script_with(
                            "var label = arguments[0];\
                             var b = Array.prototype.find.call(document.querySelectorAll('button'),\
                               function (b) { return b.textContent.trim() === label; });\
                             return b ? b.id : null;",
                            &[serde_json::json!(word)],
                        );
                        let id = id.as_str().unwrap_or_else(|| {
                            panic!("README.md line {line}: no button {word} on the page")
                        });
                        said.push_str(&server.press(&session, &format!("#{id}")));
                    } else {
                        server.click_place(&session, word);
                    }
                }
                failures.extend(step_differs(
                    line,
                    &player,
                    &words.join(" "),
                    &expected,
                    true,
                    &said,
                    &mut bindings,
                ));
                // Away from the page before its server stops.
                session.go("about:blank");
            }
            Block::Commands {
                player,
                script,
                line,
            } => {
                let (expected, home) = step_start(&mut blocks, &homes, &player, line, &mut mail);
                let script = bindings.apply(&script);
                let (success, output) = home.run(&script);
                let shown = home.shown(&output);
                failures.extend(step_differs(
                    line,
                    &player,
                    &script,
                    &expected,
                    success,
                    &shown,
                    &mut bindings,
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        failures.is_empty(),
        "{} of {steps} steps of the README's walk-through differ:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        mail.relayed > 0,
        "no mail went from one player to the other"
    );
}

type Blocks = std::iter::Peekable<std::vec::IntoIter<Block>>;

/// The output block that must follow the block of README.md line `line`.
fn output_after(blocks: &mut Blocks, line: usize) -> String {
    match blocks.next_if(|next| matches!(next, Block::Output { .. })) {
        Some(Block::Output { text }) => text,
        _ => panic!("README.md line {line}: no walk-output block after it"),
    }
}

/// The start of `player`'s step at README.md line `line`: what the README says it prints
/// (the output block after it) and the player's home, once the mail the SMTP server
/// accepted has reached the IMAP mailboxes.
fn step_start<'h>(
    blocks: &mut Blocks,
    homes: &'h HashMap<String, Home>,
    player: &str,
    line: usize,
    mail: &mut Mail,
) -> (String, &'h Home) {
    let expected = output_after(blocks, line);
    let home = homes
        .get(player)
        .unwrap_or_else(|| panic!("README.md line {line}: no player {player}"));
    imap::relay(mail.smtp, mail.imap, &mut mail.relayed);
    (expected, home)
}

/// The test mail servers between the players, and how many mails went from one to the
/// other.
struct Mail<'s> {
    smtp: &'s SmtpServer,
    imap: &'s ImapServer,
    relayed: usize,
}

/// How a step of the README (`player` runs `script`, from README.md line `line`) differs
/// from what the README says it prints (`expected`), given whether the run succeeded and
/// what it printed (`shown`): the run failed or printed otherwise, or the README's
/// placeholders do not bind to what it printed (`bindings` learns those that do). None
/// when the step is as the README says.
fn step_differs(
    line: usize,
    player: &str,
    script: &str,
    expected: &str,
    success: bool,
    shown: &str,
    bindings: &mut Bindings,
) -> Option<String> {
    let bound = bindings.bind(expected, shown);
    if !success || normalized(shown) != normalized(expected) {
        Some(format!(
            "README.md line {line}, {player} runs:\n{script}{}\nthe README says:\n{expected}\nthe run printed:\n{shown}\n(compared as)\n{}\n",
            if success { "" } else { "(and it failed)" },
            normalized(shown)
        ))
    } else if let Err(why) = bound {
        Some(format!("README.md line {line}: {why}"))
    } else {
        None
    }
}

/// The README's "Try it on one machine" section run as it is written: two players on one
/// machine, each in a terminal of their own (the blocks marked `try-alice` and `try-bob`,
/// each followed by a `try-output` block), sharing a folder instead of mail servers. Both
/// terminals start in the same scratch home (`HOME`, shown as `~`); what a player
/// `export`s in a block stays set in their later blocks, as it does in a terminal.
fn the_readme_one_machine_try_out_prints_what_it_says() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let blocks = blocks(&readme, "try-");
    let players: std::collections::BTreeSet<&str> = blocks
        .iter()
        .filter_map(|block| match block {
            Block::Commands { player, .. } => Some(player.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        players.into_iter().collect::<Vec<_>>(),
        ["alice", "bob"],
        "the README's try-out has commands for Alice and Bob: {blocks:?}"
    );
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("try-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let terminal = Home {
        email: String::new(),
        dir: root.clone(),
        passwords: Vec::new(),
        addresses: Vec::new(),
    };
    // Each player's exports so far: their terminal's environment.
    let mut exported: HashMap<String, String> = HashMap::new();
    let mut bindings = Bindings::default();
    let mut failures = Vec::new();
    let mut steps = 0;
    let mut blocks = blocks.into_iter().peekable();
    while let Some(block) = blocks.next() {
        let Block::Commands {
            player,
            script,
            line,
        } = block
        else {
            panic!(
                "README.md: a try- block that is not a player's commands comes before any: {block:?}"
            );
        };
        let Some(Block::Output { text: expected }) =
            blocks.next_if(|next| matches!(next, Block::Output { .. }))
        else {
            panic!("README.md line {line}: the commands have no try-output block after them");
        };
        steps += 1;
        let script = bindings.apply(&script);
        let environment = exported.entry(player.clone()).or_default();
        let (success, output) = terminal.run(&format!("{environment}{script}"));
        for export in script
            .lines()
            .filter(|command| command.trim_start().starts_with("export "))
        {
            environment.push_str(export);
            environment.push('\n');
        }
        let shown = terminal.shown(&output);
        failures.extend(step_differs(
            line,
            &player,
            &script,
            &expected,
            success,
            &shown,
            &mut bindings,
        ));
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(steps >= 4, "the README's try-out has {steps} steps");
    // One of its steps is a conditional reply played by `pbem sync` (issue 35).
    assert!(
        readme.contains("played your conditional reply"),
        "the README's try-out shows no conditional reply"
    );
    assert!(
        failures.is_empty(),
        "{} of {steps} steps of the README's try-out differ:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
