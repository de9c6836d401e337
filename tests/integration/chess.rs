//! Chess: random playouts in which every legal move writes, reads back and resolves to
//! itself. (The perft tables of the shared data set run in the `outside` binary.)

use pbem::games::Game;
use pbem::games::chess::{Chess, Move};
use proptest::prelude::*;

/// Checks every legal move of `position`: its SAN and its UCI form both resolve back to
/// it, and the position string reads back to the same position.
fn check_position(position: &Chess) -> Result<(), TestCaseError> {
    let fen = position.position_string();
    let reread = Chess::from_position_string(&fen)
        .map_err(|e| TestCaseError::fail(format!("{fen} does not read back: {e}")))?;
    prop_assert_eq!(&reread, position, "{}", fen);
    prop_assert_eq!(reread.position_string(), fen.clone());
    let mut moves: Vec<Move> = Vec::new();
    position.legal_turns(&mut moves);
    for m in &moves {
        let written = position.write_turn(m);
        let syntax = Chess::parse_turn(&written)
            .map_err(|e| TestCaseError::fail(format!("{written} in {fen}: {e}")))?;
        prop_assert_eq!(
            syntax.to_string(),
            written.clone(),
            "canonical text of {}",
            written
        );
        prop_assert_eq!(position.resolve(&syntax), Ok(*m), "{} in {}", written, fen);
        let uci = Chess::parse_turn(&m.uci()).unwrap();
        prop_assert_eq!(position.resolve(&uci), Ok(*m), "{} in {}", m.uci(), fen);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_playouts_round_trip(choices in proptest::collection::vec(any::<u16>(), 0..160)) {
        let mut position = Chess::start();
        let mut moves = Vec::new();
        for choice in choices {
            check_position(&position)?;
            moves.clear();
            position.legal_turns(&mut moves);
            if moves.is_empty() {
                prop_assert!(position.outcome().is_some());
                break;
            }
            let m = moves[usize::from(choice) % moves.len()];
            position.play(&m);
        }
        check_position(&position)?;
    }
}

proptest! {
    #[test]
    fn any_token_parses_or_fails_cleanly(token in "\\PC{0,12}") {
        if let Ok(syntax) = Chess::parse_turn(&token) {
            // The canonical text of a syntax reads back to the same syntax.
            prop_assert_eq!(Chess::parse_turn(&syntax.to_string()), Ok(syntax));
            let _ = Chess::start().resolve(&syntax);
        }
    }

    #[test]
    fn san_like_tokens_parse_or_fail_cleanly(token in "[KQRBNPO0a-hx1-8=+#:()e.p-]{1,9}") {
        match Chess::parse_turn(&token) {
            Ok(syntax) => {
                prop_assert_eq!(Chess::parse_turn(&syntax.to_string()), Ok(syntax));
                let _ = Chess::start().resolve(&syntax);
            }
            Err(error) => prop_assert!(error.offset <= token.len()),
        }
    }

    #[test]
    fn any_position_string_reads_or_fails_cleanly(
        text in "[KQRBNPkqrbnp1-9/]{0,70} [wbx] [KQkq-]{1,4} [a-h1-8-]{1,2}( [0-9]{1,3})?( [0-9]{1,3})?"
    ) {
        if let Ok(position) = Chess::from_position_string(&text) {
            let fen = position.position_string();
            prop_assert_eq!(Chess::from_position_string(&fen), Ok(position));
        }
    }
}

#[test]
fn every_scenario_holds() {
    crate::scenarios::run_table::<pbem::games::Chess>("tests/data/chess/scenarios.txt", 15);
}
