//! Cascudo: the scenario table (`tests/data/cascudo/scenarios.txt`, one rule or ruling a
//! block), perft from the start and small positions counted by hand, random playouts
//! whose every cascade writes, reads back and resolves to itself, and the example game
//! through the commands.

use std::path::Path;

use pbem::games::Game;
use pbem::games::cascudo::Cascudo;
use proptest::prelude::*;

use crate::scenarios::{check_example_game, check_playout, pbem};

#[test]
fn every_scenario_holds() {
    crate::scenarios::run_table::<Cascudo>("tests/data/cascudo/scenarios.txt", 60);
}

#[test]
fn perft_from_the_start_a_middlegame_and_a_position_counted_by_hand() {
    let cases: [(&str, &[u64]); 3] = [
        // The start: 996 cascades, 742 969 pairs with check by cascade (ruling 7; 793 625
        // when any attack was check), both checked against an independent program written
        // from the rule page, tests/data/cascudo/reference.py; depth 3, from pbem alone,
        // is 511 244 446 (587 104 220 before ruling 7).
        (
            "b/qbk/npbpn/rp3pr/p5p/3B3/PPPBPPP/RNQBKNR w 0 1",
            &[996, 742_969],
        ),
        // A middlegame after 24 random plies (checked the same way).
        (
            "n/b2/rk1rb/1Bp1p2/n1PQ1p1/pp4P/PPK2PN/1b1B1RN w 0 13",
            &[133, 16_243],
        ),
        // By hand: the King displaces the knight, which leaps to one of five cells, or the
        // pawn, which steps to a3 (on a2 the King is attacked from d8, but nothing can set
        // the black King moving: no check). Black's one cascade, Kd8-d7-d6, is legal
        // unless the knight on c4 attacks d7 and can be set moving, by the King from b1.
        ("k/1p1/5/7/7/7/P6/KN5 w 0 1", &[6, 5]),
    ];
    for (text, counts) in cases {
        let position = Cascudo::from_position_string(text).unwrap();
        for (depth, &expected) in (1..).zip(counts) {
            assert_eq!(position.perft(depth), expected, "{text} depth {depth}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_playouts_round_trip_from_the_start(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        check_playout(&Cascudo::start(), &choices)?;
    }

    #[test]
    fn random_playouts_round_trip_near_promotion(choices in prop::collection::vec(any::<u32>(), 0..80)) {
        // Pawns one step from promotion on both sides, so cascades promote often.
        let start = Cascudo::from_position_string("1/B2/1P1P1/5nk/7/1N5/2p1p2/K1n4 w 0 1").unwrap();
        check_playout(&start, &choices)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Tokens built from the turn alphabet, and arbitrary text: reading never panics, what
    /// reads is written back in a spelling that reads the same, and resolving it against
    /// the start and a middlegame gives a legal cascade or a reason, never a panic.
    #[test]
    fn any_token_reads_or_is_refused_without_panic(
        token in prop_oneof![
            "[KQRBNP]?[a-h][0-9]([-x:][KQRBNP]?[a-h][0-9](=[KQRBNx])?){0,5}[+#]?",
            "\\PC{0,12}",
        ]
    ) {
        if let Ok(syntax) = Cascudo::parse_turn(&token) {
            prop_assert_eq!(Cascudo::parse_turn(&syntax.to_string()), Ok(syntax));
            for text in [
                "b/qbk/npbpn/rp3pr/p5p/3B3/PPPBPPP/RNQBKNR w 0 1",
                "n/b2/rk1rb/1Bp1p2/n1PQ1p1/pp4P/PPK2PN/1b1B1RN w 0 13",
            ] {
                let position = Cascudo::from_position_string(text).unwrap();
                if let Ok(turn) = position.resolve(&syntax) {
                    let written = position.write_turn(&turn);
                    let again = Cascudo::parse_turn(&written).unwrap();
                    prop_assert_eq!(position.resolve(&again), Ok(turn));
                }
            }
        }
    }

    /// Position strings from the placement alphabet: refused with a reason or read back
    /// exactly, never a panic.
    #[test]
    fn any_position_string_reads_or_is_refused_without_panic(
        text in "[kqrbnpKQRBNP1-9/]{0,40} [wbx]( [0-9]{1,3} [0-9]{1,3})?",
    ) {
        if let Ok(position) = Cascudo::from_position_string(&text) {
            let written = position.position_string();
            prop_assert_eq!(Cascudo::from_position_string(&written), Ok(position));
        }
    }
}

#[test]
fn the_example_game_is_valid_and_ends_as_its_result_says() {
    check_example_game("examples/cascudo.pgn");
}

#[test]
fn the_commands_play_cascudo() {
    let output = pbem(&["validate", "examples/cascudo.pgn"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("valid, 29 plies, 1-0 (White wins by checkmate)"),
        "{out}"
    );

    let output = pbem(&["perft", "--variant", "cascudo", "2"]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "742969\n");

    let output = pbem(&["legal", "--variant", "Cascudo Chess"]);
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 996);

    let output = pbem(&["show", "--ply", "0", "examples/cascudo.pgn"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("b/qbk/npbpn/rp3pr/p5p/3B3/PPPBPPP/RNQBKNR w 0 1"),
        "{out}"
    );
    // The hex board: d8 alone on top, d1 alone at the bottom, the cell names beside.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0].split_whitespace().collect::<Vec<_>>(), ["b", "d8"]);
    assert_eq!(
        lines[3].split_whitespace().collect::<Vec<_>>(),
        ["r", "p", "p", "r", "a5", "c6", "e6", "g5"]
    );
    assert_eq!(
        lines[14].split_whitespace().collect::<Vec<_>>(),
        ["B", "d1"]
    );

    let output = pbem(&["fmt", "examples/cascudo.pgn"]);
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cascudo.pgn"))
            .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), text);
}
