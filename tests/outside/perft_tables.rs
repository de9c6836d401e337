//! Orthodox chess perft from the shared data set's tables (`perft/tricky.perft`,
//! `perft/random.perft`).
//!
//! Perft depth is capped by node count so the module stays well under twenty seconds in
//! the dev profile (opt-level 1): a position runs every listed depth whose expected count
//! is at most the budget. The caps are the constants below; raise them to test deeper
//! (`PBEM_PERFT_BUDGET` overrides both at run time).

use std::fs;

use pbem::games::chess::Chess;
use pbem::games::{Game, SetupError};

use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::SharedData]; perft_tricky_positions, perft_random_positions_sample]
}

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

fn perft_tricky_positions() {
    let data = crate::shared_data();
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

fn perft_random_positions_sample() {
    let data = crate::shared_data();
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
