//! Long games of any of the six games, for the replay page's tests and its benchmark
//! (`benches/html.rs` includes this file): a seeded random walk over the turns the rules
//! and the game's history allow (Chesica's repetition ban included) from the game's start,
//! as `benches/archives.rs`'s playouts walk, that backs up out of a position with no such
//! turn (up to [`BACK`] plies) to try another turn, so that it lasts as long as asked.
//! Chesscala's random games from its start all end within a few dozen plies (attrition),
//! where no backing up escapes, so its long game starts from [`CHESSCALA_LONG`]. Past a
//! rule's end (fivefold repetition, the seventy-five-move rule, dead material) the record
//! plays on, as pbem replays such a record (with a warning), and its result is that end's:
//! those rules bound every legal game of chess, Chess with wickets, African Chess and
//! Cascudo to some thousands of plies, so a longer record can only play past its end.

use std::collections::VecDeque;

use pbem::games::{
    African, Cascudo, Chesica, Chess, Chesscala, Color, Game, GameResult, Outcome, RepetitionRule,
    Wickets,
};
use pbem::replay::History;

/// How far the walk may back up out of a dead end.
pub const BACK: usize = 64;

/// A Chesscala position where a game can last for ever: the four Kings and two Pawns a
/// side. Chesscala has no repetition rule and no move-count rule; only a checkmate or
/// twelve lost pieces end it, and here no side has twelve pieces to lose.
pub const CHESSCALA_LONG: &str = "k1k3/1p3p/6/6/6/6/P3P1/3K1K w - - 0/0 - 1";

/// A maker of long games: the game file of `plies` plies chosen by a seed.
pub type LongGame = fn(usize, u64) -> String;

/// Each game's name (as the files of the tests and the benchmark are named) and its
/// long games.
pub const LONG_GAMES: [(&str, LongGame); 6] = [
    ("chess", long_game::<Chess>),
    ("wickets", long_game::<Wickets>),
    ("chesica", long_game::<Chesica>),
    ("african", long_game::<African>),
    ("cascudo", long_game::<Cascudo>),
    ("chesscala", long_chesscala),
];

/// Chesscala's long game, from [`CHESSCALA_LONG`].
#[must_use]
pub fn long_chesscala(plies: usize, seed: u64) -> String {
    long_game_from::<Chesscala>(Some(CHESSCALA_LONG), plies, seed)
}

/// The game file of a game of `G` from its start, `plies` plies long, chosen by `seed`.
#[must_use]
pub fn long_game<G: Game>(plies: usize, seed: u64) -> String {
    long_game_from::<G>(None, plies, seed)
}

/// The game file of a game of `G` from the position string `from` (its start if none),
/// `plies` plies long, chosen by `seed`.
#[must_use]
pub fn long_game_from<G: Game>(from: Option<&str>, plies: usize, seed: u64) -> String {
    let mut head = format!(
        "[Event \"a long game\"]\n[Variant \"{}\"]\n",
        G::VARIANT.name()
    );
    let start = match from {
        Some(fen) => {
            head.push_str(&format!("[FEN \"{fen}\"]\n"));
            G::from_position_string(fen).expect("a valid position string")
        }
        None => G::start(),
    };
    let mut text = String::new();
    let mut state = seed;
    let mut history = History::starting_at(&start);
    // The last positions reached, each with its turns in the order they are tried and
    // how many were tried, and the tokens of the turns between them.
    let mut window = VecDeque::from([Tried::new(start, &history, None, &mut state)]);
    let mut tokens = VecDeque::new();
    let (mut played, mut line) = (0, 0);
    while played < plies {
        let top = window.back_mut().expect("a position");
        let Some(turn) = top.turns.get(top.tried).cloned() else {
            let left = window.pop_back().expect("a position");
            history.leave_key(left.position.repetition_key());
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
        history.enter(&after);
        let ended = top.ended;
        window.push_back(Tried::new(after, &history, ended, &mut state));
        played += 1;
        if window.len() > BACK {
            window.pop_front();
            write_token(&mut text, &mut line, tokens.pop_front().expect("a token"));
        }
    }
    for token in tokens {
        write_token(&mut text, &mut line, token);
    }
    // The result of the rules' end the line reached, if any (the record plays on past it).
    let result = window
        .back()
        .and_then(|last| last.ended)
        .map_or(GameResult::Unknown, Outcome::result);
    format!("{head}[Result \"{result}\"]\n\n{text}{result}\n")
}

/// A position of the walk, the turns its rules and history allow from a random one on
/// (under a repetition ban, those to positions not seen yet first),
/// how many of them were tried, and the first end of the game on the line to it.
struct Tried<G: Game> {
    position: G,
    ended: Option<Outcome>,
    turns: Vec<G::Turn>,
    tried: usize,
}

impl<G: Game> Tried<G> {
    fn new(position: G, history: &History<G>, ended: Option<Outcome>, state: &mut u64) -> Tried<G> {
        let ended = ended.or_else(|| history.outcome(&position));
        let mut turns = Vec::new();
        position.legal_turns_except(history.forbidden(), &mut turns);
        // The linear congruential generator of benches/archives.rs's playouts.
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        if !turns.is_empty() {
            let first = (*state >> 33) as usize % turns.len();
            turns.rotate_left(first);
        }
        // Under a repetition ban, turns to positions not seen yet first: a walk that
        // repeats uses up the positions that may still occur (in Chesica it runs into
        // positions whose every turn is forbidden, past any backing up).
        if matches!(G::REPETITION, RepetitionRule::IllegalAt(_)) {
            turns.sort_by_cached_key(|turn| {
                let mut after = position.clone();
                after.play(turn);
                history.occurrences(&after) > 0
            });
        }
        Tried {
            position,
            ended,
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
