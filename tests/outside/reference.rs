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
/// option, for the comparison with the independent reference: `count` positions, every
/// third of each game and its end.
fn random_positions(count: usize, seed: u64) -> Vec<Chesscala> {
    let start = |game: usize| {
        let setup = Setup::ALL[game % Setup::ALL.len()];
        let nodraws = if game % 4 == 3 { " nodraws" } else { "" };
        let text = format!("{}{nodraws}", setup.position_string());
        Some((Chesscala::from_position_string(&text).unwrap(), 120))
    };
    Sample {
        keep: &|_, ply| ply % 3 == 2,
        keep_end: true,
        count,
    }
    .positions(seed, start)
}

/// Which positions of seeded random games a comparison with a reference takes.
pub struct Sample<'a> {
    /// Whether to keep the position before ply `ply` (from 0) of game `game` (from 0).
    pub keep: &'a dyn Fn(usize, usize) -> bool,
    /// Whether to keep the last position of a game that ended by the rules.
    pub keep_end: bool,
    /// How many positions at most.
    pub count: usize,
}

impl Sample<'_> {
    /// Plays random games, the turns chosen by SplitMix64 from `seed`, from the starts
    /// `start` gives for game 0, 1, ... (the position and at most how many plies to play;
    /// `None` when there are no more), until `count` positions are kept.
    pub fn positions<G: Game>(
        &self,
        seed: u64,
        mut start: impl FnMut(usize) -> Option<(G, usize)>,
    ) -> Vec<G> {
        let mut positions = Vec::new();
        let mut state = seed;
        let mut turns = Vec::new();
        let mut game = 0;
        while positions.len() < self.count {
            let Some((mut position, plies)) = start(game) else {
                break;
            };
            for ply in 0..plies {
                if position.outcome().is_some() {
                    break;
                }
                if (self.keep)(game, ply) && positions.len() < self.count {
                    positions.push(position.clone());
                }
                turns.clear();
                position.legal_turns(&mut turns);
                if turns.is_empty() {
                    break;
                }
                state = pbem::games::splitmix(state);
                position.play(&turns[(state % turns.len() as u64) as usize]);
            }
            if self.keep_end && position.outcome().is_some() && positions.len() < self.count {
                positions.push(position);
            }
            game += 1;
        }
        positions
    }
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
    assert_the_reference_agrees("chesscala", seed, &dump, count);
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

/// Writes `dump` of `count` positions into Cargo's temporary directory as
/// `<game>-reference-<seed>.txt` (kept, to run the reference on by hand) and has the
/// game's reference compare it: it must find every position the same.
pub fn assert_the_reference_agrees(game: &str, seed: u64, dump: &str, count: usize) {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{game}-reference-{seed}.txt"));
    std::fs::write(&path, dump).unwrap();
    let out = reference(game, &["--compare", path.to_str().unwrap()]);
    assert!(
        out.contains(&format!("{count} positions, 0 differ")),
        "{out}"
    );
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
    let start = |game: usize| {
        let text = STARTS[game % STARTS.len()];
        Some((Cascudo::from_position_string(text).unwrap(), 80))
    };
    Sample {
        keep: &|_, ply| ply % 4 == 3,
        keep_end: false,
        count,
    }
    .positions(seed, start)
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
    assert_the_reference_agrees("cascudo", seed, &dump, count);
}

/// A few Cascudo positions through the independent reference on every run.
fn cascudo_the_reference_lists_the_same_cascades_and_checks_in_a_few_random_positions() {
    cascudo_compare_with_the_reference(6, 7);
}

/// The full Cascudo comparison (200 positions; slow, run by hand).
fn cascudo_the_reference_lists_the_same_cascades_and_checks_in_random_positions() {
    cascudo_compare_with_the_reference(200, 3);
}
