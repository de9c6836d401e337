//! What the player is told where a new user was left guessing: `pbem new` says what to do
//! next (as Black, that the game must be sent before White can move); a path that does
//! not exist is said not to exist; `pbem send GAME` run twice says the mail was delivered
//! before, not that a pbem was interrupted.

use std::process::Command;

use crate::support::homes::{Homes, ok, text};

const NOW: &str = "2026-11-01T09:00:00Z";

#[test]
fn pbem_new_says_who_moves_first_and_how_the_opponent_learns_of_the_game() {
    let homes = Homes::new("told-new", "shared_folder: ../shared\n");
    std::fs::create_dir_all(homes.root.join("shared")).unwrap();
    let (alice, bob) = (&homes.alice, &homes.bob);
    // (side, what the first step says, with the id for ID)
    let cases = [
        (
            "black",
            "pbem: Bob (White) moves first and knows of the game only from your mail: send it with: pbem send ID\n",
        ),
        (
            "white",
            "pbem: your turn first: pbem move ID TURN, then send it with: pbem send ID\n",
        ),
    ];
    for (side, says) in cases {
        let new = alice.run(
            NOW,
            &["new", "--opponent", "Bob <bob@example.org>", "--as", side],
        );
        // The standard output is the game file's path alone, for scripts.
        let path = ok(&new);
        assert_eq!(path.lines().count(), 1, "{path}");
        let id = std::path::Path::new(path.trim())
            .file_stem()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(text(&new.stderr), says.replace("ID", &id), "{side}");
        if side == "black" {
            // Following it, Bob has the game and his turn.
            ok(&alice.run(NOW, &["send", &id]));
            let synced = ok(&bob.run(NOW, &["sync"]));
            assert!(
                synced.contains(&format!("{id}: new game from alice@example.org")),
                "{synced}"
            );
            assert!(synced.contains("your turn: 1."), "{synced}");
        }
    }
}

#[test]
fn a_game_named_by_a_path_that_does_not_exist_is_said_not_to_exist() {
    let homes = Homes::new("told-path", "");
    let alice = &homes.alice;
    homes.start(NOW, &[]);
    let missing = homes.root.join("none.yaml");
    for name in ["nothere.pgn", "games/g-2026", "old.pgn.gz"] {
        let said = format!("{name}: no such file");
        let with_home = alice.run(NOW, &["play", "--no-open", name]);
        let without = Command::new(env!("CARGO_BIN_EXE_pbem"))
            .args([
                "--config",
                missing.to_str().unwrap(),
                "play",
                "--no-open",
                name,
            ])
            .output()
            .unwrap();
        for run in [&with_home, &without, &alice.run(NOW, &["move", name, "e4"])] {
            assert_eq!(run.status.code(), Some(2), "{name}");
            assert!(
                text(&run.stderr).contains(&said),
                "{said}: {}",
                text(&run.stderr)
            );
            assert!(
                !text(&run.stderr).contains("no game"),
                "{}",
                text(&run.stderr)
            );
        }
    }
    // A name that is not a path is still looked up as a game id.
    let unknown = alice.run(NOW, &["play", "--no-open", "nothere"]);
    assert!(
        text(&unknown.stderr).contains("no game \"nothere\""),
        "{}",
        text(&unknown.stderr)
    );
}

#[test]
fn send_twice_says_the_mail_was_delivered_before() {
    let homes = Homes::new("told-twice", "shared_folder: ../shared\n");
    let shared = homes.root.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let alice = &homes.alice;
    let id = homes.start(NOW, &[]);
    ok(&alice.run(NOW, &["move", &id, "e4"]));
    let first = ok(&alice.run(NOW, &["send", &id]));
    assert_eq!(
        first,
        format!(
            "delivered {id} (ply 1) to bob@example.org in {}\n",
            alice.dir.join("../shared").display()
        )
    );
    // Sent again in the same second: the very same mail, which is there already.
    let again = ok(&alice.run(NOW, &["send", &id]));
    assert_eq!(
        again,
        format!(
            "{id} (ply 1): already delivered to bob@example.org in {} by an earlier pbem send; nothing was delivered twice\n",
            alice.dir.join("../shared").display()
        )
    );
    assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 1);
}
