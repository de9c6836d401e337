//! Mistyped input on the command line (issue 31): a turn `pbem move` cannot read or the
//! rules refuse is told as `validate` tells a turn of a record (the reason, the turn with a
//! caret under the place, the closest legal turn and the legal list) with the command that
//! plays the closest, and exit 1 (invalid input, not a usage error); a position string
//! given to `legal`, `show`, `perft` or `new` that does not read names its field with a
//! caret under it. Nothing is written. One table per kind, every game in each.

use crate::support::homes::{ALICE_AND_BOB, Homes, Player, game_path, text};

/// `pbem move` in a new game: the game (`--variant`), the turn typed, a fragment of the
/// reason, the caret line under the turn, and the closest legal turn.
const TURNS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "Chess",
        "Nf7",
        "illegal turn \"Nf7\": no knight can move to f7",
        "^^^",
        "Nf3",
    ),
    (
        "Chess",
        "nf6",
        "cannot read \"nf6\": expected a piece letter or a square",
        "^^^",
        "Nf3",
    ),
    (
        "Chess with wickets",
        "Ke2:e9",
        "cannot read \"Ke2:e9\": \"e9\" is not a square or wicket",
        "    ^^",
        "e3",
    ),
    (
        "Chess with wickets",
        "Nf3:w9",
        "illegal turn \"Nf3:w9\": only the Ball-haver that moved may throw",
        "^^^^^^",
        "Nf3",
    ),
    (
        "Chesica",
        "Qa9",
        "cannot read \"Qa9\": unexpected character '9'",
        "  ^",
        "Qa2",
    ),
    (
        "Chesica",
        "Bb5",
        "illegal turn \"Bb5\": no white bishop can move to b5",
        "^^^",
        "Bab4",
    ),
    (
        "African Chess",
        "Te1-e3",
        "illegal turn \"Te1-e3\": a stone steps one square: e3 is not next to e1",
        "^^^^^^",
        "Te1-e2",
    ),
    (
        "Chesscala",
        "b1:BHNX",
        "cannot read \"b1:BHNX\": 'X' is not a piece that is sown",
        "      ^",
        "b1:BHNO",
    ),
    (
        "Chesscala",
        "b1:BHN",
        "illegal turn \"b1:BHN\": the order must lay down each piece sown from b1 once",
        "^^^^^^",
        "b1:BHNO",
    ),
    (
        "Cascudo",
        "Bd1-c2-c4",
        "illegal turn \"Bd1-c2-c4\": a white pawn cannot move from c2 to c4",
        "^^^^^^^^^",
        "Bd1-c2-c3",
    ),
    (
        "Cascudo",
        "Bd1-c2-",
        "cannot read \"Bd1-c2-\": expected a cell at the end",
        "       ^",
        "Bd1-c2-c3",
    ),
];

/// A position string that does not read: the game, the string, a fragment of the
/// reason, and the caret line under the field (its column is where the caret starts).
const POSITIONS: &[(&str, &str, &str, &str)] = &[
    (
        "Chess",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1",
        "bad field 3 (castling): unexpected 'x' (expected KQkq or -)",
        "                                              ^^^^",
    ),
    (
        "Chess",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "missing white king (field 1)",
        "^^^^^^^^^^^^^^^",
    ),
    (
        "Chess",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
        "missing field 4 (en passant)",
        "                                                  ^",
    ),
    (
        "Chess with wickets",
        "6qk/8/8/8/8/Q7/8/K3R2r w - - -,- e1,h8 a3,g8 dize 0 1",
        "unknown decision mode \"dize\"",
        "                                             ^^^^",
    ),
    (
        "Chesica",
        "8/8/8/8/8/8/8/8 w 1",
        "the board is empty (field 1)",
        "^^^^^^^^^^^^^^^",
    ),
    (
        "African Chess",
        "pppptppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPTPPP q 1",
        "bad field 2 (side to move): expected 'w' or 'b', found 'q'",
        "                                            ^",
    ),
    (
        "Chesscala",
        "kqk(qrbp)(bnho)(qrnp)/p(pp)p(bppp)p(nopp)/6/6/6/6/(NOPP)P(BPPP)P(PP)P/(QRNP)(BNHO)(QRBP)KQK w 1 BDFace 0/0 z 1",
        "bad field 6 (phase): expected '-', 'x', 'm' or 'a', found 'z'",
        "                                                                                                           ^",
    ),
    (
        "Cascudo",
        "1/3/5/7/7/7/7/7 w 0 x",
        "bad field 4 (fullmove number): 'x' is not a number from 1",
        "                    ^",
    ),
];

/// Asserts that `said` (standard error) shows `line` with `caret` under it, `--> PLACE`
/// where PLACE is `path:1:COLUMN` of the caret's first `^`.
fn assert_located(said: &str, path: &str, line: &str, caret: &str) {
    let column = caret.find('^').expect("a caret") + 1;
    assert!(
        said.contains(&format!(" --> {path}:1:{column}\n")),
        "{said}"
    );
    assert!(said.contains(&format!("1 | {line}\n")), "{said}");
    assert!(said.contains(&format!("  | {caret}\n")), "{said}");
}

#[test]
fn a_mistyped_turn_is_told_as_validate_tells_it_in_every_game() {
    let homes = Homes::new("mistyped-turns", "");
    let mut games: Vec<(&str, String)> = Vec::new();
    for &(variant, typed, reason, caret, closest) in TURNS {
        let id = match games.iter().find(|(name, _)| *name == variant) {
            Some((_, id)) => id.clone(),
            None => {
                let id = homes.start("2026-11-01T09:00:00Z", &["--variant", variant]);
                games.push((variant, id.clone()));
                id
            }
        };
        let before = std::fs::read(game_path(&homes.alice, &id)).unwrap();
        let output = homes
            .alice
            .run("2026-11-01T10:00:00Z", &["move", &id, typed]);
        let said = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{variant} {typed}: {said}");
        assert_eq!(text(&output.stdout), "", "{variant} {typed}");
        assert!(
            said.contains(&format!("error: {id}, 1. (ply 1): {reason}")),
            "{variant} {typed}: {said}"
        );
        assert_located(&said, "TURN", typed, caret);
        assert!(
            said.contains(&format!("help: closest legal turn: {closest}\n")),
            "{variant} {typed}: {said}"
        );
        // The legal list is the one `pbem legal` prints.
        let legal = text(
            &homes
                .alice
                .run("2026-11-01T10:00:00Z", &["legal", &id])
                .stdout,
        );
        let listed: Vec<&str> = legal.lines().collect();
        let shown = said
            .lines()
            .find_map(|line| line.strip_prefix("help: legal turns ("))
            .unwrap_or_else(|| panic!("{variant} {typed}: {said}"));
        assert!(
            shown.starts_with(&format!("{}): ", listed.len())),
            "{variant} {typed}: {shown}"
        );
        let first: Vec<&str> = listed.iter().take(40).copied().collect();
        assert!(
            shown.contains(&first.join(" ")),
            "{variant} {typed}: {shown}"
        );
        assert!(
            said.contains(&format!(
                "pbem: {id} is unchanged; to play the closest legal turn: pbem move {id} {closest}"
            )),
            "{variant} {typed}: {said}"
        );
        assert_eq!(std::fs::read(game_path(&homes.alice, &id)).unwrap(), before);
    }
    assert_eq!(games.len(), 6, "every game has a case");
}

/// Runs pbem with no config.
fn pbem(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(args)
        .env_remove("PBEM_CONFIG")
        .output()
        .expect("pbem runs")
}

#[test]
fn a_position_string_that_does_not_read_names_its_field_in_every_command() {
    let homes = Homes::new("mistyped-positions", "");
    let typed = homes.root.join("typed.txt");
    std::fs::write(&typed, "1. e4 e5\n").unwrap();
    let typed = typed.to_str().unwrap();
    for &(variant, fen, reason, caret) in POSITIONS {
        let runs: Vec<(Vec<&str>, Option<&Player>)> = vec![
            (vec!["legal", "--variant", variant, "--fen", fen], None),
            (vec!["show", "--variant", variant, "--fen", fen], None),
            (vec!["perft", "--variant", variant, "--fen", fen, "1"], None),
            (
                vec![
                    "convert",
                    "--from",
                    "text",
                    "--variant",
                    variant,
                    "--setup",
                    fen,
                    typed,
                ],
                None,
            ),
            (
                [
                    &["new", "--variant", variant, "--fen", fen][..],
                    &ALICE_AND_BOB,
                ]
                .concat(),
                Some(&homes.alice),
            ),
        ];
        for (args, home) in runs {
            let output = match home {
                Some(player) => player.run("2026-11-01T09:00:00Z", &args),
                None => pbem(&args),
            };
            let said = text(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{args:?}: {said}");
            assert!(
                said.contains(&format!("error: invalid position: {reason}")),
                "{args:?}: {said}"
            );
            let argument = if args[0] == "convert" {
                "--setup"
            } else {
                "--fen"
            };
            assert_located(&said, argument, fen, caret);
        }
    }
    // No game was started.
    assert!(
        std::fs::read_dir(homes.alice.dir.join("games"))
            .map(|entries| entries
                .filter_map(Result::ok)
                .all(|entry| !entry.file_name().to_string_lossy().ends_with(".pgn")))
            .unwrap_or(true)
    );
}
