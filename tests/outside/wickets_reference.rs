//! The independent Python reference for Chess with wickets, written from the rule page and
//! the rulings (`tests/data/wickets/reference.py`), against the engine: perft from the
//! start and the legal turns of random positions in every decision mode.

use pbem::games::{Color, DrawReason, Game, Outcome, Wickets, WinReason};

use crate::reference::Sample;
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    let mut tests = crate::tests![&[Need::Python];
        the_reference_counts_the_same_perft_from_the_start,
        the_reference_lists_the_same_turns_in_random_positions,
    ];
    let by_hand = [
        (
            crate::tests![&[Need::Python]; the_reference_counts_the_same_perft_to_depth_4],
            "by hand: the Python reference takes a few minutes for perft 4 (319,488 nodes); \
             run with -- --ignored wickets_reference",
        ),
        (
            crate::tests![&[Need::Python]; the_reference_lists_the_same_turns_in_many_random_positions],
            "by hand: slow, the Python reference on 3 random games of 80 plies each; \
             run with -- --ignored wickets_reference",
        ),
    ];
    for (slow, why) in by_hand {
        tests.extend(slow.into_iter().map(|test| Test {
            by_hand: Some(why),
            ..test
        }));
    }
    tests
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -,- e1,e8 d1,d8";

fn reference(args: &[&str]) -> String {
    crate::reference::reference("wickets", args)
}

fn perft_agrees(depth: u32) {
    let start = Wickets::start();
    let fen = format!("{START} det 0 1");
    let theirs = reference(&[&fen, &depth.to_string()]);
    assert_eq!(
        theirs.trim(),
        start.perft(depth).to_string(),
        "depth {depth}"
    );
}

/// Depths 1 to 3: 21, 441, 11,908.
fn the_reference_counts_the_same_perft_from_the_start() {
    for depth in 1..=3 {
        perft_agrees(depth);
    }
}

fn the_reference_counts_the_same_perft_to_depth_4() {
    perft_agrees(4);
}

/// The reference's outcome codes (see reference.py).
fn outcome_code(position: &Wickets) -> String {
    match position.outcome() {
        None => "-".to_owned(),
        Some(Outcome::Win { winner, reason }) => {
            let result = if winner == Color::White { "1-0" } else { "0-1" };
            let why = match reason {
                WinReason::KingDefenderTaken => "k",
                WinReason::NoDefender => "d",
                _ => "m",
            };
            format!("{result} {why}")
        }
        Some(Outcome::Draw { reason }) => match reason {
            DrawReason::Stalemate => "= s".to_owned(),
            DrawReason::InsufficientMaterial => "= d".to_owned(),
            _ => "= 75".to_owned(),
        },
    }
}

/// Positions of seeded random games in every mode, from the start and from positions
/// rich in wicket play (the scenario table's); every third position of each game.
fn random_positions(seed: u64, length: usize) -> Vec<Wickets> {
    const STARTS: [&str; 8] = [
        START,
        "2r3k1/1p4p1/8/8/8/8/1P4P1/2RQK3 w - - -,- e1,g8 d1,c8",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8",
        "r3k3/8/8/8/8/8/8/R2QK2R w KQ - -,- e1,e8 d1,a8",
        "k2n4/p7/8/8/8/8/7P/3R2K1 w - - -,- g1,d8 h2,a7",
        "7k/8/8/1K1n1r2/8/8/4R3/8 w - - -,- e2,h8 b5,d5",
        "7k/8/4N3/2B5/4r3/8/PPP5/K7 w - - -,- c5,h8 a1,e4",
        "k7/p4N2/1B6/4R3/8/8/8/6K1 w - - -,- f7,a8 g1,a7",
    ];
    const MODES: [&str; 6] = ["det", "det2", "dice", "dice2", "cards", "cards2"];
    // Game g is start g / 6 in mode g % 6; the standard start's games are longer.
    let start = |game: usize| {
        let (index, mode) = (game / MODES.len(), MODES[game % MODES.len()]);
        let text = format!("{} {mode} 0 1", STARTS.get(index)?);
        let plies = if index == 0 { length * 5 / 2 } else { length };
        Some((Wickets::from_position_string(&text).unwrap(), plies))
    };
    Sample {
        keep: &|game, ply| ply % 3 == game % MODES.len() % 3,
        keep_end: false,
        count: usize::MAX,
    }
    .positions(seed, start)
}

fn the_reference_lists_the_same_turns_in_random_positions() {
    compare_with_the_reference(20, 24);
}

/// Longer games from other seeds (some minutes): by hand.
fn the_reference_lists_the_same_turns_in_many_random_positions() {
    for seed in [1, 2, 3] {
        compare_with_the_reference(seed, 80);
    }
}

/// Writes the legal turns of the random positions (each as the position after it and
/// its outcome) and has the reference compare them.
fn compare_with_the_reference(seed: u64, length: usize) {
    let positions = random_positions(seed, length);
    let dump = crate::reference::turns_dump(&positions, outcome_code);
    crate::reference::assert_the_reference_agrees("wickets", seed, &dump, positions.len());
}
