//! `pbem play`: the local web server of the play page, spoken to by a plain HTTP client
//! as a browser (and anything else) would. What the page does in a browser is in
//! `tests/outside/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::homes::{
    Homes, Player, game_path, kill_9, ok, play_by_maildir, text, wickets_to_the_attempt,
};
use crate::support::page::Server;

const NOW: &str = "2026-11-01T10:00:00Z";

/// `pbem play --no-open` for the player, with `extra` arguments.
fn play(player: &Player, extra: &[&str]) -> Command {
    let args = [&["play", "--no-open"][..], extra].concat();
    player.command(NOW, &args)
}

/// Two homes with a new game (Alice White), and Alice's `pbem play` of it.
fn serving(name: &str, extra: &[&str]) -> (Homes, String, Server) {
    let homes = Homes::new(name, "");
    let id = homes.start(NOW, &[]);
    let server = Server::start(play(&homes.alice, &[&[id.as_str()][..], extra].concat()));
    (homes, id, server)
}

/// A scratch folder holding `game.pgn` (the Seven Tag Roster, `tags`, then `movetext`),
/// and `pbem play` of that file, with a config file that does not exist.
fn serving_file(name: &str, tags: &str, movetext: &str) -> (PathBuf, PathBuf, Server) {
    let dir = std::env::temp_dir().join(format!("pbem-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.pgn");
    std::fs::write(
        &file,
        format!(
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
             [Black \"?\"]\n[Result \"*\"]\n{tags}\n{movetext}\n"
        ),
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_pbem"));
    command
        .args(["--config", dir.join("none.yaml").to_str().unwrap()])
        .args(["play", "--no-open", file.to_str().unwrap()]);
    (dir, file, Server::start(command))
}

/// A turn played on the page of a file played locally; the answer.
fn local_move(server: &Server, token: &str) -> serde_json::Value {
    server
        .post(
            "/api/game/local/move",
            &serde_json::json!({ "token": token }).to_string(),
        )
        .json()
}

/// A folder copied with everything in it.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn the_play_server_refuses_what_does_not_come_from_its_page() {
    let (homes, id, server) = serving("page-refusals", &[]);
    assert!(
        server.address.starts_with("http://127.0.0.1:"),
        "{}",
        server.address
    );
    let port = server.port;
    let token = &server.token;
    let wrong = "0".repeat(token.len());
    let host = format!("Host: 127.0.0.1:{port}");
    let cookie = format!("Cookie: {}", server.cookie());
    let origin = format!("Origin: http://127.0.0.1:{port}");
    let view = format!("/api/game/{id}");
    let mv = format!("/api/game/{id}/move");
    // (what, request head, what the refusal says)
    let refused = [
        ("no token", format!("GET / HTTP/1.1\r\n{host}"), "no token"),
        (
            "no token for the view",
            format!("GET {view} HTTP/1.1\r\n{host}"),
            "no token",
        ),
        (
            "a wrong token in the cookie",
            format!("GET {view} HTTP/1.1\r\n{host}\r\nCookie: pbem_token_{port}={wrong}"),
            "the token is not this server's",
        ),
        (
            "a wrong token in the address",
            format!("GET /?token={wrong} HTTP/1.1\r\n{host}"),
            "the address's token is not this server's",
        ),
        (
            "a foreign Host (DNS rebinding)",
            format!("GET {view} HTTP/1.1\r\nHost: attacker.example:{port}\r\n{cookie}"),
            "\"attacker.example:",
        ),
        (
            "another port in Host",
            format!("GET {view} HTTP/1.1\r\nHost: 127.0.0.1:1\r\n{cookie}"),
            "(Host header), not this one",
        ),
        (
            "no Host",
            format!("GET {view} HTTP/1.0\r\n{cookie}"),
            "(Host header), not this one",
        ),
        (
            "a move from a foreign Origin",
            format!("POST {mv} HTTP/1.1\r\n{host}\r\n{cookie}\r\nOrigin: http://attacker.example"),
            "a change asked by another page (Origin \"http://attacker.example\")",
        ),
        (
            "a move without an Origin",
            format!("POST {mv} HTTP/1.1\r\n{host}\r\n{cookie}"),
            "(Origin \"none\")",
        ),
        (
            "a move with the token but no cookie",
            format!("POST {mv} HTTP/1.1\r\n{host}\r\n{origin}"),
            "no token",
        ),
        (
            "a move from localhost's origin to 127.0.0.1",
            format!("POST {mv} HTTP/1.1\r\n{host}\r\n{cookie}\r\nOrigin: http://localhost:{port}"),
            "only the page of this server",
        ),
    ];
    for (what, head, says) in &refused {
        let reply = server.raw(head, "{\"token\": \"e4\"}");
        assert_eq!(reply.status, 403, "{what}: {reply:?}");
        assert!(reply.body.contains(says), "{what}: {}", reply.body);
        assert_eq!(
            reply.header("content-security-policy"),
            Some(
                "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
            ),
            "{what}"
        );
    }
    // Nothing was played.
    assert!(
        !std::fs::read_to_string(game_path(&homes.alice, &id))
            .unwrap()
            .contains("e4")
    );
    // With the token: the page, its script and style, the view; by either name of the host.
    for (path, kind, holds) in [
        (format!("/game/{id}"), "text/html", "id=\"board\""),
        ("/page.js".to_owned(), "text/javascript", "window.pbem"),
        ("/page.css".to_owned(), "text/css", "#board"),
        (
            view.clone(),
            "application/json",
            "\"side_to_move\":\"white\"",
        ),
    ] {
        for name in ["127.0.0.1", "localhost"] {
            let reply = server.raw(
                &format!("GET {path} HTTP/1.1\r\nHost: {name}:{port}\r\n{cookie}"),
                "",
            );
            assert_eq!(reply.status, 200, "{path}: {reply:?}");
            assert!(
                reply.header("content-type").unwrap_or("").starts_with(kind),
                "{path}: {reply:?}"
            );
            assert!(reply.body.contains(holds), "{path}: {}", reply.body);
            for (header, value) in [
                ("x-content-type-options", "nosniff"),
                ("referrer-policy", "no-referrer"),
                ("cache-control", "no-store"),
            ] {
                assert_eq!(reply.header(header), Some(value), "{path}");
            }
        }
    }
}

#[test]
fn the_first_load_with_the_token_sets_the_cookie_and_drops_the_token_from_the_address() {
    let (_homes, id, server) = serving("page-cookie", &[]);
    let reply = server.first_load();
    assert_eq!(reply.status, 303, "{reply:?}");
    assert_eq!(reply.header("location"), Some("/"));
    assert_eq!(
        reply.header("set-cookie"),
        Some(
            format!(
                "pbem_token_{}={}; HttpOnly; SameSite=Strict; Path=/",
                server.port, server.token
            )
            .as_str()
        )
    );
    // `/` of a server started on a game leads to that game's page.
    let index = server.get("/");
    assert_eq!(index.status, 303, "{index:?}");
    assert_eq!(
        index.header("location"),
        Some(format!("/game/{id}").as_str())
    );
}

#[test]
fn without_a_game_the_play_server_lists_the_games_as_status_does() {
    let homes = Homes::new("page-list", "");
    let id = homes.start(NOW, &[]);
    let status = ok(&homes.alice.run(NOW, &["status"]));
    let server = Server::start(play(&homes.alice, &[]));
    let reply = server.get("/");
    assert_eq!(reply.status, 200, "{reply:?}");
    let line = status.lines().next().unwrap();
    assert!(
        reply.body.contains(&format!(
            "<a data-game=\"{id}\" href=\"/game/{id}\">{line}</a>"
        )),
        "{}",
        reply.body
    );
}

#[test]
fn a_turn_played_on_the_page_is_saved_as_pbem_move_saves_it() {
    let homes = Homes::new("page-move", "");
    let id = homes.start(NOW, &[]);
    // A twin of Alice's home, where she types the same turns.
    let twin = Player {
        dir: homes.root.join("twin"),
    };
    copy_folder(&homes.alice.dir, &twin.dir);
    let server = Server::start(play(&homes.alice, &[&id]));
    let view = format!("/api/game/{id}");
    let before = server.get(&view).json();
    assert_eq!(before["you"], "white");
    assert_eq!(before["turn"], "your turn (White)");
    let version = before["version"].as_u64().unwrap();
    // Polling an unchanged game answers with its version alone.
    let same = server.get(&format!("{view}?since={version}")).json();
    assert_eq!(same["unchanged"], true, "{same}");

    // An illegal turn is refused with the words of `pbem move`, and changes nothing.
    let refused = server.post(&format!("{view}/move"), "{\"token\": \"e5\"}");
    assert_eq!(refused.status, 200, "{refused:?}");
    let refused = refused.json();
    let typed = twin.run(NOW, &["move", &id, "e5"]);
    assert_eq!(typed.status.code(), Some(1));
    assert_eq!(refused["ok"], false);
    assert_eq!(
        refused["output"],
        format!("{}", text(&typed.stderr)),
        "{refused}"
    );
    assert_eq!(refused["version"].as_u64(), Some(version));

    // A legal one is saved exactly as `pbem move` saves it.
    let played = server
        .post(&format!("{view}/move"), "{\"token\": \"e4\"}")
        .json();
    let typed = ok(&twin.run(NOW, &["move", &id, "e4"]));
    assert_eq!(played["ok"], true, "{played}");
    assert_eq!(played["output"], typed, "{played}");
    assert_eq!(
        std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap(),
        std::fs::read_to_string(game_path(&twin, &id)).unwrap()
    );
    let after = played["version"].as_u64().unwrap();
    assert_ne!(after, version);
    let shown = server.get(&format!("{view}?since={version}")).json();
    assert_eq!(shown["plies"], serde_json::json!(["e4"]), "{shown}");
    assert_eq!(shown["turn"], "Black to move (your opponent)");

    // A change made beside the page (another tab, `pbem sync`) changes the version the
    // page polls.
    ok(&homes.alice.run(NOW, &["draw", "offer", &id]));
    let polled = server.get(&format!("{view}?since={after}")).json();
    assert!(polled.get("unchanged").is_none(), "{polled}");
    assert_ne!(polled["version"].as_u64(), Some(after));

    // Draw offers, resigning, sending: through their commands, with their words.
    let resigned = server.post(&format!("{view}/resign"), "").json();
    assert_eq!(resigned["ok"], true, "{resigned}");
    assert_eq!(
        resigned["output"],
        format!("{id}: resigned: 0-1\nsend it with: pbem send {id}\n")
    );
    let unknown = server.post(&format!("{view}/castle"), "");
    assert_eq!(unknown.status, 404, "{unknown:?}");
}

#[test]
fn a_turn_is_mailed_at_once_when_the_config_says_send_auto_and_synced_in_by_the_page() {
    let homes = Homes::new(
        "page-auto-send",
        "shared_folder: ../shared\nplay:\n  send: auto\n",
    );
    std::fs::create_dir_all(homes.root.join("shared")).unwrap();
    let id = homes.start(NOW, &[]);
    ok(&homes.alice.run(NOW, &["send", &id]));
    ok(&homes.bob.run(NOW, &["sync"]));
    let server = Server::start(play(&homes.alice, &[&id]));
    let bob = Server::start(play(&homes.bob, &[&id]));
    let view = format!("/api/game/{id}");
    assert_eq!(server.get(&view).json()["auto_send"], true);
    let before = bob.get(&view).json();
    let played = server
        .post(&format!("{view}/move"), "{\"token\": \"e4\"}")
        .json();
    assert_eq!(played["ok"], true, "{played}");
    let output = played["output"].as_str().unwrap();
    assert!(output.starts_with(&format!("{id}: 1. e4\n")), "{output}");
    // What `pbem send` says, after the move's words.
    assert_eq!(
        output.lines().nth(2),
        Some(
            format!(
                "delivered {id} (ply 1) to bob@example.org in {}",
                homes.alice.dir.join("../shared").display()
            )
            .as_str()
        ),
        "{output}"
    );
    // Bob's sync button takes it in, with the words of `pbem sync`; his page shows it.
    let synced = bob.post(&format!("{view}/sync"), "").json();
    assert_eq!(synced["ok"], true, "{synced}");
    assert!(
        synced["output"].as_str().unwrap().contains("1. e4"),
        "{synced}"
    );
    assert_ne!(synced["version"], before["version"]);
    let after = bob.get(&view).json();
    assert_eq!(after["plies"], serde_json::json!(["e4"]));
    assert_eq!(after["turn"], "your turn (Black)");
}

/// Waits up to `within` for `server`, started with `--idle 0.02`, to stop as idle.
fn stopped_when_idle(server: Server, within: Duration) {
    let (status, rest) = server.wait(within).expect("pbem play stops when idle");
    assert!(status.success(), "{status}");
    assert_eq!(
        rest,
        "pbem play: stopped after 0.02 minutes without a request\n"
    );
}

#[test]
fn pbem_play_stops_after_its_idle_time() {
    // 0.02 minutes: 1.2 seconds without a request.
    let (homes, _id, server) = serving("page-idle", &["--idle", "0.02"]);
    assert_eq!(server.get("/page.css").status, 200);
    stopped_when_idle(server, Duration::from_secs(60));
    // A bad idle time is a usage error.
    let bad = homes.alice.run(NOW, &["play", "--no-open", "--idle", "0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("not a number of minutes above 0"));
}

#[test]
fn a_play_server_killed_while_it_saves_a_turn_loses_nothing() {
    let homes = Homes::new("page-kill", "");
    let id = homes.start(NOW, &[]);
    let flag = homes.alice.dir.join("paused-journal");
    let mut command = play(&homes.alice, &[&id]);
    command
        .env("PBEM_PAUSE_AT", "journal")
        .env("PBEM_PAUSE_FILE", &flag);
    let mut server = Server::start(command);
    let port = server.port;
    let (host, token, game) = (server.host.clone(), server.token.clone(), id.clone());
    // The move's request waits inside the save; it never gets an answer.
    let request = std::thread::spawn(move || {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let body = "{\"token\": \"e4\"}";
        let _ = std::io::Write::write_all(
            &mut stream,
            format!(
                "POST /api/game/{game}/move HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n\
                 Cookie: pbem_token_{port}={token}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
        let mut answer = String::new();
        let _ = std::io::Read::read_to_string(&mut stream, &mut answer);
        answer
    });
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while !flag.exists() {
        assert!(
            std::time::Instant::now() < until,
            "the move never reached the journal"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    kill_9(server.take_child());
    assert_eq!(
        request.join().unwrap(),
        "",
        "no answer from a killed server"
    );
    let games = homes.alice.dir.join("games");
    assert!(games.join(format!("{id}.journal")).is_file());
    assert!(
        !std::fs::read_to_string(game_path(&homes.alice, &id))
            .unwrap()
            .contains("e4")
    );
    // The next pbem finishes the save.
    let status = homes.alice.run(NOW, &["status"]);
    ok(&status);
    assert!(
        text(&status.stderr).contains(&format!("{id}: finished saving a turn")),
        "{}",
        text(&status.stderr)
    );
    assert!(
        std::fs::read_to_string(game_path(&homes.alice, &id))
            .unwrap()
            .contains("1. e4")
    );
    assert!(!games.join(format!("{id}.journal")).exists());
}

/// The machine's own IPv4 addresses other than 127.0.0.1 (Linux: from
/// `/proc/net/fib_trie`, the addresses marked `/32 host LOCAL`), and 127.0.0.2, which
/// is this machine too.
fn other_addresses() -> Vec<std::net::IpAddr> {
    let mut addresses = vec!["127.0.0.2".parse().unwrap()];
    if let Ok(trie) = std::fs::read_to_string("/proc/net/fib_trie") {
        let lines: Vec<&str> = trie.lines().collect();
        for pair in lines.windows(2) {
            if pair[1].contains("/32 host LOCAL")
                && let Some(address) = pair[0].trim().strip_prefix("|-- ")
                && let Ok(address) = address.parse::<std::net::IpAddr>()
                && !addresses.contains(&address)
                && address.to_string() != "127.0.0.1"
            {
                addresses.push(address);
            }
        }
    }
    addresses.push("::1".parse().unwrap());
    addresses
}

#[test]
fn pbem_play_listens_on_127_0_0_1_only() {
    let (_homes, _id, server) = serving("page-bind", &[]);
    assert!(
        server
            .address
            .starts_with(&format!("http://127.0.0.1:{}/?token=", server.port))
    );
    assert_eq!(server.get("/page.css").status, 200);
    for address in other_addresses() {
        let connected = std::net::TcpStream::connect_timeout(
            &std::net::SocketAddr::new(address, server.port),
            Duration::from_secs(2),
        );
        assert!(
            connected.is_err(),
            "{address} answers on port {}",
            server.port
        );
    }
}

#[test]
fn pbem_play_with_a_file_plays_it_locally_without_mail() {
    // No config is needed for a file played locally.
    let (dir, file, server) = serving_file("page-local", "", "1. f3 e5 *");
    let index = server.get("/");
    assert_eq!(index.header("location"), Some("/game/local"), "{index:?}");
    let view = server.get("/api/game/local").json();
    assert_eq!(view["local"], true);
    assert_eq!(view["turn"], "White to move");
    assert_eq!(view["plies"], serde_json::json!(["f3", "e5"]));
    // Both sides play here; an illegal turn is refused and changes nothing.
    let refused = local_move(&server, "Ke3");
    assert_eq!(refused["ok"], false, "{refused}");
    assert!(
        refused["output"].as_str().unwrap().contains("Ke3"),
        "{refused}"
    );
    let played = local_move(&server, "g4");
    assert_eq!(played["ok"], true, "{played}");
    let mated = local_move(&server, "Qh4");
    assert_eq!(mated["ok"], true, "{mated}");
    assert!(
        mated["output"]
            .as_str()
            .unwrap()
            .ends_with("2... Qh4#, game over: 0-1\n"),
        "{mated}"
    );
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{saved}");
    assert!(saved.contains("[Result \"0-1\"]"), "{saved}");
    // Mail is not for a local game.
    let send = server.post("/api/game/local/send", "");
    assert_eq!(send.status, 400, "{send:?}");
    assert!(send.body.contains("played locally"), "{}", send.body);
    // A file of two games is refused at the start, with what is wrong.
    let two = dir.join("two.pgn");
    std::fs::write(
        &two,
        "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 *\n\n[Event \"b\"]\n[Result \"*\"]\n\n1. d4 *\n",
    )
    .unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(["--config", dir.join("none.yaml").to_str().unwrap()])
        .args(["play", "--no-open", two.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let said = text(&refused.stderr);
    assert!(
        said.contains("found another game (game 2, line 6, column 1): `pbem play FILE` plays a file that holds one game"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A view without its picture, for messages.
fn brief(view: &serde_json::Value) -> String {
    let mut view = view.clone();
    view["svg"] = serde_json::Value::Null;
    view.to_string()
}

#[test]
fn in_a_cards_game_the_page_shows_the_hand_and_offers_the_cards_that_may_answer() {
    let (homes, id) = wickets_to_the_attempt("page-cards", "cards");
    // White attempts on w9 and mails it; White's card is awaited.
    play_by_maildir(&homes, &id, 6, "Nxe5:w9");
    let now = "2026-11-08T10:00:00Z";
    let status = ok(&homes.alice.run(now, &["status"]));
    let server = Server::start(homes.alice.command(now, &["play", "--no-open", &id]));
    let view = server.get(&format!("/api/game/{id}")).json();
    assert_eq!(view["you"], "white", "{}", brief(&view));
    assert_eq!(
        view["turn"],
        "your part is awaited (White): the scoring attempt awaits White's card",
        "{}",
        brief(&view)
    );
    let hand = view["hand"].as_str().unwrap();
    assert!(hand.starts_with("your hand: "), "{hand}");
    assert!(status.contains(hand), "{status}\n{hand}");
    assert_eq!(
        view["clocks"].as_str(),
        status
            .lines()
            .find(|line| line.starts_with(&format!("{id}  ")))
    );
    // The cards offered are cards of the hand (and `-` where one may decline).
    let parts: Vec<String> = view["awaited_parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part.as_str().unwrap().to_owned())
        .collect();
    assert!(!parts.is_empty(), "{}", brief(&view));
    for part in &parts {
        assert!(
            part == "-" || hand.contains(part.as_str()),
            "{part} in {hand}"
        );
    }
    // Bob, whose card is not awaited, is offered none.
    let bob = Server::start(homes.bob.command(now, &["play", "--no-open", &id]));
    let his = bob.get(&format!("/api/game/{id}")).json();
    assert_eq!(
        his["awaited_parts"],
        serde_json::json!([]),
        "{}",
        brief(&his)
    );
    let card = parts.iter().find(|part| *part != "-").unwrap();
    let played = server
        .post(
            &format!("/api/game/{id}/move"),
            &format!("{{\"token\": \"{card}\"}}"),
        )
        .json();
    assert_eq!(played["ok"], true, "{played}");
    assert!(
        std::fs::read_to_string(game_path(&homes.alice, &id))
            .unwrap()
            .contains(card.as_str())
    );
}

#[test]
fn pbem_play_stops_on_ctrl_c() {
    let (_homes, _id, server) = serving("page-interrupt", &[]);
    assert_eq!(server.get("/page.css").status, 200);
    let interrupted = Command::new("kill")
        .args(["-INT", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let (status, rest) = server
        .wait(Duration::from_secs(60))
        .expect("pbem play stops on Ctrl-C");
    assert!(status.success(), "{status}");
    assert_eq!(rest, "pbem play: stopped (Ctrl-C)\n");
}

#[test]
fn pbem_play_opens_the_address_with_the_browser_or_says_to_open_it() {
    let homes = Homes::new("page-browser", "");
    let id = homes.start(NOW, &[]);
    // $BROWSER is given the address.
    let opened = homes.root.join("opened");
    let browser = homes.root.join("browser");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" > {}\n", opened.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut command = homes.alice.command(NOW, &["play", &id]);
    command.env("BROWSER", &browser);
    let server = Server::start(command);
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&opened).map_or(true, |text| text.is_empty()) {
        assert!(std::time::Instant::now() < until, "the browser never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap(),
        format!("{}\n", server.address)
    );
    drop(server);
    // A browser that cannot start: the address is still printed, with what to do.
    let mut child = homes
        .alice
        .command(NOW, &["play", &id])
        .env("BROWSER", homes.root.join("no-such-browser"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        text(&output.stdout).starts_with("pbem play: open http://127.0.0.1:"),
        "{}",
        text(&output.stdout)
    );
    assert!(
        line.starts_with("pbem play: no browser opened (")
            && line.ends_with("): open the address above\n"),
        "{line}"
    );
}

#[test]
fn a_file_played_locally_takes_the_card_a_turn_awaits() {
    let (dir, file, server) = serving_file(
        "page-card",
        "[Variant \"Chess with wickets\"]\n[Decision \"Cards\"]\n[Dealing \"by hand\"]\n",
        "1. e4 e5 2. Ke2:f3 Ke7 3. Nxf3 Kd6 4. Nxe5:w9 *",
    );
    let view = server.get("/api/game/local").json();
    assert_eq!(
        view["turn"],
        "White's part is awaited: the scoring attempt awaits White's card",
        "{}",
        brief(&view)
    );
    // The parts offered are those `pbem legal` lists.
    let legal = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .arg("legal")
        .arg(&file)
        .output()
        .unwrap();
    let legal: Vec<&str> = std::str::from_utf8(&legal.stdout)
        .unwrap()
        .lines()
        .collect();
    assert_eq!(view["awaited_parts"], serde_json::json!(legal));
    let refused = local_move(&server, "Nf3");
    assert_eq!(refused["ok"], false, "{refused}");
    assert!(
        refused["output"]
            .as_str()
            .unwrap()
            .contains("the scoring attempt awaits White's card: \"Nf3\" is not one of them"),
        "{refused}"
    );
    let played = local_move(&server, "S5");
    assert_eq!(played["ok"], true, "{played}");
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("4. Nxe5:w9_cS5"), "{saved}");
    let after = server.get("/api/game/local").json();
    assert_eq!(
        after["awaiting"],
        "the scoring attempt awaits Black's card in reply to White's S5",
        "{}",
        brief(&after)
    );
    // Black answers: the attempt is decided, and the turn is Black's.
    let answered = local_move(&server, "H9");
    assert_eq!(answered["ok"], true, "{answered}");
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("4. Nxe5:w9_cS5_cH9"), "{saved}");
    let decided = server.get("/api/game/local").json();
    assert_eq!(
        decided["awaiting"],
        serde_json::Value::Null,
        "{}",
        brief(&decided)
    );
    assert_eq!(decided["turn"], "Black to move", "{}", brief(&decided));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pbem_play_listens_on_the_port_asked_or_says_it_is_taken() {
    let homes = Homes::new("page-port", "");
    let id = homes.start(NOW, &[]);
    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let refused = homes
        .alice
        .run(NOW, &["play", "--no-open", "--port", &port, &id]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr)
            .starts_with(&format!("pbem: error: cannot listen on 127.0.0.1:{port}: ")),
        "{}",
        text(&refused.stderr)
    );
    assert!(
        text(&refused.stderr).ends_with(
            "(another port: `pbem play --port N`, or leave --port out for a free one)\n"
        ),
        "{}",
        text(&refused.stderr)
    );
    drop(taken);
    let server = Server::start(play(&homes.alice, &["--port", &port, &id]));
    assert_eq!(server.port.to_string(), port);
    assert_eq!(server.get("/page.css").status, 200);
}

#[test]
fn the_list_of_games_takes_in_a_game_the_opponent_started_with_its_sync_button() {
    let homes = Homes::new("page-list-sync", "shared_folder: ../shared\n");
    std::fs::create_dir_all(homes.root.join("shared")).unwrap();
    let id = homes.start(NOW, &[]);
    ok(&homes.alice.run(NOW, &["send", &id]));
    // Bob has not taken the game in: his list has a Sync button, not the game.
    let bob = Server::start(play(&homes.bob, &[]));
    let list = bob.get("/");
    assert_eq!(list.status, 200, "{list:?}");
    assert!(
        list.body
            .contains("<button type=\"button\" id=\"sync\">Sync</button>")
            && list.body.contains("<pre id=\"messages\"></pre>")
            && list
                .body
                .contains("<script src=\"/page.js\" defer></script>")
            && !list.body.contains(&format!("data-game=\"{id}\"")),
        "{}",
        list.body
    );
    let script = bob.get("/page.js");
    assert_eq!(script.status, 200, "{script:?}");
    assert!(script.body.contains("\"/api/sync\""), "{}", script.body);
    // Like every change, it must come from the page.
    let foreign = bob.raw(
        &format!(
            "POST /api/sync HTTP/1.1\r\nHost: {}\r\nOrigin: http://evil.example\r\nCookie: {}",
            bob.host,
            bob.cookie()
        ),
        "",
    );
    assert_eq!(foreign.status, 403, "{foreign:?}");
    // What `pbem sync` prints, from the page; then the list holds the game.
    let synced = bob.post("/api/sync", "").json();
    assert_eq!(synced["ok"], true, "{synced}");
    let output = synced["output"].as_str().unwrap();
    assert!(output.contains(&id), "{output}");
    let list = bob.get("/");
    assert!(
        list.body
            .contains(&format!("<a data-game=\"{id}\" href=\"/game/{id}\">")),
        "{}",
        list.body
    );
    // A file played locally has no mail to sync.
    let (_dir, _file, local) = serving_file("page-local-sync", "", "*");
    let refused = local.post("/api/sync", "");
    assert_eq!(refused.status, 400, "{refused:?}");
    assert!(
        refused
            .body
            .contains("played locally: there is no mail to sync"),
        "{}",
        refused.body
    );
}

/// The cookies an answer sets, into `jar` (name → value), as a browser keeps them for
/// one host whatever the port.
fn keep_cookies(jar: &mut Vec<(String, String)>, reply: &crate::support::page::Reply) {
    for (name, value) in &reply.headers {
        if name != "set-cookie" {
            continue;
        }
        let pair = value.split(';').next().unwrap_or_default();
        let (key, value) = pair.split_once('=').expect("a cookie name=value");
        jar.retain(|(kept, _)| kept != key);
        jar.push((key.to_owned(), value.to_owned()));
    }
}

#[test]
fn two_play_servers_at_once_keep_each_its_own_cookie() {
    let homes = Homes::new("page-two-servers", "");
    let first = homes.start(NOW, &[]);
    let second = homes.start(NOW, &[]);
    let servers = [
        (first.clone(), Server::start(play(&homes.alice, &[&first]))),
        (
            second.clone(),
            Server::start(play(&homes.alice, &[&second])),
        ),
    ];
    // One browser opens both addresses: one cookie jar for 127.0.0.1.
    let mut jar = Vec::new();
    for (_, server) in &servers {
        let reply = server.first_load();
        assert_eq!(reply.status, 303, "{reply:?}");
        keep_cookies(&mut jar, &reply);
    }
    let cookies: Vec<String> = jar
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    for (id, server) in &servers {
        let reply = server.raw(
            &format!(
                "GET /api/game/{id} HTTP/1.1\r\nHost: {}\r\nCookie: {}",
                server.host,
                cookies.join("; ")
            ),
            "",
        );
        assert_eq!(
            reply.status, 200,
            "{id}: {reply:?} with the cookies {cookies:?}"
        );
        assert_eq!(reply.json()["id"], id.as_str());
    }
}

#[test]
fn refused_requests_do_not_keep_pbem_play_from_stopping_when_idle() {
    // 0.02 minutes: 1.2 seconds without a request that passed the checks.
    let (_homes, _id, server) = serving("page-idle-refused", &["--idle", "0.02"]);
    let port = server.port;
    let host = server.host.clone();
    // Another page (or user) asks without the token, ten times a second, for up to 30
    // seconds: the server stops all the same.
    let mut refused = 0;
    for _ in 0..300 {
        let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
            break;
        };
        let _ = std::io::Write::write_all(
            &mut stream,
            format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
        );
        let mut answer = String::new();
        let _ = std::io::Read::read_to_string(&mut stream, &mut answer);
        if answer.starts_with("HTTP/1.1 403") {
            refused += 1;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(refused > 0, "no request was refused");
    // Refused requests or not.
    stopped_when_idle(server, Duration::from_secs(5));
}

#[test]
fn a_resigned_game_offers_no_turn_on_the_page_and_pbem_legal_says_it_is_over() {
    let homes = Homes::new("page-resigned", "");
    let id = homes.start(NOW, &[]);
    ok(&homes.alice.run(NOW, &["move", &id, "e4"]));
    ok(&homes.alice.run(NOW, &["resign", &id]));
    let ended = "Alice (White) resigned: Bob (Black) wins, 0-1";
    let legal = homes.alice.run(NOW, &["legal", &id]);
    assert_eq!(legal.status.code(), Some(1), "{}", text(&legal.stderr));
    assert_eq!(text(&legal.stdout), "");
    assert_eq!(
        text(&legal.stderr),
        format!("pbem: the game is over ({ended}): there is no turn to list\n")
    );
    let server = Server::start(play(&homes.alice, &[&id]));
    let view = server.get(&format!("/api/game/{id}")).json();
    assert_eq!(view["turns"], serde_json::json!([]), "{}", brief(&view));
    assert_eq!(view["outcome"], ended, "{}", brief(&view));
    assert_eq!(view["turn"], format!("game over: {ended}"));
    // Before the end the record's turns are offered as ever.
    let start = server.get(&format!("/api/game/{id}?ply=0")).json();
    assert_eq!(
        start["outcome"],
        serde_json::Value::Null,
        "{}",
        brief(&start)
    );
    assert_eq!(
        start["turns"].as_array().unwrap().len(),
        20,
        "{}",
        brief(&start)
    );
}

/// The line and column (from 1) where `what` first stands in `text`.
fn place_of(text: &str, what: &str) -> (usize, usize) {
    let offset = text.find(what).unwrap();
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = offset - before.rfind('\n').map_or(0, |newline| newline + 1) + 1;
    (line, column)
}

#[test]
fn a_record_that_stops_early_says_where_and_why_on_the_page_and_offers_no_turn() {
    let moves = "1. e4 e5 2. Ke3 Nc6 3. Nf3 *";
    // A file played locally, and a game of the home whose file an editor broke.
    let (dir, local_file, local) = serving_file("page-stops", "", moves);
    let homes = Homes::new("page-stops-home", "");
    let id = homes.start(NOW, &[]);
    let home_file = game_path(&homes.alice, &id);
    let text_before = std::fs::read_to_string(&home_file).unwrap();
    let end = text_before.rfind('*').unwrap();
    std::fs::write(&home_file, format!("{}{moves}\n", &text_before[..end])).unwrap();
    let by_mail = Server::start(play(&homes.alice, &[&id]));
    for (server, game, file) in [
        (&local, "local", &local_file),
        (&by_mail, id.as_str(), &home_file),
    ] {
        let saved = std::fs::read_to_string(file).unwrap();
        let (line, column) = place_of(&saved, "Ke3");
        let reason = "illegal turn \"Ke3\": no king can move to e3";
        for ply in ["", "?ply=1", "?ply=2"] {
            let view = server.get(&format!("/api/game/{game}{ply}")).json();
            assert_eq!(
                view["stopped"],
                serde_json::json!({
                    "plies": 2, "turn": "2. Ke3", "line": line, "column": column, "reason": reason
                }),
                "{game}{ply}: {}",
                brief(&view)
            );
            assert_eq!(view["turns"], serde_json::json!([]), "{}", brief(&view));
            assert_eq!(view["plies"], serde_json::json!(["e4", "e5"]));
            let said = view["turn"].as_str().unwrap();
            assert!(!said.contains("  "), "{said}");
            assert!(
                said.starts_with(&format!(
                    "the record stops after ply 2: 2. Ke3 at line {line}, column {column} does not replay: {reason};"
                )),
                "{said}"
            );
            assert!(
                said.contains(&format!(
                    "(`pbem validate {}` shows the legal turns there",
                    file.display()
                )),
                "{said}"
            );
        }
        // A turn sent anyway is refused: the rest of the record stays.
        let path = format!("/api/game/{game}/move");
        let refused = server
            .post(&path, &serde_json::json!({ "token": "Nf3" }).to_string())
            .json();
        assert_eq!(refused["ok"], false, "{refused}");
        assert_eq!(std::fs::read_to_string(file).unwrap(), saved);
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_list_of_games_links_each_line_to_its_own_file_and_each_page_shows_its_own_line() {
    let homes = Homes::new("page-list-exact", "");
    let id = homes.start(NOW, &[]);
    ok(&homes.alice.run(NOW, &["move", &id, "e4"]));
    // A copy kept in the games folder: the same game id inside, another file. `pbem
    // status` lists both, each line starting with the game id the record holds.
    let copy = format!("{id}-before-e4");
    let original = std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap();
    let end = original.rfind("1. e4").unwrap();
    std::fs::write(
        game_path(&homes.alice, &copy),
        format!("{}*\n", &original[..end]),
    )
    .unwrap();
    let status = ok(&homes.alice.run(NOW, &["status"]));
    let line_of = |says: &str| {
        let found: Vec<&str> = status.lines().filter(|line| line.contains(says)).collect();
        assert_eq!(found.len(), 1, "{status}");
        assert!(found[0].starts_with(&format!("{id}  ")), "{status}");
        found[0].to_owned()
    };
    let lines = [
        line_of("move 1..., Black's turn"),
        line_of("move 1., your turn"),
    ];
    let server = Server::start(play(&homes.alice, &[]));
    let reply = server.get("/");
    for (game, line) in [(&id, &lines[0]), (&copy, &lines[1])] {
        assert!(
            reply.body.contains(&format!(
                "<a data-game=\"{game}\" href=\"/game/{game}\">{}</a>",
                line.replace('\'', "&#39;")
            )),
            "{}",
            reply.body
        );
    }
    // Each page's clocks are its own file's line of `pbem status --all`.
    for (game, line) in [(&id, &lines[0]), (&copy, &lines[1])] {
        let view = server.get(&format!("/api/game/{game}")).json();
        assert_eq!(view["clocks"], *line, "{}", brief(&view));
    }
}

#[test]
fn the_move_list_of_a_long_game_is_a_window_around_the_ply_shown() {
    let plies = 1_000;
    let text = crate::support::playouts::long_chesscala(plies, 7);
    let dir = std::env::temp_dir().join(format!("pbem-page-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("long.pgn");
    std::fs::write(&file, &text).unwrap();
    // The game's tokens as its file writes them (the walk writes them canonically).
    let tokens: Vec<String> = pbem::notation::parse_record(&text)
        .unwrap()
        .moves
        .turns
        .iter()
        .map(|node| node.token.to_string())
        .collect();
    assert_eq!(tokens.len(), plies);
    let mut command = Command::new(env!("CARGO_BIN_EXE_pbem"));
    command
        .args(["--config", dir.join("none.yaml").to_str().unwrap()])
        .args(["play", "--no-open", file.to_str().unwrap()]);
    let server = Server::start(command);
    // (ply asked, ply shown, the ply before the first listed)
    for (ask, shown, from) in [
        ("", 1_000, 800),
        ("?ply=0", 0, 0),
        ("?ply=90", 90, 0),
        ("?ply=500", 500, 400),
        ("?ply=950", 950, 800),
    ] {
        let view = server.get(&format!("/api/game/local{ask}")).json();
        assert_eq!(view["ply"], shown, "{ask}");
        assert_eq!(view["plies_total"], plies, "{ask}");
        assert_eq!(view["plies_from"], from, "{ask}");
        assert_eq!(
            view["plies"],
            serde_json::json!(tokens[from..from + 200]),
            "{ask}"
        );
    }
    // The poll of an unchanged game answers its version alone.
    let view = server.get("/api/game/local").json();
    let version = view["version"].as_u64().unwrap();
    let poll = server.get(&format!("/api/game/local?since={version}"));
    assert_eq!(
        poll.json(),
        serde_json::json!({ "version": version, "unchanged": true })
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A turn goes with the ply it was built on: one built at an earlier ply looked at, or on
/// a position the game has left since (a turn taken in by `pbem sync` beside the page),
/// is refused with nothing played; the page says where a turn is played.
#[test]
fn a_turn_is_played_only_on_the_position_it_was_built_on() {
    // A file played locally: at ply 0, White's e4 is a turn to try, not to play.
    let (dir, file, local) = serving_file("page-built-on", "", "1. e4 e5 *");
    let earlier = local.get("/api/game/local?ply=0").json();
    assert_eq!(
        earlier["turn"],
        "ply 0 of 2: the game goes on after it (go to its end to play)"
    );
    assert_eq!(earlier["turns"].as_array().unwrap().len(), 20);
    let before = std::fs::read_to_string(&file).unwrap();
    let refused = local
        .post("/api/game/local/move", r#"{"token": "Nf3", "ply": 0}"#)
        .json();
    assert_eq!(refused["ok"], false, "{refused}");
    assert_eq!(
        refused["output"],
        "pbem: error: the turn was built on the position after ply 0, but the game is at ply 2 (its last turn: e5): nothing was played (play it at the game's end)\n"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let played = local
        .post("/api/game/local/move", r#"{"token": "Nf3", "ply": 2}"#)
        .json();
    assert_eq!(played["ok"], true, "{played}");
    std::fs::remove_dir_all(dir).unwrap();

    // A game by mail: Bob's page shows 1. e4. Beside it he plays 1... e5 in a terminal,
    // and Alice's 2. Nf3 comes in by his `pbem sync` (from cron, say): the turn his page
    // built on 1. e4, Nc6, legal again now, is not played.
    let homes = Homes::new("page-built-on-mail", "shared_folder: ../shared\n");
    std::fs::create_dir_all(homes.root.join("shared")).unwrap();
    let id = homes.start(NOW, &[]);
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run(NOW, &["move", &id, "e4"]));
    ok(&alice.run(NOW, &["send", &id]));
    ok(&bob.run(NOW, &["sync"]));
    let page = Server::start(play(bob, &[&id]));
    let view = page.get(&format!("/api/game/{id}")).json();
    assert_eq!(view["ply"], 1, "{view}");
    assert_eq!(view["turn"], "your turn (Black)");
    for (player, turn) in [(bob, "e5"), (alice, "Nf3")] {
        ok(&player.run(NOW, &["sync"]));
        ok(&player.run(NOW, &["move", &id, turn]));
        ok(&player.run(NOW, &["send", &id]));
    }
    ok(&bob.run(NOW, &["sync"]));
    let mv = format!("/api/game/{id}/move");
    let stale = page.post(&mv, r#"{"token": "Nc6", "ply": 1}"#).json();
    assert_eq!(stale["ok"], false, "{stale}");
    assert!(
        stale["output"].as_str().unwrap().contains(
            "the turn was built on the position after ply 1, but the game is at ply 3 (its last turn: Nf3): nothing was played"
        ),
        "{stale}"
    );
    let record = std::fs::read_to_string(game_path(bob, &id)).unwrap();
    assert!(!record.contains("Nc6"), "{record}");
    let played = page.post(&mv, r#"{"token": "Nc6", "ply": 3}"#).json();
    assert_eq!(played["ok"], true, "{played}");
}
