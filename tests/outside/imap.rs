//! `pbem receive --imap`, `pbem sync` and `config check` against a real IMAP server:
//! Dovecot from Debian's packages (`.ci/imap-setup` installs it), started per test on
//! 127.0.0.1 only, configured in a scratch folder (TLS on one port and STARTTLS on
//! another with a certificate from a test CA made by openssl, a passwd-file with two
//! users, Maildirs). Mail reaches a user's mailbox as a delivery agent leaves it: a file
//! in the Maildir's `new/`. The tests declare [`Need::Imap`]; without dovecot or openssl
//! they show as ignored (and fail under CI).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::smtp::{self, Options, SmtpServer};
use crate::support::homes::assert_error;
use crate::support::homes::{Homes, Player, game_path, mail_of, ok, text};
use crate::support::homes::{assert_taken_in_by_ply, two_mails_in_one_second};
use crate::support::mail::{self, message_id};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    let mut tests = crate::tests![&[Need::Imap];
        receive_takes_in_pbem_mail_and_typed_replies_and_leaves_other_mail,
        seen_move_and_leave_do_what_they_say_and_a_refused_mail_stays_untouched,
        faults_are_clear_errors_naming_the_server,
        a_connection_dropped_half_way_loses_nothing_and_the_next_run_finishes,
        a_mail_deleted_on_the_server_during_a_run_is_passed_over,
        config_check_logs_in_over_tls_and_starttls,
        two_mails_of_a_game_that_reach_the_server_out_of_order_are_taken_in_by_ply,
    ];
    tests.extend(crate::tests![&[Need::Imap, Need::Smtp];
        two_players_play_a_short_game_with_pbem_sync_through_smtp_and_imap,
        a_turn_typed_from_a_phone_comes_back_to_its_author_through_smtp_and_imap,
    ]);
    tests
}

/// Whether dovecot and openssl are here.
pub fn probe() -> Result<(), String> {
    let runs = |program: &str, arg: &str| {
        Command::new(program)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|error| format!("cannot run {program}: {error}"))
            .and_then(|status| {
                if status.success() {
                    Ok(())
                } else {
                    Err(format!("{program} {arg} exited with {status}"))
                }
            })
    };
    runs("dovecot", "--version")
        .and_then(|()| runs("openssl", "version"))
        .map_err(|why| {
            format!("needs the test IMAP server (dovecot, openssl): {why}; run .ci/imap-setup")
        })
}

/// The environment variable that the configs of [`ImapServer::config`] read the password from.
pub const PASSWORD_VARIABLE: &str = "PBEM_TEST_IMAP_PASSWORD";
/// The password of both users.
pub const PASSWORD: &str = "imap horse";

/// A running Dovecot. Dropping it stops it and removes its folder.
pub struct ImapServer {
    /// The TLS port at 127.0.0.1.
    pub tls_port: u16,
    /// The STARTTLS port at 127.0.0.1.
    pub starttls_port: u16,
    /// The test CA's certificate.
    pub ca_file: PathBuf,
    folder: PathBuf,
    mail_owner: Option<(u32, u32)>,
    child: Child,
}

impl Drop for ImapServer {
    fn drop(&mut self) {
        // SIGTERM: the master stops its login and mail processes too.
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

fn output_of(command: &mut Command) -> String {
    let output = command.output().expect("runs");
    assert!(
        output.status.success(),
        "{command:?}: {}",
        text(&output.stderr)
    );
    text(&output.stdout).trim().to_owned()
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    listener.local_addr().expect("local address").port()
}

/// Starts a Dovecot with the users alice@example.org and bob@example.org.
pub fn start(test: &str) -> ImapServer {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "imap-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&folder);
    for sub in ["run", "state", "home"] {
        std::fs::create_dir_all(folder.join(sub)).unwrap();
    }
    // A test CA and a server certificate it signs, for 127.0.0.1 and localhost.
    let openssl = |args: &[&str]| {
        let output = Command::new("openssl")
            .args(args)
            .current_dir(&folder)
            .output()
            .expect("openssl runs");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            text(&output.stderr)
        );
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=pbem test CA",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    std::fs::write(
        folder.join("san.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    ]);
    std::fs::write(
        folder.join("passwd"),
        format!("alice@example.org:{{PLAIN}}{PASSWORD}\nbob@example.org:{{PLAIN}}{PASSWORD}\n"),
    )
    .unwrap();

    // As root, Dovecot's own unprivileged users log in and own the mail; otherwise the
    // user running the tests is everything.
    let root = output_of(Command::new("id").arg("-u")) == "0";
    let (internal, login, mail_owner) = if root {
        let uid: u32 = output_of(Command::new("id").args(["-u", "dovecot"]))
            .parse()
            .unwrap();
        let gid: u32 = output_of(Command::new("id").args(["-g", "dovecot"]))
            .parse()
            .unwrap();
        std::os::unix::fs::chown(folder.join("home"), Some(uid), Some(gid)).unwrap();
        (
            "dovecot".to_owned(),
            "dovenull".to_owned(),
            Some((uid, gid)),
        )
    } else {
        let me = output_of(Command::new("id").arg("-un"));
        (me.clone(), me, None)
    };
    let (uid, gid) = match mail_owner {
        Some(owner) => owner,
        None => (
            output_of(Command::new("id").arg("-u")).parse().unwrap(),
            output_of(Command::new("id").arg("-g")).parse().unwrap(),
        ),
    };
    let group = output_of(Command::new("id").args(["-gn", &internal]));
    let tls_port = free_port();
    let starttls_port = free_port();
    let dir = folder.display();
    let config = format!(
        "base_dir = {dir}/run\nstate_dir = {dir}/state\nlog_path = {dir}/dovecot.log\n\
         protocols = imap\nlisten = 127.0.0.1\nssl = required\n\
         ssl_cert = <{dir}/server.pem\nssl_key = <{dir}/server.key\n\
         auth_mechanisms = plain login\nfirst_valid_uid = 1\n\
         default_internal_user = {internal}\ndefault_internal_group = {group}\n\
         default_login_user = {login}\n\
         passdb {{\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u {dir}/passwd\n}}\n\
         userdb {{\n  driver = static\n  args = uid={uid} gid={gid} home={dir}/home/%u\n}}\n\
         mail_location = maildir:~/Maildir\n\
         service imap-login {{\n  chroot =\n\
           inet_listener imap {{\n    address = 127.0.0.1\n    port = {starttls_port}\n  }}\n\
           inet_listener imaps {{\n    address = 127.0.0.1\n    port = {tls_port}\n    ssl = yes\n  }}\n}}\n\
         service anvil {{\n  chroot =\n}}\n"
    );
    std::fs::write(folder.join("dovecot.conf"), config).unwrap();
    let mut child = Command::new("dovecot")
        .arg("-F")
        .arg("-c")
        .arg(folder.join("dovecot.conf"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dovecot runs");
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let up = [tls_port, starttls_port]
            .iter()
            .all(|port| std::net::TcpStream::connect(("127.0.0.1", *port)).is_ok());
        if up {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(folder.join("dovecot.log")).unwrap_or_default();
            panic!("{test}: dovecot ended ({status}): {log}");
        }
        assert!(
            Instant::now() < until,
            "{test}: dovecot did not listen in time"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    ImapServer {
        tls_port,
        starttls_port,
        ca_file: folder.join("ca.pem"),
        folder,
        mail_owner,
        child,
    }
}

impl ImapServer {
    /// A user's Maildir on the server (made on first use).
    pub fn maildir(&self, user: &str) -> PathBuf {
        let dir = self.folder.join("home").join(user).join("Maildir");
        for sub in ["new", "cur", "tmp"] {
            let path = dir.join(sub);
            if !path.is_dir() {
                std::fs::create_dir_all(&path).unwrap();
                self.own(&path);
                self.own(&dir);
                self.own(dir.parent().unwrap());
            }
        }
        dir
    }

    fn own(&self, path: &Path) {
        if let Some((uid, gid)) = self.mail_owner {
            std::os::unix::fs::chown(path, Some(uid), Some(gid)).unwrap();
        }
    }

    /// Delivers a mail to a user, as a delivery agent does; returns its file name in `new/`.
    pub fn deliver(&self, user: &str, bytes: &[u8]) -> String {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = self.maildir(user);
        let name = format!(
            "17620{:05}.M{}P{}.test",
            COUNTER.fetch_add(1, Ordering::Relaxed),
            COUNTER.load(Ordering::Relaxed),
            std::process::id()
        );
        let temporary = dir.join("tmp").join(&name);
        std::fs::write(&temporary, bytes).unwrap();
        self.own(&temporary);
        std::fs::rename(&temporary, dir.join("new").join(&name)).unwrap();
        name
    }

    /// The server's log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.folder.join("dovecot.log")).unwrap_or_default()
    }

    /// The imap section of a config file for this server.
    pub fn config(&self, user: &str, starttls: bool, after: &str) -> String {
        let (port, security) = if starttls {
            (self.starttls_port, "starttls")
        } else {
            (self.tls_port, "tls")
        };
        format!(
            "imap:\n  host: 127.0.0.1\n  port: {port}\n  security: {security}\n  user: {user}\n  password_env: {PASSWORD_VARIABLE}\n  ca_file: {}\n  timeout_seconds: 10\n{after}",
            self.ca_file.display()
        )
    }
}

/// Where a mail delivered as `name` with these bytes is now: `new/...`, `cur/...:2,S`,
/// `.pbem/cur/...` (a file of the same name or the same content); `None` when nowhere.
fn place(maildir: &Path, name: &str, bytes: &[u8]) -> Option<String> {
    let mut folders = vec![PathBuf::from("new"), PathBuf::from("cur")];
    for entry in std::fs::read_dir(maildir).unwrap().flatten() {
        let folder = entry.file_name().to_string_lossy().into_owned();
        if folder.starts_with('.') && entry.path().is_dir() {
            folders.push(PathBuf::from(&folder).join("new"));
            folders.push(PathBuf::from(&folder).join("cur"));
        }
    }
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(maildir.join(&folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.split(':').next() == Some(name)
                || std::fs::read(entry.path()).ok().as_deref() == Some(bytes)
            {
                return Some(format!("{}/{file}", folder.display()));
            }
        }
    }
    None
}

/// Whether a delivered mail is as it was: in the folder read, without any flag, with its
/// content. (Dovecot itself moves a mail from `new/` to `cur/` once a client has seen
/// the folder, without a flag: that is the server's bookkeeping, not pbem's.)
fn untouched(maildir: &Path, name: &str, bytes: &[u8]) -> bool {
    let Some(at) = place(maildir, name, bytes) else {
        return false;
    };
    let flags = at.split_once(":2,").map_or("", |(_, flags)| flags);
    (at.starts_with("new/") || at.starts_with("cur/"))
        && flags.is_empty()
        && std::fs::read(maildir.join(&at)).ok().as_deref() == Some(bytes)
}

fn seen_in(maildir: &Path, folder: &str, name: &str, bytes: &[u8]) -> bool {
    place(maildir, name, bytes).is_some_and(|at| {
        at.starts_with(folder)
            && at
                .split_once(":2,")
                .is_some_and(|(_, flags)| flags.contains('S'))
            || (folder.starts_with('.') && at.starts_with(folder))
    })
}

fn pbem(player: &Player, now: &str, args: &[&str], smtp: Option<&SmtpServer>) -> Output {
    let mut env = vec![(PASSWORD_VARIABLE, PASSWORD)];
    if let Some(server) = smtp {
        env.push((smtp::PASSWORD_VARIABLE, server.password));
    }
    player.run_with(now, args, &env)
}

/// The latest state of a game as a mail, written with `send --dry-run`.
fn dry_run(player: &Player, now: &str, id: &str) -> Vec<u8> {
    std::fs::read(mail_of(player, now, id)).unwrap()
}

/// A reply typed on a phone to Alice's mail `answered`.
fn hand_reply(from: &str, first: &str, tag: &str, answered: &[u8]) -> Vec<u8> {
    mail::hand_reply(
        from,
        "alice@example.org",
        first,
        &format!("{tag}@phone.example.org"),
        Some(&message_id(answered)),
    )
}

const OTHER: &[u8] = b"From: Carol <carol@example.org>\r\nTo: alice@example.org\r\n\
Subject: lunch on Sunday\r\nMessage-ID: <lunch@example.org>\r\n\r\nSee you at noon.\r\n";

fn receive_takes_in_pbem_mail_and_typed_replies_and_leaves_other_mail() {
    let server = start("receive");
    let homes = Homes::new("imap-receive", "");
    homes
        .alice
        .set_sections(&server.config("alice@example.org", false, ""));
    homes
        .bob
        .set_sections(&server.config("bob@example.org", false, ""));
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let first = dry_run(&homes.alice, "2026-11-01T10:00:00Z", &id);
    let pbem_name = server.deliver("bob@example.org", &first);
    let other_name = server.deliver("bob@example.org", OTHER);
    let taken = ok(&pbem(
        &homes.bob,
        "2026-11-01T11:00:00Z",
        &["receive", "--imap"],
        None,
    ));
    assert!(
        taken.contains("new game from alice@example.org, last turn 1. e4"),
        "{taken}"
    );
    let bob_box = server.maildir("bob@example.org");
    assert!(
        seen_in(&bob_box, "cur/", &pbem_name, &first),
        "{:?}",
        place(&bob_box, &pbem_name, &first)
    );
    assert!(
        untouched(&bob_box, &other_name, OTHER),
        "{:?}",
        place(&bob_box, &other_name, OTHER)
    );
    let again = ok(&pbem(
        &homes.bob,
        "2026-11-01T11:05:00Z",
        &["receive", "--imap"],
        None,
    ));
    assert_eq!(again.trim(), "no new moves");

    // Bob answers from his phone: a turn typed by hand, taken in by Alice over IMAP.
    let reply = hand_reply("Bob <bob@example.org>", "1... c5", "typed-1", &first);
    server.deliver("alice@example.org", &reply);
    let taken = ok(&pbem(
        &homes.alice,
        "2026-11-01T12:00:00Z",
        &["receive", "--imap"],
        None,
    ));
    assert!(
        taken.contains("bob@example.org played 1... c5 (typed by hand)"),
        "{taken}"
    );
}

fn seen_move_and_leave_do_what_they_say_and_a_refused_mail_stays_untouched() {
    let server = start("after");
    let homes = Homes::new("imap-after", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "d4"]));
    let first = dry_run(&homes.alice, "2026-11-01T10:00:00Z", &id);
    let alice_box = server.maildir("alice@example.org");

    // move: the reply goes to the folder pbem (made on the way).
    homes.alice.set_sections(&server.config(
        "alice@example.org",
        false,
        "  after: move\n  move_to: pbem\n",
    ));
    let moved_mail = hand_reply("Bob <bob@example.org>", "d5", "r-move", &first);
    let moved = server.deliver("alice@example.org", &moved_mail);
    // A forged reply (another sender) is refused and stays exactly where it was.
    let forged = hand_reply("Mallory <mallory@example.org>", "e5", "r-forged", &first);
    let forged_name = server.deliver("alice@example.org", &forged);
    let output = pbem(
        &homes.alice,
        "2026-11-01T11:00:00Z",
        &["receive", "--imap"],
        None,
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    let said = text(&output.stdout);
    assert!(said.contains("played 1... d5 (typed by hand)"), "{said}");
    assert!(said.contains("comes from mallory@example.org"), "{said}");
    assert!(
        seen_in(&alice_box, ".pbem/", &moved, &moved_mail),
        "{:?}",
        place(&alice_box, &moved, &moved_mail)
    );
    assert!(
        untouched(&alice_box, &forged_name, &forged),
        "{:?}",
        place(&alice_box, &forged_name, &forged)
    );

    // leave: the next reply stays in new/ without a flag, and is not taken in twice.
    ok(&homes
        .alice
        .run("2026-11-01T12:00:00Z", &["move", &id, "c4"]));
    let second = dry_run(&homes.alice, "2026-11-01T12:00:00Z", &id);
    homes
        .alice
        .set_sections(&server.config("alice@example.org", false, "  after: leave\n"));
    let left_mail = hand_reply("Bob <bob@example.org>", "e6", "r-leave", &second);
    let left = server.deliver("alice@example.org", &left_mail);
    let taken = ok(&pbem(
        &homes.alice,
        "2026-11-01T13:00:00Z",
        &["receive", "--imap"],
        None,
    ));
    assert!(taken.contains("played 2... e6 (typed by hand)"), "{taken}");
    assert!(
        untouched(&alice_box, &left, &left_mail),
        "{:?}",
        place(&alice_box, &left, &left_mail)
    );
    let again = ok(&pbem(
        &homes.alice,
        "2026-11-01T13:05:00Z",
        &["receive", "--imap"],
        None,
    ));
    assert_eq!(again.trim(), "no new moves");

    // seen: flagged \Seen in cur/.
    ok(&homes
        .alice
        .run("2026-11-01T14:00:00Z", &["move", &id, "Nc3"]));
    let third = dry_run(&homes.alice, "2026-11-01T14:00:00Z", &id);
    homes
        .alice
        .set_sections(&server.config("alice@example.org", true, "  after: seen\n"));
    let seen_mail = hand_reply("Bob <bob@example.org>", "Nf6", "r-seen", &third);
    let seen = server.deliver("alice@example.org", &seen_mail);
    let taken = ok(&pbem(
        &homes.alice,
        "2026-11-01T15:00:00Z",
        &["receive", "--imap"],
        None,
    ));
    assert!(taken.contains("played 3... Nf6 (typed by hand)"), "{taken}");
    assert!(
        seen_in(&alice_box, "cur/", &seen, &seen_mail),
        "{:?}",
        place(&alice_box, &seen, &seen_mail)
    );
    // The refused mail is still there, unflagged.
    assert!(
        untouched(&alice_box, &forged_name, &forged),
        "{:?}",
        place(&alice_box, &forged_name, &forged)
    );
}

fn faults_are_clear_errors_naming_the_server() {
    let server = start("faults");
    let homes = Homes::new("imap-faults", "");
    let alice = &homes.alice;
    alice.set_sections(&server.config("alice@example.org", false, ""));
    // A wrong password.
    let wrong = alice.run_with(
        "2026-11-01T10:00:00Z",
        &["receive", "--imap"],
        &[(PASSWORD_VARIABLE, "not it")],
    );
    assert_eq!(wrong.status.code(), Some(2));
    let said = text(&wrong.stderr);
    assert!(
        said.contains(&format!(
            "imap server 127.0.0.1:{} refused the login as alice@example.org",
            server.tls_port
        )),
        "{said}"
    );
    assert!(!said.contains("not it"), "{said}");
    // TLS failure: the test CA is not trusted without ca_file.
    let untrusted = server
        .config("alice@example.org", false, "")
        .replace(&format!("  ca_file: {}\n", server.ca_file.display()), "");
    alice.set_sections(&untrusted);
    let output = pbem(alice, "2026-11-01T10:00:00Z", &["receive", "--imap"], None);
    assert_error(&output, "unknown issuer");
    // The server down.
    let port = free_port();
    alice.set_sections(
        &server
            .config("alice@example.org", false, "")
            .replace(&server.tls_port.to_string(), &port.to_string()),
    );
    let output = pbem(alice, "2026-11-01T10:00:00Z", &["receive", "--imap"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains(&format!(
            "cannot connect to the imap server 127.0.0.1:{port}"
        )),
        "{}",
        text(&output.stderr)
    );
    // No imap section.
    alice.set_sections("");
    let output = pbem(alice, "2026-11-01T10:00:00Z", &["receive", "--imap"], None);
    assert_error(&output, "no imap section");
}

fn config_check_logs_in_over_tls_and_starttls() {
    let server = start("check");
    let homes = Homes::new("imap-check", "");
    for starttls in [false, true] {
        homes
            .bob
            .set_sections(&server.config("bob@example.org", starttls, ""));
        let checked = ok(&pbem(
            &homes.bob,
            "2026-11-01T10:00:00Z",
            &["config", "check"],
            None,
        ));
        assert!(
            checked.contains("imap: logged in as bob@example.org and opened INBOX"),
            "{checked}"
        );
    }
    let wrong = homes.bob.run_with(
        "2026-11-01T10:00:00Z",
        &["config", "check"],
        &[(PASSWORD_VARIABLE, "nope")],
    );
    assert_error(&wrong, "imap check failed");
}

/// Moves what the SMTP server accepted into the recipients' IMAP mailboxes.
pub fn relay(smtp: &SmtpServer, imap: &ImapServer, relayed: &mut usize) {
    let mut mails = smtp.delivered();
    mails.sort();
    for mail in mails {
        let header = text(&mail);
        let to = header
            .lines()
            .find_map(|line| line.strip_prefix("To: "))
            .unwrap()
            .to_owned();
        let user = if to.contains("bob@example.org") {
            "bob@example.org"
        } else {
            "alice@example.org"
        };
        let marker = smtp.maildir.join(format!(
            "relayed-{}",
            message_id(&mail).replace(['<', '>', '/'], "")
        ));
        if marker.exists() {
            continue;
        }
        std::fs::write(&marker, b"").unwrap();
        imap.deliver(user, &mail);
        *relayed += 1;
    }
}

/// Alice's and Bob's homes (named `name`) sending through `smtp` and taking mail in from
/// `imap`: Alice over TLS, Bob over STARTTLS with `bob_after` added to his imap section.
pub fn homes_by_mail(name: &str, smtp: &SmtpServer, imap: &ImapServer, bob_after: &str) -> Homes {
    let homes = Homes::new(name, "");
    let smtp_section = smtp.config_section();
    homes.alice.set_sections(&format!(
        "{smtp_section}{}",
        imap.config("alice@example.org", false, "")
    ));
    homes.bob.set_sections(&format!(
        "{smtp_section}{}",
        imap.config("bob@example.org", true, bob_after)
    ));
    homes
}

fn two_players_play_a_short_game_with_pbem_sync_through_smtp_and_imap() {
    let imap = start("sync");
    let smtp = smtp::start("sync", Options::default());
    let homes = homes_by_mail(
        "imap-sync",
        &smtp,
        &imap,
        "  after: move\n  move_to: Games\n",
    );
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let mut relayed = 0;
    // Fool's mate, each side syncing after its move.
    let turns = [
        (&homes.alice, "f3", "2026-11-01T10:00:00Z"),
        (&homes.bob, "e5", "2026-11-01T11:00:00Z"),
        (&homes.alice, "g4", "2026-11-01T12:00:00Z"),
        (&homes.bob, "Qh4#", "2026-11-01T13:00:00Z"),
    ];
    for (index, (player, turn, now)) in turns.iter().enumerate() {
        ok(&pbem(player, now, &["move", &id, turn], Some(&smtp)));
        // Sent offline (no SMTP password here): the mail waits in the outbox for sync.
        let offline = player.run_with(now, &["send", &id], &[(PASSWORD_VARIABLE, PASSWORD)]);
        assert_eq!(offline.status.code(), Some(2), "{}", text(&offline.stderr));
        let synced = ok(&pbem(player, now, &["sync"], Some(&smtp)));
        assert!(
            synced.contains(&format!("sent {id} (ply {})", index + 1)),
            "{synced}"
        );
        relay(&smtp, &imap, &mut relayed);
        let (_, other) = homes.mover_and_other(index);
        let synced = ok(&pbem(other, now, &["sync"], Some(&smtp)));
        assert!(synced.contains("the outbox is empty"), "{synced}");
        assert!(synced.contains(&format!(" {turn}")), "{synced}");
        assert!(synced.contains(&format!("changed: {id}")), "{synced}");
    }
    assert_eq!(relayed, 4);
    let alices = std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap();
    let bobs = std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap();
    assert_eq!(alices, bobs);
    assert!(alices.contains("[Result \"0-1\"]"), "{alices}");
    // Bob's mails went to his folder Games; the next sync has nothing new.
    let bob_games = imap.maildir("bob@example.org").join(".Games");
    assert!(
        bob_games.join("cur").read_dir().unwrap().count()
            + bob_games.join("new").read_dir().unwrap().count()
            >= 2
    );
    let quiet = ok(&pbem(
        &homes.bob,
        "2026-11-01T14:00:00Z",
        &["sync"],
        Some(&smtp),
    ));
    assert!(quiet.contains("no new moves"), "{quiet}");
}

fn a_connection_dropped_half_way_loses_nothing_and_the_next_run_finishes() {
    let server = start("dropped");
    let homes = Homes::new("imap-dropped", "");
    let alice = &homes.alice;
    let replies = two_replies_waiting(&server, &homes);
    let games: Vec<String> = replies.iter().map(|(id, _, _)| id.clone()).collect();
    let inbox = server.maildir("alice@example.org");
    // pbem stops once the first reply is taken in; the server's imap process for its
    // session is killed there, as a dropped connection.
    let (child, flag) = paused_receive(alice);
    let (first, second) = taken_first(alice, &replies);
    let log = server.log();
    let session = log
        .lines()
        .filter(|line| line.contains("Login: user=<alice@example.org>"))
        .filter_map(|line| line.split("mpid=").nth(1))
        .filter_map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .next_back()
        .unwrap_or_else(|| panic!("no session in {log}"))
        .to_owned();
    let killed = Command::new("kill")
        .args(["-9", &session])
        .status()
        .unwrap();
    assert!(killed.success());
    std::fs::remove_file(&flag).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    let said = text(&output.stderr);
    assert!(
        said.contains(&format!("imap server 127.0.0.1:{}", server.tls_port))
            && said.contains("goes on from there"),
        "{said}"
    );
    assert!(
        text(&output.stdout).contains(&format!("played 1... {} (typed by hand)", ANSWERS[first])),
        "{}",
        text(&output.stdout)
    );
    // The first reply was taken in, but the connection dropped before it was flagged
    // (after: seen): it is still there, unflagged.
    let (_, first_name, first_reply) = &replies[first];
    assert!(
        untouched(&inbox, first_name, first_reply),
        "{:?}",
        place(&inbox, first_name, first_reply)
    );
    // The next run takes in the other reply, and the first is not taken twice; both are
    // flagged seen.
    let taken = ok(&pbem(
        alice,
        "2026-11-01T11:10:00Z",
        &["receive", "--imap"],
        None,
    ));
    assert!(
        taken.contains(&format!("played 1... {} (typed by hand)", ANSWERS[second])),
        "{taken}"
    );
    // (The turn, not the bare answer: a game id's hex may hold "e5".)
    assert!(
        !taken.contains(&format!("1... {}", ANSWERS[first])),
        "{taken}"
    );
    for (_, name, reply) in &replies {
        assert!(
            seen_in(&inbox, "cur/", name, reply),
            "{:?}",
            place(&inbox, name, reply)
        );
    }
    let record = std::fs::read_to_string(
        alice
            .dir
            .join("games")
            .join(format!("{}.pgn", games[first])),
    )
    .unwrap();
    let taken_once = record
        .split_whitespace()
        .filter(|word| *word == ANSWERS[first])
        .count();
    assert_eq!(taken_once, 1, "{record}");
}

/// `pbem receive --imap` started for `player`, stopped once it has taken a mail in (the
/// `taken` pause point); removing the returned file lets it go on.
fn paused_receive(player: &Player) -> (Child, PathBuf) {
    player.spawn_paused(
        "2026-11-01T11:00:00Z",
        &["receive", "--imap"],
        &[(PASSWORD_VARIABLE, PASSWORD)],
        "taken",
    )
}

/// Two games of Alice's, each with a reply typed by Bob waiting on the server; returns
/// the game ids and the replies' file names.
fn two_replies_waiting(server: &ImapServer, homes: &Homes) -> Vec<(String, String, Vec<u8>)> {
    let alice = &homes.alice;
    alice.set_sections(&server.config("alice@example.org", false, ""));
    let mut games = Vec::new();
    for (first, answer) in [("e4", ANSWERS[0]), ("d4", ANSWERS[1])] {
        let id = homes.start("2026-11-01T09:00:00Z", &[]);
        ok(&alice.run("2026-11-01T10:00:00Z", &["move", &id, first]));
        let mail = dry_run(alice, "2026-11-01T10:00:00Z", &id);
        let tag = format!("two-{answer}");
        let reply = hand_reply("Bob <bob@example.org>", answer, &tag, &mail);
        let name = server.deliver("alice@example.org", &reply);
        games.push((id, name, reply));
    }
    games
}

/// The turns of the two replies of [`two_replies_waiting`].
const ANSWERS: [&str; 2] = ["e5", "d5"];

/// Whether game `id` of `player` holds the turn `answer`.
fn holds(player: &Player, id: &str, answer: &str) -> bool {
    std::fs::read_to_string(game_path(player, id))
        .unwrap()
        .split_whitespace()
        .any(|word| word == answer)
}

/// Which of the two replies a paused run took in, and the other: the server numbers the
/// mails in the order it finds them in its Maildir, not always the order of delivery.
fn taken_first(player: &Player, replies: &[(String, String, Vec<u8>)]) -> (usize, usize) {
    match (
        holds(player, &replies[0].0, ANSWERS[0]),
        holds(player, &replies[1].0, ANSWERS[1]),
    ) {
        (true, false) => (0, 1),
        (false, true) => (1, 0),
        both => panic!("the paused run took in {both:?} of the two replies"),
    }
}

fn a_mail_deleted_on_the_server_during_a_run_is_passed_over() {
    let server = start("deleted");
    let homes = Homes::new("imap-deleted", "");
    let alice = &homes.alice;
    let games = two_replies_waiting(&server, &homes);
    let (child, flag) = paused_receive(alice);
    let (first, second) = taken_first(alice, &games);
    // While pbem holds the first reply, the second is deleted from the server.
    let inbox = server.maildir("alice@example.org");
    let (_, name, reply) = &games[second];
    let at = place(&inbox, name, reply).expect("the second reply is on the server");
    std::fs::remove_file(inbox.join(at)).unwrap();
    std::fs::remove_file(&flag).unwrap();
    let output = child.wait_with_output().unwrap();
    let said = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert!(
        said.contains(&format!("played 1... {} (typed by hand)", ANSWERS[first])),
        "{said}"
    );
    // Passed over: the fetch finds nothing, and the run goes on.
    assert_eq!(output.status.code(), Some(0), "{said}");
    // Nothing is lost and nothing taken twice: the next run has nothing new.
    let again = ok(&pbem(
        alice,
        "2026-11-01T11:10:00Z",
        &["receive", "--imap"],
        None,
    ));
    assert_eq!(again.trim(), "no new moves");
    assert!(!holds(alice, &games[second].0, ANSWERS[second]));
}

/// Issue 31: Bob answers one move from his phone; Alice's pbem takes it in, and her next
/// mail, through the SMTP relay into Bob's IMAP folder, carries Bob's typed turn back with
/// her answer. Bob's `pbem sync` takes both in and the game goes on.
fn a_turn_typed_from_a_phone_comes_back_to_its_author_through_smtp_and_imap() {
    let imap = start("typed-back");
    let smtp = smtp::start("typed-back", Options::default());
    let homes = Homes::new("imap-typed-back", "");
    let smtp_section = smtp.config_section();
    for (player, user) in [
        (&homes.alice, "alice@example.org"),
        (&homes.bob, "bob@example.org"),
    ] {
        player.set_sections(&format!("{smtp_section}{}", imap.config(user, false, "")));
    }
    let (alice, bob) = (&homes.alice, &homes.bob);
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let mut relayed = 0;
    // `player` moves `token` and sends it at `now`; returns what the send said.
    let move_and_send = |player: &Player, now: &str, token: &str| {
        ok(&pbem(player, now, &["move", &id, token], Some(&smtp)));
        ok(&pbem(player, now, &["send", &id], Some(&smtp)))
    };
    move_and_send(alice, "2026-11-01T10:00:00Z", "e4");
    relay(&smtp, &imap, &mut relayed);
    let synced = ok(&pbem(bob, "2026-11-01T10:10:00Z", &["sync"], Some(&smtp)));
    assert!(synced.contains("last turn 1. e4"), "{synced}");
    // Bob answers from his phone, above the quote: the mail reaches Alice's folder.
    let first = smtp
        .delivered()
        .into_iter()
        .find(|mail| text(mail).contains("To: Bob"))
        .expect("Alice's first mail");
    let reply = hand_reply("Bob <bob@example.org>", "1... c5", "typed-back-1", &first);
    imap.deliver("alice@example.org", &reply);
    let synced = ok(&pbem(alice, "2026-11-01T11:00:00Z", &["sync"], Some(&smtp)));
    assert!(
        synced.contains("played 1... c5 (typed by hand)"),
        "{synced}"
    );
    // Alice answers with pbem; her mail carries Bob's typed turn back to him.
    let sent = move_and_send(alice, "2026-11-01T11:10:00Z", "Nf3");
    assert!(sent.contains(&format!("sent {id} (ply 3)")), "{sent}");
    relay(&smtp, &imap, &mut relayed);
    let synced = ok(&pbem(bob, "2026-11-01T12:00:00Z", &["sync"], Some(&smtp)));
    assert!(
        synced.contains(&format!(
            "{id}: alice@example.org played 2. Nf3 (after your turn 1... c5, typed in a mail, \
             as your opponent's pbem recorded it)"
        )),
        "{synced}"
    );
    assert!(synced.contains(&format!("changed: {id}")), "{synced}");
    // The game goes on by pbem, both copies the same.
    move_and_send(bob, "2026-11-01T12:10:00Z", "d6");
    relay(&smtp, &imap, &mut relayed);
    let synced = ok(&pbem(alice, "2026-11-01T13:00:00Z", &["sync"], Some(&smtp)));
    assert!(
        synced.contains("bob@example.org played 2... d6"),
        "{synced}"
    );
    assert_eq!(relayed, 3);
    let game = |player: &Player| std::fs::read_to_string(game_path(player, &id)).unwrap();
    assert_eq!(game(alice), game(bob));
    assert!(
        game(bob).contains("[%typed bob@example.org]"),
        "{}",
        game(bob)
    );
}

/// Bob's two mails of one second (a card at ply 9, his turn at ply 10) reach Alice's IMAP
/// folder in the other order, as when a relay holds the first back: the server gives the
/// ply 10 mail the lower UID (it is there when Alice's `config check` opens the folder,
/// the ply 9 mail only after). `receive --imap` takes them in by ply.
fn two_mails_of_a_game_that_reach_the_server_out_of_order_are_taken_in_by_ply() {
    let server = start("order");
    let homes = Homes::new("imap-order", "shared_folder: ../shared\n");
    let shared = homes.root.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let (id, reply) = two_mails_in_one_second(&homes);
    let alice = &homes.alice;
    alice.set_sections(&server.config("alice@example.org", false, ""));
    let mail_of_ply = |ply: &str| {
        std::fs::read_dir(&shared)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| {
                path.to_string_lossy()
                    .contains(&format!("{id}.{ply}-to-alice"))
            })
            .map(|path| std::fs::read(path).unwrap())
            .unwrap_or_else(|| panic!("no ply {ply} mail in {}", shared.display()))
    };
    let now = "2026-11-10T13:00:00Z";
    server.deliver("alice@example.org", &mail_of_ply("10"));
    ok(&pbem(alice, now, &["config", "check"], None));
    server.deliver("alice@example.org", &mail_of_ply("9"));
    let taken = ok(&pbem(alice, now, &["receive", "--imap"], None));
    assert_taken_in_by_ply(&taken, &reply);
    assert_eq!(
        std::fs::read_to_string(game_path(alice, &id)).unwrap(),
        std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap()
    );
}
