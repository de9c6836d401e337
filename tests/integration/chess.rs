//! Chess: perft tables from the shared data set, and random playouts in which every
//! legal move writes, reads back and resolves to itself.
//!
//! Perft depth is capped by node count so the whole module stays well under twenty
//! seconds in the dev profile (opt-level 1): a position runs every listed depth whose
//! expected count is at most the budget. The caps are the constants below; raise them to
//! test deeper (`PBEM_PERFT_BUDGET` overrides both at run time).

use std::fs;

use pbem::games::chess::{Chess, Move};
use pbem::games::{Game, SetupError};
use proptest::prelude::*;

use crate::shared_data;

/// Largest expected node count run for a position of `tricky.perft`. Every depth the
/// file lists is below it (the largest is 1.3 million), so the whole file runs.
const TRICKY_BUDGET: u64 = 10_000_000;
/// Largest expected node count run for a position of `random.perft`: depth 3 or 4 for
/// most positions, about 370 million nodes in all (some five seconds at opt-level 1).
const RANDOM_BUDGET: u64 = 200_000;
/// One position in this many of `random.perft` is tested: all of them.
const RANDOM_STRIDE: usize = 1;

/// The positions of `tricky.perft` whose castling rights only make sense in Chess960
/// (X-FEN rights with the king or the rook off its orthodox square). Orthodox chess
/// rejects them, and the test checks it does so with the castling message.
const CHESS960_ONLY: &[&str] = &[
    "xfen-00",
    "xfen-01",
    "xfen-02",
    "xfen-03",
    "xfen-04",
    "asymmetrical-and-king-on-h",
];

/// One position of a perft file: its id, EPD and (depth, count) pairs.
struct PerftCase {
    id: String,
    epd: String,
    counts: Vec<(u32, u64)>,
}

/// Reads the `id` / `epd` / `perft depth count` blocks of a perft file.
fn read_perft_file(text: &str) -> Vec<PerftCase> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(id) = line.strip_prefix("id ") {
            cases.push(PerftCase {
                id: id.to_owned(),
                epd: String::new(),
                counts: Vec::new(),
            });
        } else if let Some(epd) = line.strip_prefix("epd ") {
            cases.last_mut().expect("epd after id").epd = epd.to_owned();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut numbers = rest.split_whitespace().map(|n| n.parse::<u64>().unwrap());
            let depth = numbers.next().unwrap() as u32;
            let count = numbers.next().unwrap();
            cases
                .last_mut()
                .expect("perft after id")
                .counts
                .push((depth, count));
        }
    }
    cases
}

fn budget(default: u64) -> u64 {
    std::env::var("PBEM_PERFT_BUDGET")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// Runs every depth of a case within the budget; returns how many depths ran.
fn run_case(case: &PerftCase, budget: u64) -> usize {
    let position = Chess::from_position_string(&case.epd)
        .unwrap_or_else(|e| panic!("{}: {} does not load: {e}", case.id, case.epd));
    let mut ran = 0;
    for &(depth, expected) in &case.counts {
        if expected > budget {
            break;
        }
        assert_eq!(position.perft(depth), expected, "{} depth {depth}", case.id);
        ran += 1;
    }
    ran
}

#[test]
fn perft_tricky_positions() {
    let Some(data) = shared_data("perft_tricky_positions") else {
        return;
    };
    let text = fs::read_to_string(data.join("perft/tricky.perft")).unwrap();
    let cases = read_perft_file(&text);
    assert!(cases.len() >= 19, "the file has {} positions", cases.len());
    let budget = budget(TRICKY_BUDGET);
    let mut rejected = Vec::new();
    for case in &cases {
        if CHESS960_ONLY.contains(&case.id.as_str()) {
            let error: SetupError = Chess::from_position_string(&case.epd).unwrap_err();
            assert!(
                error.message.starts_with("castling right"),
                "{}: {}",
                case.id,
                error.message
            );
            rejected.push(case.id.as_str());
            continue;
        }
        assert!(run_case(case, budget) >= 1, "{}: no depth ran", case.id);
    }
    assert_eq!(rejected, CHESS960_ONLY);
}

#[test]
fn perft_random_positions_sample() {
    let Some(data) = shared_data("perft_random_positions_sample") else {
        return;
    };
    let text = fs::read_to_string(data.join("perft/random.perft")).unwrap();
    let cases = read_perft_file(&text);
    assert!(cases.len() > 6000, "the file has {} positions", cases.len());
    let budget = budget(RANDOM_BUDGET);
    let mut depths = 0;
    for case in cases.iter().step_by(RANDOM_STRIDE) {
        depths += run_case(case, budget);
    }
    // Every sampled position runs at least depth 1, and most go to 3 or 4.
    assert!(
        depths >= cases.len() / RANDOM_STRIDE * 3,
        "only {depths} depths ran"
    );
}

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
