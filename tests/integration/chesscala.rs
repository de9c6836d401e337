//! Chesscala: the scenario table (`tests/data/chesscala/scenarios.txt`, one rule or
//! ruling a block, with the page's worked examples), perft from each reconstructed setup
//! and from a crowded middlegame, random playouts whose every turn writes, reads back and
//! resolves to itself, the example game, and `pbem legal` on the standard setup.

use std::path::Path;

use pbem::games::Game;
use pbem::games::chesscala::{Chesscala, Setup};
use proptest::prelude::*;

use crate::scenarios::{check_playout, pbem};

#[test]
fn every_scenario_holds() {
    crate::scenarios::run_table::<Chesscala>("tests/data/chesscala/scenarios.txt", 160);
}

/// A crowded middlegame from a random game: mixed stacks, Hammers and Bombs on both
/// sides, a double move still open for each side, both sides with losses.
const MIDDLEGAME: &str = "kq(kb)1(np)1/p(pp)(qp)(npp)(rnnp)1/2B1p1/1b4/1(ROp)2Q1/1(Pqh)2p1/(OPP)Q(BNPP)(RPP)(PP)P/1P1KQK w - Fa 5/4 - 6";

#[test]
fn perft_from_each_setup_and_a_crowded_middlegame() {
    // Depth 1 of the setups is counted by hand in the scenario table (33, 33, 34), and
    // so is Black's reply count after 1. e1 (97).
    let cases: [(&str, &[u64]); 4] = [
        (Setup::Standard.position_string(), &[33, 5481, 2_684_674]),
        (
            Setup::OrthodoxArmy.position_string(),
            &[33, 5280, 1_385_649],
        ),
        (
            Setup::RooksRearguard.position_string(),
            &[34, 5636, 2_883_877],
        ),
        (MIDDLEGAME, &[863, 672_181]),
    ];
    for (text, counts) in cases {
        let position = Chesscala::from_position_string(text).unwrap();
        for (depth, &expected) in (1..).zip(counts) {
            assert_eq!(position.perft(depth), expected, "{text} depth {depth}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_playouts_round_trip_from_every_setup(
        setup in prop::sample::select(Setup::ALL.to_vec()),
        choices in prop::collection::vec(any::<u32>(), 0..80),
    ) {
        check_playout(&Chesscala::setup(setup), &choices)?;
    }

    #[test]
    fn random_playouts_round_trip_from_the_middlegame(choices in prop::collection::vec(any::<u32>(), 0..80)) {
        check_playout(&Chesscala::from_position_string(MIDDLEGAME).unwrap(), &choices)?;
    }

    #[test]
    fn random_playouts_round_trip_without_draws(choices in prop::collection::vec(any::<u32>(), 0..60)) {
        let text = format!("{MIDDLEGAME} nodraws");
        check_playout(&Chesscala::from_position_string(&text).unwrap(), &choices)?;
    }
}

#[test]
fn the_example_game_is_valid_and_ends_as_its_result_says() {
    crate::scenarios::check_example_game("examples/chesscala.pgn");
}

#[test]
fn the_commands_play_chesscala() {
    // The page: "there are 33 possible opening moves".
    let output = pbem(&["legal", "--variant", "Chesscala"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert_eq!(out.lines().count(), 33, "{out}");
    assert!(out.lines().any(|line| line == "b1:HOBN"), "{out}");
    assert!(out.lines().any(|line| line == "Pd2-d4"), "{out}");

    let output = pbem(&["validate", "examples/chesscala.pgn"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("valid, 24 plies, 1-0 (White wins by attrition)"),
        "{out}"
    );

    let output = pbem(&["perft", "--variant", "chesscala", "2"]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "5481\n");

    let output = pbem(&["show", "--ply", "1", "examples/chesscala.pgn"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("after ply 1: Black to move"), "{out}");
    assert!(
        out.contains("kqk(qrbp)(bnho)(qrnp)/p(pp)p(bppp)p(nopp)/6/1H4/1N4/1B4/(NOPP)(OP)(BPPP)P(PP)P/(QRNP)1(QRBP)KQK b - DFace 0/0 - 1"),
        "{out}"
    );

    let output = pbem(&["fmt", "examples/chesscala.pgn"]);
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/chesscala.pgn"),
    )
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), text);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Tokens made of the grammar's characters: reading never panics, what reads is
    /// written back to a token that reads the same, and resolving it never panics.
    #[test]
    fn tokens_read_write_and_resolve_without_panics(token in "[KQRBNHOMPa-gqrbnhomp0-9x:,+#-]{0,20}") {
        if let Ok(syntax) = Chesscala::parse_turn(&token) {
            prop_assert_eq!(Chesscala::parse_turn(&syntax.to_string()), Ok(syntax));
            let _ = Chesscala::start().resolve(&syntax);
            let _ = Chesscala::from_position_string(MIDDLEGAME).unwrap().resolve(&syntax);
        }
    }

    /// Position strings with one character changed are read or refused, never a panic,
    /// and what reads is written back to a string that reads the same.
    #[test]
    fn damaged_position_strings_are_refused_or_read(index in 0..MIDDLEGAME.len(), c in "[KQRBNHOMPkqrbnhomp0-9()/ wx-]") {
        let mut text = MIDDLEGAME.to_owned();
        text.replace_range(index..=index, &c);
        if let Ok(position) = Chesscala::from_position_string(&text) {
            let again = Chesscala::from_position_string(&position.position_string()).unwrap();
            prop_assert_eq!(again, position);
        }
    }
}
