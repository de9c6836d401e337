//! Chesica: the scenario table (`tests/data/chesica/scenarios.txt`, one rule or ruling a
//! block), perft from the start and from positions with long jump chains, and random
//! playouts whose every turn writes, reads back and resolves to itself, whose position
//! strings round-trip, and whose records replay as valid games.

use std::path::Path;

use pbem::games::Game;
use pbem::games::chesica::Chesica;
use proptest::prelude::*;

#[test]
fn every_scenario_holds() {
    crate::scenarios::run_table::<Chesica>("tests/data/chesica/scenarios.txt", 101);
}

#[test]
fn perft_from_the_start_and_from_long_jump_chains() {
    let cases: [(&str, &[u64]); 5] = [
        // 29 openings a side; the sides cannot touch for two turns.
        (
            "1q1q1q1q/r1r1r1r1/1b1b1b1b/8/8/B1B1B1B1/1R1R1R1R/Q1Q1Q1Q1 w 1",
            &[29, 841, 23_983, 671_408],
        ),
        // Two chains from c1; after either, Black has two bishops left on one file, each
        // with two steps (d2: c1+, e1+; d4: c3, e3, or on the b-file likewise).
        ("8/8/8/8/1b1b4/8/1b1b4/2B5 w 1", &[2, 8]),
        // The ring of four jumps round c2: two turns, then Black has no piece.
        ("8/8/8/1b1b4/8/1b1b4/2+B5/8 w 1", &[2, 0]),
        // Nine chains from a1, the longest nine jumps through all nine black pieces.
        ("8/8/1b1b1b2/8/1b1b1b2/8/1b1b1b2/+Q7 w 1", &[9, 28]),
        // The jump that promotes on e8 and stops there.
        ("8/3b1b2/2B5/8/8/8/8/8 w 1", &[1, 2]),
    ];
    for (text, counts) in cases {
        let position = Chesica::from_position_string(text).unwrap();
        for (depth, &expected) in (1..).zip(counts) {
            assert_eq!(position.perft(depth), expected, "{text} depth {depth}");
        }
    }
}

use crate::scenarios::{check_example_game, check_playout, pbem};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_playouts_round_trip_from_the_start(choices in prop::collection::vec(any::<u32>(), 0..300)) {
        check_playout(&Chesica::start(), &choices)?;
    }

    #[test]
    fn random_playouts_round_trip_among_promoted_pieces(choices in prop::collection::vec(any::<u32>(), 0..200)) {
        // Promoted pieces of every kind, so chains go backwards and slides are long.
        let start = Chesica::from_position_string(
            "1+q1b1+r2/r1+b1r3/1b3b1b/8/2+B5/B3B1+R1/1R1+Q1R2/Q1Q5 b 7",
        )
        .unwrap();
        check_playout(&start, &choices)?;
    }
}

#[test]
fn the_example_game_is_valid_and_ends_as_its_result_says() {
    check_example_game("examples/chesica.pgn");
}

#[test]
fn the_commands_play_chesica() {
    let output = pbem(&["validate", "examples/chesica.pgn"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("valid, 94 plies, 0-1 (Black wins by capturing every opposing piece)"),
        "{out}"
    );

    let output = pbem(&["perft", "--variant", "Chesica", "3"]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "23983\n");

    let output = pbem(&["show", "--ply", "15", "examples/chesica.pgn"]);
    let out = String::from_utf8_lossy(&output.stdout);
    // After 8. g3xe5xg7, the first multi-jump.
    assert!(out.contains("after ply 15: Black to move"), "{out}");
    assert!(
        out.contains("1q1q3q/r1r3B1/1b1bq1rb/8/8/BQB1BQ2/R2R1R1R/Q6Q b 8"),
        "{out}"
    );

    let output = pbem(&["fmt", "examples/chesica.pgn"]);
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/chesica.pgn"))
            .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), text);
}

#[test]
fn legal_leaves_out_the_turns_the_history_forbids() {
    let dir = std::env::temp_dir().join(format!("pbem-chesica-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("repeat.pgn");
    std::fs::write(
        &file,
        "[Variant \"Chesica\"]\n[SetUp \"1\"]\n[FEN \"7+q/8/8/8/8/8/8/+Q7 w 1\"]\n\n\
         1. Qa2 Qh7 2. Qa1 Qh8 3. Qa2 Qh7 4. Qa1 *\n",
    )
    .unwrap();
    let from_file = pbem(&["legal", file.to_str().unwrap()]);
    let from_fen = pbem(&[
        "legal",
        "--variant",
        "chesica",
        "--fen",
        "8/7+q/8/8/8/8/8/+Q7 b 4",
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    let listed = |output: &std::process::Output| -> Vec<String> {
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let (from_file, from_fen) = (listed(&from_file), listed(&from_fen));
    assert!(from_fen.contains(&"Qh8".to_owned()), "{from_fen:?}");
    assert!(!from_file.contains(&"Qh8".to_owned()), "{from_file:?}");
    assert_eq!(from_file.len() + 1, from_fen.len());
}

#[test]
fn by_mail_the_history_decides_what_is_legal_and_how_it_is_written() {
    use pbem::config::Player;
    use pbem::correspondence::{self, NewGame};
    let player = |name: &str| Player {
        name: name.to_owned(),
        email: format!("{name}@example.org"),
    };
    let mut record = correspondence::new_record(&NewGame {
        variant: pbem::games::Variant::Chesica,
        white: player("white"),
        black: player("black"),
        position: Some("7+q/8/8/8/8/8/8/+Q1+Q5 w 1".to_owned()),
        time_control: None,
        game_id: "g-20261125-00000020".to_owned(),
        started: pbem::clock::parse_instant("2026-11-25T10:00:00Z").unwrap(),
    })
    .unwrap();
    let stamp = pbem::clock::Stamp::default();
    for (index, token) in ["Qab1", "Qg8", "Qbb2", "Qh8", "Qbb1", "Qg8", "Qa1", "Qh8"]
        .iter()
        .enumerate()
    {
        let who = if index % 2 == 0 { "white" } else { "black" };
        correspondence::play(&mut record, &format!("{who}@example.org"), token, stamp).unwrap();
    }
    // Qab1 would repeat the position after it a third time: refused, with the reason.
    let error = correspondence::play(&mut record, "white@example.org", "Qab1", stamp).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("Qab1 would make the same position occur 3 times"),
        "{error}"
    );
    // So Qb1 is the Queen on c1, and is written so.
    let played = correspondence::play(&mut record, "white@example.org", "Qb1", stamp).unwrap();
    assert_eq!(played.label, "5. Qb1");
}

#[test]
fn legal_and_show_on_the_file_follow_the_history() {
    let dir = std::env::temp_dir().join(format!("pbem-chesica-qb1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("qb1.pgn");
    std::fs::write(
        &file,
        "[Variant \"Chesica\"]\n[SetUp \"1\"]\n[FEN \"7+q/8/8/8/8/8/8/+Q1+Q5 w 1\"]\n\n\
         1. Qab1 Qg8 2. Qbb2 Qh8 3. Qbb1 Qg8 4. Qa1 Qh8 5. Qab1 *\n",
    )
    .unwrap();
    let listed = pbem(&["legal", "--ply", "8", file.to_str().unwrap()]);
    let refused = pbem(&["validate", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    let tokens: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(tokens.contains(&"Qb1".to_owned()), "{tokens:?}");
    assert!(
        !tokens
            .iter()
            .any(|token| token == "Qab1" || token == "Qcb1")
    );
    // The refusal lists the turns that are legal, not "no legal turn", and never Qab1.
    let out = String::from_utf8_lossy(&refused.stdout).to_string()
        + &String::from_utf8_lossy(&refused.stderr);
    assert!(
        out.contains("Qab1 would make the same position occur 3 times"),
        "{out}"
    );
    assert!(out.contains("legal turns (34)"), "{out}");
    assert!(!out.contains("there is no legal turn"), "{out}");
    assert!(out.contains(" Qb1 "), "{out}");
}
