//! The independent Python references written from the rule pages
//! (`tests/data/<game>/reference.py`) against the engines.

use std::path::Path;

use pbem::games::Game;
use pbem::games::cascudo::Cascudo;
use pbem::games::chesscala::{Chesscala, Setup};

use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    let mut tests = crate::tests![&[Need::Python]; the_reference_lists_the_same_turns_in_a_few_random_positions];
    tests.extend(
        crate::tests![&[Need::Python]; the_reference_lists_the_same_turns_in_random_positions]
            .into_iter()
            .map(|test| Test {
                by_hand: Some(
                    "by hand: some 20 minutes of Chesscala against its Python reference; \
                     run with -- --ignored reference",
                ),
                ..test
            }),
    );
    tests.extend(
        crate::tests![&[Need::Python]; cascudo_the_reference_lists_the_same_cascades_and_checks_in_a_few_random_positions],
    );
    tests.extend(
        crate::tests![&[Need::Python]; cascudo_the_reference_lists_the_same_cascades_and_checks_in_random_positions]
            .into_iter()
            .map(|test| Test {
                by_hand: Some(
                    "by hand: some 10 minutes of Cascudo against its Python reference; \
                     run with -- --ignored reference",
                ),
                ..test
            }),
    );
    tests
}

/// Positions from seeded random games from every setup, with and without the "no draws"
/// option, for the comparison with the independent reference: `count` positions, the
/// turns of each game chosen by SplitMix64 from `seed`.
fn random_positions(count: usize, seed: u64) -> Vec<Chesscala> {
    let mut positions = Vec::new();
    let mut state = seed;
    let mut turns = Vec::new();
    let mut game = 0;
    while positions.len() < count {
        let setup = Setup::ALL[game % Setup::ALL.len()];
        let mut text = setup.position_string().to_owned();
        if game % 4 == 3 {
            text.push_str(" nodraws");
        }
        game += 1;
        let mut position = Chesscala::from_position_string(&text).unwrap();
        for ply in 0..120 {
            if position.outcome().is_some() {
                break;
            }
            // Every third position of a game, the later plies more often.
            if ply % 3 == 2 && positions.len() < count {
                positions.push(position.clone());
            }
            turns.clear();
            position.legal_turns(&mut turns);
            state = pbem::games::splitmix(state);
            let turn = &turns[(state % turns.len() as u64) as usize];
            position.play(turn);
        }
        if position.outcome().is_some() && positions.len() < count {
            positions.push(position);
        }
    }
    positions
}

/// The reference's outcome codes: "-", "1-0 m", "0-1 a", "= m", "= a", "= s".
fn outcome_code(position: &Chesscala) -> String {
    use pbem::games::{Color, DrawReason, Outcome, WinReason};
    match position.outcome() {
        None => "-".to_owned(),
        Some(Outcome::Win { winner, reason }) => {
            let result = if winner == Color::White { "1-0" } else { "0-1" };
            let why = if reason == WinReason::Attrition {
                "a"
            } else {
                "m"
            };
            format!("{result} {why}")
        }
        Some(Outcome::Draw { reason }) => match reason {
            DrawReason::SimultaneousCheckmate => "= m".to_owned(),
            DrawReason::AttritionOnLastTurn => "= a".to_owned(),
            _ => "= s".to_owned(),
        },
    }
}

/// Runs `tests/data/chesscala/reference.py --compare` on the legal turns of `count`
/// random positions (each as the position after it and its outcome); skipped when
/// `python3` is missing.
fn compare_with_the_reference(count: usize, seed: u64) {
    let dump = turns_dump(&random_positions(count, seed), outcome_code);
    let out = reference_compare("chesscala", seed, &dump);
    assert!(
        out.contains(&format!("{count} positions, 0 differ")),
        "{out}"
    );
}

/// Each position ("P <position>") and each of its legal turns as the position after it
/// and its outcome ("T <position>\t<outcome>"): what the reference scripts compare.
pub fn turns_dump<G: Game>(positions: &[G], outcome_code: impl Fn(&G) -> String) -> String {
    use std::fmt::Write as _;
    let mut dump = String::new();
    let mut turns = Vec::new();
    for position in positions {
        writeln!(dump, "P {}", position.position_string()).unwrap();
        turns.clear();
        position.legal_turns(&mut turns);
        for turn in &turns {
            let mut next = position.clone();
            next.play(turn);
            writeln!(
                dump,
                "T {}\t{}",
                next.position_string(),
                outcome_code(&next)
            )
            .unwrap();
        }
    }
    dump
}

/// Runs `python3 tests/data/<game>/reference.py ARGS`, which must succeed; returns what
/// it printed.
pub fn reference(game: &str, args: &[&str]) -> String {
    let output = std::process::Command::new("python3")
        .arg(format!("tests/data/{game}/reference.py"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs");
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// Writes `dump` into Cargo's temporary directory as `<game>-reference-<seed>.txt` (kept,
/// to run the reference on by hand) and has the game's reference compare it; returns
/// what the reference printed.
pub fn reference_compare(game: &str, seed: u64, dump: &str) -> String {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{game}-reference-{seed}.txt"));
    std::fs::write(&path, dump).unwrap();
    reference(game, &["--compare", path.to_str().unwrap()])
}

/// A few positions through the independent reference on every run (the full
/// comparison below is run by hand).
fn the_reference_lists_the_same_turns_in_a_few_random_positions() {
    compare_with_the_reference(8, 11);
}

/// The comparison with the independent reference (300 positions from random games; it
/// takes some 20 minutes, so it is run by hand):
/// `cargo test --test outside -- --ignored reference`.
fn the_reference_lists_the_same_turns_in_random_positions() {
    compare_with_the_reference(300, 2);
}

/// Cascudo positions from seeded random games (from the start and from a position with
/// pawns near promotion), every fourth position of each game, for the comparison with
/// tests/data/cascudo/reference.py.
fn cascudo_random_positions(count: usize, seed: u64) -> Vec<Cascudo> {
    const STARTS: [&str; 2] = [
        "b/qbk/npbpn/rp3pr/p5p/3B3/PPPBPPP/RNQBKNR w 0 1",
        "1/B2/1P1P1/5nk/7/1N5/2p1p2/K1n4 w 0 1",
    ];
    let mut positions = Vec::new();
    let mut state = seed;
    let mut turns = Vec::new();
    let mut game = 0;
    while positions.len() < count {
        let mut position = Cascudo::from_position_string(STARTS[game % STARTS.len()]).unwrap();
        game += 1;
        for ply in 0..80 {
            if ply % 4 == 3 && positions.len() < count {
                positions.push(position.clone());
            }
            turns.clear();
            position.legal_turns(&mut turns);
            if turns.is_empty() || position.outcome().is_some() {
                break;
            }
            state = pbem::games::splitmix(state);
            position.play(&turns[(state % turns.len() as u64) as usize]);
        }
    }
    positions
}

/// Runs `tests/data/cascudo/reference.py --compare` on the legal cascades of `count`
/// random positions and on whether the side to move is in check (ruling 7).
fn cascudo_compare_with_the_reference(count: usize, seed: u64) {
    use std::fmt::Write as _;
    let mut dump = String::new();
    let mut turns = Vec::new();
    for position in cascudo_random_positions(count, seed) {
        writeln!(dump, "P {}", position.position_string()).unwrap();
        writeln!(dump, "C {}", u8::from(position.is_check())).unwrap();
        turns.clear();
        position.legal_turns(&mut turns);
        for turn in &turns {
            // The reference's form: origin, then each destination with its promotion.
            let mut text = turn.origin().to_string();
            for (to, promotion) in turn.cells()[1..].iter().zip(turn.promotions()) {
                write!(text, "-{to}").unwrap();
                if let Some(role) = promotion {
                    write!(text, "={}", role.upper_char()).unwrap();
                }
            }
            writeln!(dump, "T {text}").unwrap();
        }
    }
    let out = reference_compare("cascudo", seed, &dump);
    assert!(
        out.contains(&format!("{count} positions, 0 differ")),
        "{out}"
    );
}

/// A few Cascudo positions through the independent reference on every run.
fn cascudo_the_reference_lists_the_same_cascades_and_checks_in_a_few_random_positions() {
    cascudo_compare_with_the_reference(6, 7);
}

/// The full Cascudo comparison (200 positions; slow, run by hand).
fn cascudo_the_reference_lists_the_same_cascades_and_checks_in_random_positions() {
    cascudo_compare_with_the_reference(200, 3);
}
