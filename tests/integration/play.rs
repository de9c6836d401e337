//! Playing by mail, the local half: config files, starting games, turns, events, status,
//! with two players' homes side by side and an injected clock (`PBEM_NOW`).

use crate::support::homes::assert_error;
use std::process::Command;

pub use crate::support::homes::{Homes, Player, ok, text};
use crate::support::homes::{game_path, game_words};

#[test]
fn config_init_writes_a_file_that_check_reads() {
    let root = std::env::temp_dir().join(format!("pbem-config-init-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let config = root.join("deep/config.yaml");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pbem"))
            .arg("--config")
            .arg(&config)
            .args(args)
            .output()
            .unwrap()
    };
    let init = [
        "config",
        "init",
        "--name",
        "Carol",
        "--email",
        "carol@example.org",
    ];
    let created = ok(&run(&init));
    assert_eq!(created.trim(), config.to_str().unwrap());
    let again = run(&init);
    assert_error(&again, "exists already");
    let checked = ok(&run(&["config", "check"]));
    assert!(
        checked.contains("player: Carol <carol@example.org>"),
        "{checked}"
    );
    assert!(checked.contains("smtp: not configured"), "{checked}");
    std::fs::write(&config, "player: {name: C, email: c@d}\nsmpt: {}\n").unwrap();
    let broken = run(&["config", "check"]);
    assert_error(&broken, "smpt");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_missing_config_file_says_how_to_make_one() {
    let homes = Homes::new("missing", "");
    std::fs::remove_file(homes.alice.config()).unwrap();
    let output = homes.alice.run("2026-11-22T10:00:00Z", &["status"]);
    assert_error(&output, "pbem config init");
}

#[test]
fn turns_are_checked_stamped_and_saved() {
    let homes = Homes::new("turns", "");
    let id = homes.start("2026-11-22T10:00:00Z", &["--time-control", "10/50d"]);
    let file = std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap();
    for tag in [
        "[WhiteNA \"alice@example.org\"]",
        "[BlackNA \"bob@example.org\"]",
        "[Mode \"EM\"]",
        "[TimeControlCorr \"10/50d\"]",
    ] {
        assert!(file.contains(tag), "{file}");
    }
    assert!(file.contains(&format!("[GameId \"{id}\"]")), "{file}");

    let out = ok(&homes
        .alice
        .run("2026-11-23T09:00:00Z", &["move", &id, "e2e4"]));
    assert!(out.contains(": 1. e4"), "{out}");
    let file = game_words(&homes.alice, &id);
    assert!(
        file.contains("1. e4 {[%received 2026-11-22T10:00:00Z] [%sent 2026-11-23T09:00:00Z]}"),
        "{file}"
    );

    // Not Alice's turn now; an illegal turn and a stranger's game are refused.
    let twice = homes
        .alice
        .run("2026-11-23T09:05:00Z", &["move", &id, "d4"]);
    assert_error(&twice, "it is Black's turn");
    let before = std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap();
    let missing = homes
        .alice
        .run("2026-11-23T09:05:00Z", &["move", "nothing-like-it", "d4"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap(),
        before
    );
}

#[test]
fn status_shows_whose_turn_and_the_time_left() {
    let homes = Homes::new("status", "");
    let id = homes.start("2026-11-01T10:00:00Z", &["--time-control", "3d"]);
    let out = ok(&homes.alice.run("2026-11-02T12:00:00Z", &["status"]));
    assert!(out.contains(&id), "{out}");
    assert!(out.contains("vs Bob (you play White)"), "{out}");
    assert!(
        out.contains("move 1., your turn since 2026-11-01 10:00 UTC"),
        "{out}"
    );
    assert!(out.contains("White used 12h 0m, left 2d 12h"), "{out}");
    // Five days later Alice is overdue.
    let late = ok(&homes.alice.run("2026-11-06T12:00:00Z", &["status"]));
    assert!(late.contains("OVERDUE"), "{late}");
    assert!(late.ends_with("1 game overdue\n"), "{late}");
}

#[test]
fn resignation_and_draws_are_recorded_events() {
    let homes = Homes::new("events", "");
    let id = homes.start("2026-11-01T10:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T11:00:00Z", &["move", &id, "e4", "--offer-draw"]));
    assert!(game_words(&homes.alice, &id).contains("{white [%draw offer]}"));
    let claim = homes
        .alice
        .run("2026-11-01T11:00:00Z", &["draw", "claim", &id]);
    assert_error(&claim, "own turn");
    let out = ok(&homes.alice.run("2026-11-01T12:00:00Z", &["resign", &id]));
    assert!(out.contains("resigned: 0-1"), "{out}");
    let file = game_words(&homes.alice, &id);
    assert!(
        file.contains("[Result \"0-1\"]") && file.contains("{white [%resign]}"),
        "{file}"
    );
    let after = homes
        .alice
        .run("2026-11-01T12:00:00Z", &["move", &id, "d4"]);
    assert!(
        text(&after.stderr).contains("the game is over"),
        "{}",
        text(&after.stderr)
    );
    let status = ok(&homes
        .alice
        .run("2026-11-01T12:00:00Z", &["status", "--all"]));
    assert!(status.contains("finished 0-1"), "{status}");
}

#[test]
fn new_refuses_bad_input_and_strangers() {
    let homes = Homes::new("refuse", "");
    // (White's address, Black's address, more arguments, what the error says)
    let cases: [(&str, &str, &[&str], &str); 3] = [
        (
            "alice@example.org",
            "not-an-address",
            &[],
            "not a mail address",
        ),
        (
            "c@example.org",
            "bob@example.org",
            &[],
            "neither White nor Black",
        ),
        (
            "alice@example.org",
            "bob@example.org",
            &["--time-control", "forever"],
            "invalid time control",
        ),
    ];
    for (white, black, more, message) in cases {
        let mut args = vec![
            "new",
            "--white",
            "A",
            "--white-email",
            white,
            "--black",
            "B",
            "--black-email",
            black,
        ];
        args.extend_from_slice(more);
        assert_new_refused(&homes.alice, &args, message);
    }
    // No game was written: the games folder holds at most the data lock's file.
    let written: Vec<_> = std::fs::read_dir(homes.alice.dir.join("games"))
        .map(|entries| entries.map(|entry| entry.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(
        written.iter().all(|name| name == ".pbem.lock"),
        "{written:?}"
    );
}

/// Asserts that `pbem ARGS` (a `pbem new`) run by `player` fails as a usage error (exit
/// 2) whose message says `message`.
fn assert_new_refused(player: &Player, args: &[&str], message: &str) {
    let output = player.run("2026-11-01T10:00:00Z", args);
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    assert!(
        text(&output.stderr).contains(message),
        "{args:?}: {}",
        text(&output.stderr)
    );
}

/// The players' tags of a game file: White, WhiteNA, Black, BlackNA.
fn players_of(path: &str) -> [String; 4] {
    let text = std::fs::read_to_string(path.trim()).unwrap();
    ["White", "WhiteNA", "Black", "BlackNA"].map(|tag| {
        let start = format!("[{tag} \"");
        text.lines()
            .find_map(|line| line.strip_prefix(start.as_str()))
            .and_then(|rest| rest.strip_suffix("\"]"))
            .unwrap_or_else(|| panic!("no {tag} tag in {text}"))
            .to_owned()
    })
}

#[test]
fn new_takes_the_players_own_name_and_address_from_the_config() {
    let homes = Homes::new("new-opponent", "");
    // (arguments, White, WhiteNA, Black, BlackNA)
    let cases: [(&[&str], [&str; 4]); 6] = [
        (
            &["--opponent", "Bob <bob@example.org>"],
            ["Alice", "alice@example.org", "Bob", "bob@example.org"],
        ),
        (
            &["--opponent", "Bob Smith <bob@example.org>", "--as", "black"],
            ["Bob Smith", "bob@example.org", "Alice", "alice@example.org"],
        ),
        (
            &["--opponent", "bob@example.org", "--as", "white"],
            ["Alice", "alice@example.org", "bob", "bob@example.org"],
        ),
        // The long options: a side left out is the player of the config.
        (
            &["--black", "Bob", "--black-email", "bob@example.org"],
            ["Alice", "alice@example.org", "Bob", "bob@example.org"],
        ),
        (
            &["--white", "Carol", "--white-email", "carol@example.org"],
            ["Carol", "carol@example.org", "Alice", "alice@example.org"],
        ),
        (
            &[
                "--white",
                "Al",
                "--white-email",
                "alice@example.org",
                "--black",
                "Bob",
                "--black-email",
                "bob@example.org",
            ],
            ["Al", "alice@example.org", "Bob", "bob@example.org"],
        ),
    ];
    for (more, expected) in cases {
        let mut args = vec!["new"];
        args.extend_from_slice(more);
        let path = ok(&homes.alice.run("2026-11-01T10:00:00Z", &args));
        assert_eq!(players_of(&path), expected.map(str::to_owned), "{args:?}");
    }
}

#[test]
fn new_says_what_is_missing_and_how_to_name_the_opponent() {
    let homes = Homes::new("new-missing", "");
    // (arguments, what the error says)
    let cases: [(&[&str], &str); 7] = [
        (
            &[],
            "whom do you play? name your opponent: `pbem new --opponent \"Bob <bob@example.org>\"` (you play White; `--as black` to play Black)",
        ),
        (
            &["--black", "Bob"],
            "--black names black but --black-email is missing: give both, or neither to play black yourself",
        ),
        (
            &["--white-email", "carol@example.org"],
            "--white-email is given but --white (the name) is missing",
        ),
        (
            &["--opponent", "Bob"],
            "--opponent \"Bob\" is not a name and a mail address: write it as \"Bob <bob@example.org>\"",
        ),
        (
            &["--opponent", "Me <alice@example.org>"],
            "--opponent alice@example.org is your own address",
        ),
        (
            &["--opponent", "bob@example.org", "--white", "Carol"],
            "cannot be used with",
        ),
        (&["--as", "black"], "--opponent"),
    ];
    for (more, message) in cases {
        let mut args = vec!["new"];
        args.extend_from_slice(more);
        assert_new_refused(&homes.alice, &args, message);
    }
}

/// A silent opponent under a time control: before its deadline a claim on time is
/// refused; past it `pbem claim-time` wins the game, `pbem send` mails the claim, and the
/// opponent's pbem takes it in with the end in words; a game without a time control has
/// no claim on time, and a player cannot claim while its own turn is awaited.
#[test]
fn a_silent_opponent_is_claimed_on_time() {
    use crate::support::homes::post;
    let homes = Homes::new("claim-time", "");
    let untimed = homes.start("2026-11-01T10:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T11:00:00Z", &["move", &untimed, "e4"]));
    let none = homes
        .alice
        .run("2026-12-01T11:00:00Z", &["claim-time", &untimed]);
    assert_error(&none, "the game has no time control");
    let id = homes.start("2026-11-01T10:00:00Z", &["--time-control", "10/30d"]);
    let own = homes
        .alice
        .run("2026-12-20T11:00:00Z", &["claim-time", &id]);
    assert_error(&own, "your own act is awaited");
    ok(&homes
        .alice
        .run("2026-11-01T11:00:00Z", &["move", &id, "e4"]));
    post(&homes.alice, &homes.bob, "2026-11-01T11:05:00Z", &id, "e4");
    // Black's reflection counts from 2 November: thirty days run out on 2 December.
    let early = homes
        .alice
        .run("2026-12-01T23:00:00Z", &["claim-time", &id]);
    assert_error(
        &early,
        "Black is not over its time: 1h 0m left under 10/30d",
    );
    let claimed = ok(&homes
        .alice
        .run("2026-12-02T01:00:00Z", &["claim-time", &id]));
    assert!(claimed.contains("claimed on time: 1-0"), "{claimed}");
    let taken = post(
        &homes.alice,
        &homes.bob,
        "2026-12-02T02:00:00Z",
        &id,
        "claim",
    );
    assert!(
        taken.contains("Alice (White) claimed the game on time: Alice (White) wins, 1-0"),
        "{taken}"
    );
    let late = homes.bob.run("2026-12-02T03:00:00Z", &["move", &id, "e5"]);
    assert!(
        text(&late.stderr).contains("the game is over"),
        "{}",
        text(&late.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap(),
        std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap()
    );
}
