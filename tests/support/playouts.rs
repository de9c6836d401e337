//! Long games of any of the six games, for the replay page's tests and its benchmark
//! (`benches/html.rs` includes this file): a seeded random walk over the legal turns from
//! the game's start, as `benches/archives.rs`'s playouts walk, that backs up out of a
//! position with no legal turn (up to [`BACK`] plies) to try another turn, so that it
//! lasts as long as asked. Chesscala is left out: its random games all end within a few
//! dozen plies (attrition), where no backing up escapes. Past a rule's end (fivefold repetition, the
//! seventy-five-move rule) the record plays on, as pbem replays such a record (with a
//! warning).

use std::collections::VecDeque;

use pbem::games::{Color, Game};

/// How far the walk may back up out of a dead end.
pub const BACK: usize = 64;

/// The game file of a game of `G` from its start, `plies` plies long, chosen by `seed`.
#[must_use]
pub fn long_game<G: Game>(plies: usize, seed: u64) -> String {
    let mut text = format!(
        "[Event \"a long game\"]\n[Variant \"{}\"]\n[Result \"*\"]\n\n",
        G::VARIANT.name()
    );
    let mut state = seed;
    // The last positions reached, each with its turns in the order they are tried and
    // how many were tried, and the tokens of the turns between them.
    let mut window = VecDeque::from([Tried::new(G::start(), &mut state)]);
    let mut tokens = VecDeque::new();
    let (mut played, mut line) = (0, 0);
    while played < plies {
        let top = window.back_mut().expect("a position");
        let Some(turn) = top.turns.get(top.tried).cloned() else {
            window.pop_back();
            tokens.pop_back();
            played -= 1;
            assert!(
                !window.is_empty(),
                "seed {seed}: a dead end {BACK} plies deep"
            );
            continue;
        };
        top.tried += 1;
        let position = &top.position;
        let number = match position.side_to_move() {
            Color::White => format!("{}. ", position.fullmove_number()),
            Color::Black if played == 0 => format!("{}... ", position.fullmove_number()),
            Color::Black => String::new(),
        };
        tokens.push_back(format!("{number}{} ", position.write_turn(&turn)));
        let mut after = position.clone();
        after.play(&turn);
        window.push_back(Tried::new(after, &mut state));
        played += 1;
        if window.len() > BACK {
            window.pop_front();
            write_token(&mut text, &mut line, tokens.pop_front().expect("a token"));
        }
    }
    for token in tokens {
        write_token(&mut text, &mut line, token);
    }
    text.push_str("*\n");
    text
}

/// A position of the walk, its legal turns from a random one on, and how many of them
/// were tried.
struct Tried<G: Game> {
    position: G,
    turns: Vec<G::Turn>,
    tried: usize,
}

impl<G: Game> Tried<G> {
    fn new(position: G, state: &mut u64) -> Tried<G> {
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        // The linear congruential generator of benches/archives.rs's playouts.
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        if !turns.is_empty() {
            let first = (*state >> 33) as usize % turns.len();
            turns.rotate_left(first);
        }
        Tried {
            position,
            turns,
            tried: 0,
        }
    }
}

/// Lines of at most about 80 characters.
fn write_token(text: &mut String, line: &mut usize, token: String) {
    *line += token.len();
    if *line > 80 {
        text.push('\n');
        *line = token.len();
    }
    text.push_str(&token);
}
