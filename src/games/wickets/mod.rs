//! Chess with wickets: orthodox chess plus two wicket squares behind the kings, a Ball
//! each side throws between its pieces, Defenders that guard the wickets and scoring
//! attempts decided by a decision mode (see `notation/wickets.md`).
//!
//! The position reuses the orthodox engine's [`Board`] for the 64 squares, its attack
//! tables for every line that stays on the board and its square, piece and castling
//! types. The two wickets are extra places ([`Loc::W0`], [`Loc::W9`]) joined to the board
//! as e0 and e9 would be; lines into and out of them are walked square by square. Loose
//! Balls, the Ball-havers and the Defenders are kept beside the board.
//!
//! Turns are generated whole (a Defender naming, the move, the drop of a captured
//! Ball-haver's Ball, the throw and the decision of a scoring attempt) and kept only if
//! the mover's king is safe at the end of the turn.
//!
//! The modules' imports run one way: `mode` (the decision modes) ← `cards` (the deck)
//! ← `board` (places, the position string) ← `movegen` (moves and turns, a turn's
//! decision parts) ← `throws` and `decision` (the drop places and throws; judging an
//! attempt) ← `notation`. The position type and what it holds beside the board
//! (`AwaitedRoll`) are in this module, above them all.
//!
//! # How it is built
//!
//! Chess with wickets, built on `games::chess`: it reuses the orthodox `Board` for the 64
//! squares, the attack tables (`attacks`, `bitboard`, `types` are `pub(crate)` for this) for
//! every line that stays on the board, and `CastlingRights`. Modules: `board` (the places:
//! `Loc`, the two wickets as `Loc`s 64 and 65 at e0/e9, lines into and out of them walked
//! square by square; `LocSet`; what attacks what, whether a Defender sees its wicket; the
//! position string, read, checked and written, its counters by the shared `check_count`), `movegen`
//! (`Move`, `Turn`, the moves of each piece, castling, playing a move, and `generate`:
//! naming, move, drop, throw and decision combined, kept when the mover's king is safe),
//! `throws` (drop places, who throws after a move, where a Ball may fly, landing it),
//! `decision` (the `DecisionMode`, and the one place where chance is judged: which
//! decisions an attempt may carry, with rulings 12 and 13, and whether it succeeds; issue
//! 16's fair chance plugs in here), `cards` (the deck) and `notation` (tokens, resolving
//! and the reasons for illegal turns, writing with disambiguation among legal turns). Beside
//! the board the position keeps the wicket contents, the loose Balls, the Ball-havers and
//! Defenders by place, the `DecisionMode` (Deterministic, Deterministic II, Dice, Dice II,
//! Cards, Cards II) and, for the Cards modes, `cards::CardState`: the discards since the
//! last reshuffle (a 40-bit mask), the cards of an attempt still awaiting a card, and the
//! deal when a `[Deal]` tag gives it (the shuffled order behind an `Arc`, the hands as
//! masks, how far the deck is drawn; dropped at the first reshuffle, whose order is
//! unknown). `cards::judge` decides an attempt's cards (pairs, the 2.5 bonus, ties, the
//! Cards II second pair). A `Turn` is whole: Defender naming, move, drop, throw, decision
//! steps; `generate` builds every combination (a Cards attempt once, without its cards,
//! which `resolve` checks and adds) and keeps those after which the mover's king is not
//! attacked by a piece outside the wickets (so a thrown Ball may block a check), for both
//! outcomes of an attempt decided by chance. By mail, an attempt that awaits a card is
//! completed by the awaited side (`Game::awaited_side`, `awaited_parts`, `complete_token`,
//! `completes`: `correspondence::play` rewrites the last token and stamps the part,
//! `compare` and `completes_last` take the completion as news). A Cards II failing first
//! pair awaits the thrower's choice (`cards::Verdict::AwaitsSecondPair`): a second pair,
//! or `Decision::Decline` (`_c-`). `Wickets::chance_outcome` says in words what chance
//! decided in an attempt (the roll against what was needed, the card pairs, a decline),
//! which `pbem move` and `pbem receive` print.
//! An independent reference, `tests/data/wickets/reference.py`, is compared with the engine
//! in the `outside` binary (perft 21 / 441 / 11,908 from the start, 319,488 at depth 4 by
//! hand; the script alone gives 10,535,727 at depth 5 in some ten minutes, as pbem does; and
//! the legal turns of random positions in all six modes).
//!
//! Invariants: each side's Ball is held by its Ball-haver or loose, never both; only the side
//! to move may lack a Defender (it names one first); a side without a king has lost.

mod board;
mod cards;
mod decision;
mod mode;
mod movegen;
mod notation;
mod throws;

use std::fmt::Write as _;
use std::hash::{DefaultHasher, Hash, Hasher};

pub use board::Loc;
pub use cards::Card;
use cards::{CardState, Deal};
use decision::card_plays;
pub use mode::DecisionMode;
pub use movegen::{Decision, Move, MoveKind, Turn};
pub use notation::{MovePart, Step, Syntax};

use crate::games::chess::types::{Piece, Role, Square, color_index};
use crate::games::chess::{Board, CastlingRights, chess_kinds_and, chess_man};
use crate::games::snapshot::square_names;
use crate::games::{Man, PieceKind, Snapshot, Stacking};

/// The converters' names: the orthodox pieces, the Ball and the Defender marker.
const WICKETS_KINDS: [PieceKind; 8] = chess_kinds_and([
    PieceKind {
        name: "Ball",
        label: "O",
    },
    PieceKind {
        name: "Defender",
        label: "D",
    },
]);
use crate::games::{
    Color, DrawReason, Game, IllegalTurn, Outcome, RepetitionRule, SetupError, Tags,
    TurnSyntaxError, Variant, WinReason,
};

/// A Dice scoring attempt sent before its roll is known (issue 16, fair chance by mail):
/// the thrower's turn carries no roll, the opponent's pbem computes it from both players'
/// revealed values and completes the token. In Dice II the thrower names in advance the
/// piece it sacrifices for a second roll should the first fail: only the failure of the
/// first roll is news to the thrower, so deciding before it is the same choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct AwaitedRoll {
    /// The piece sacrificed for a second roll if the first fails (Dice II).
    sacrifice: Option<Loc>,
}

/// A position of Chess with wickets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wickets {
    board: Board,
    /// The piece in w0 and in w9 (Balls are in `loose`).
    wicket: [Option<Piece>; 2],
    /// Each side's Ball when it is loose, by owner.
    loose: [Option<Loc>; 2],
    haver: [Option<Loc>; 2],
    defender: [Option<Loc>; 2],
    turn: Color,
    castling: CastlingRights,
    ep_square: Option<Square>,
    halfmove_clock: u32,
    fullmove_number: u32,
    mode: DecisionMode,
    cards: CardState,
    /// A Dice attempt sent without its roll (fair chance by mail), until it is completed.
    awaited_roll: Option<AwaitedRoll>,
}

fn idx(color: Color) -> usize {
    color_index(color)
}

const fn wicket_index(loc: Loc) -> usize {
    (loc.0 == Loc::W9.0) as usize
}

impl Wickets {
    /// The standard start in the given decision mode.
    #[must_use]
    pub fn start_with(mode: DecisionMode) -> Wickets {
        Wickets {
            board: Board::standard(),
            wicket: [None; 2],
            loose: [None; 2],
            haver: [
                Some(Loc::from_name("e1").expect("a square")),
                Some(Loc::from_name("e8").expect("a square")),
            ],
            defender: [
                Some(Loc::from_name("d1").expect("a square")),
                Some(Loc::from_name("d8").expect("a square")),
            ],
            turn: Color::White,
            castling: CastlingRights::ALL,
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
            mode,
            cards: CardState::default(),
            awaited_roll: None,
        }
    }

    /// The decision mode.
    #[must_use]
    pub fn mode(&self) -> DecisionMode {
        self.mode
    }

    /// The Ball-haver of `color`, if its Ball is held.
    #[must_use]
    pub fn ball_haver(&self, color: Color) -> Option<Loc> {
        self.haver[idx(color)]
    }

    /// The Defender of `color` (none only while its owner must name one).
    #[must_use]
    pub fn defender(&self, color: Color) -> Option<Loc> {
        self.defender[idx(color)]
    }

    /// Where the Ball owned by `color` lies loose, if it does.
    #[must_use]
    pub fn loose_ball(&self, color: Color) -> Option<Loc> {
        self.loose[idx(color)]
    }

    fn finish_turn(&mut self) {
        if self.turn == Color::Black {
            self.fullmove_number = crate::games::count_up(self.fullmove_number);
        }
        self.turn = self.turn.other();
    }

    /// Whether both sides have nothing but their King (ruling 15: the one dead position,
    /// since a lone King is its side's Defender and can never receive a Ball).
    fn bare_kings(&self) -> bool {
        [Color::White, Color::Black].into_iter().all(|color| {
            self.locs_of(color)
                .all(|loc| self.piece_at(loc).is_some_and(|p| p.role == Role::King))
        })
    }

    /// The end imposed by the wicket rules: a King Defender taken, or a side that must
    /// name a Defender and has none to name.
    fn wicket_end(&self) -> Option<Outcome> {
        for color in [Color::White, Color::Black] {
            if self.king_loc(color).is_none() {
                return Some(Outcome::Win {
                    winner: color.other(),
                    reason: WinReason::KingDefenderTaken,
                });
            }
        }
        let us = self.turn;
        if self.defender[idx(us)].is_none() && self.naming_candidates(us).is_empty() {
            return Some(Outcome::Win {
                winner: us.other(),
                reason: WinReason::NoDefender,
            });
        }
        None
    }

    fn position_key(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.cards.discards.hash(&mut hasher);
        self.cards.attempt.hash(&mut hasher);
        self.awaited_roll.hash(&mut hasher);
        self.board.placement_hash().hash(&mut hasher);
        self.wicket.hash(&mut hasher);
        self.loose.hash(&mut hasher);
        self.haver.hash(&mut hasher);
        self.defender.hash(&mut hasher);
        self.turn.hash(&mut hasher);
        self.castling.hash(&mut hasher);
        self.ep_square.hash(&mut hasher);
        hasher.finish()
    }
}

impl Game for Wickets {
    type Turn = Turn;
    type Syntax = Syntax;

    /// The orthodox pieces, plus a `Ball` (`O`) for each side's Ball (with its
    /// Ball-haver, or alone where it lies loose) and a `Defender` marker (`D`) with each
    /// side's Defender; the wickets are the places `w0` and `w9`, after h8. A place's
    /// pieces have no order.
    const PIECE_KINDS: &'static [PieceKind] = &WICKETS_KINDS;

    fn snapshot(&self) -> Option<Snapshot> {
        let names = square_names().chain(["w0".to_owned(), "w9".to_owned()]);
        let mut snapshot = Snapshot::new(Stacking::Unordered, names);
        for (index, place) in snapshot.places.iter_mut().enumerate() {
            let loc = Loc(index as u8);
            if let Some(piece) = self.piece_at(loc) {
                place.pieces.push(chess_man(piece));
            }
        }
        for color in [Color::White, Color::Black] {
            let side = idx(color);
            for (loc, kind) in [
                (self.loose[side], WICKETS_KINDS[6]),
                (self.haver[side], WICKETS_KINDS[6]),
                (self.defender[side], WICKETS_KINDS[7]),
            ] {
                if let Some(loc) = loc {
                    snapshot.places[usize::from(loc.0)]
                        .pieces
                        .push(Man { color, kind });
                }
            }
        }
        Some(snapshot.normalized())
    }

    const VARIANT: Variant = Variant::ChessWithWickets;
    const REPETITION: RepetitionRule = RepetitionRule::Draw {
        claim: 3,
        automatic: Some(5),
    };
    const FIFTY_MOVE_CLAIM: bool = true;

    fn start() -> Wickets {
        Wickets::start_with(DecisionMode::Deterministic)
    }

    /// `[Decision]` picks the mode (Deterministic when absent); `[FEN]` the start. A FEN
    /// whose mode field disagrees with the tag is an error.
    fn from_tags(tags: &dyn Tags) -> Result<Wickets, SetupError> {
        let mode = tags
            .tag("Decision")
            .map(DecisionMode::from_name)
            .transpose()?;
        let mut position: Wickets = crate::games::position_from_setup_tags(tags)?;
        if let Some(mode) = mode {
            if tags
                .tag("FEN")
                .is_some_and(|fen| fen.split_whitespace().count() >= 10)
                && position.mode != mode
            {
                return Err(SetupError::new(format!(
                    "the fen says the decision mode is {} but the decision tag says {}",
                    position.mode.name(),
                    mode.name()
                )));
            }
            position.mode = mode;
        }
        if let Some(deal) = tags.tag("Deal") {
            if !position.mode.is_cards() {
                return Err(SetupError::new(format!(
                    "a deal tag needs a Cards mode, and the decision mode is {}",
                    position.mode.name()
                )));
            }
            if position.cards.discards != 0 || position.cards.attempt.is_some() {
                return Err(SetupError::new(
                    "a deal tag gives the deal before any card is played: the fen has discards",
                ));
            }
            position.cards.deal = Some(Deal::from_tag(deal)?);
        }
        Ok(position)
    }

    fn from_position_string(text: &str) -> Result<Wickets, SetupError> {
        board::read_position(text)
    }

    fn position_string(&self) -> String {
        board::write_position(self)
    }

    fn diagram(&self) -> String {
        let mut out = String::with_capacity(300);
        let wicket_char = |loc: Loc| {
            self.piece_at(loc)
                .map(Piece::char)
                .or_else(|| self.ball_at(loc).map(ball_char))
                .unwrap_or('.')
        };
        let _ = writeln!(out, "w9        {}", wicket_char(Loc::W9));
        for rank in (0..8).rev() {
            let _ = write!(out, "{} ", rank + 1);
            for file in 0..8 {
                let loc = Loc::square(Square::from_coords(file, rank));
                out.push(wicket_char(loc));
                out.push(if file < 7 { ' ' } else { '\n' });
            }
        }
        let _ = writeln!(out, "w0        {}", wicket_char(Loc::W0));
        out.push_str("  a b c d e f g h\n");
        for color in [Color::White, Color::Black] {
            let ball = match (self.haver[idx(color)], self.loose[idx(color)]) {
                (Some(loc), _) => format!("held on {loc}"),
                (None, Some(loc)) => format!("loose on {loc}"),
                (None, None) => "gone".to_owned(),
            };
            let defender = self.defender[idx(color)]
                .map_or_else(|| "none (to be named)".to_owned(), |loc| loc.to_string());
            let _ = writeln!(out, "{color}: Ball {ball}, Defender {defender}");
        }
        let _ = writeln!(out, "Decision: {}", self.mode.name());
        out
    }

    fn side_to_move(&self) -> Color {
        self.turn
    }

    fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    fn legal_turns(&self, out: &mut Vec<Turn>) {
        self.generate(true, out);
    }

    /// Counts the last level's turns without keeping them (`movegen::Count`).
    fn perft(&self, depth: u32) -> u64 {
        super::perft_counting_last(self, depth, |position| {
            let mut count = movegen::Count::default();
            position.generate_with(true, true, &mut count);
            count.0
        })
    }

    fn parse_turn(token: &str) -> Result<Syntax, TurnSyntaxError> {
        Syntax::parse(token)
    }

    fn resolve(&self, syntax: &Syntax) -> Result<Turn, IllegalTurn> {
        notation::resolve(self, syntax)
    }

    fn write_turn(&self, turn: &Turn) -> String {
        notation::write_turn(self, turn)
    }

    fn play(&mut self, turn: &Turn) {
        let us = self.turn;
        *self = self.after_move(turn);
        self.awaited_roll = None;
        if let Some(target) = turn.throw {
            let attempt = self.is_attempt(target);
            // A Dice attempt without a roll waits for it; it is played as a failure
            // until the completed token replaces it.
            let roll_awaited = attempt
                && self.mode.is_dice()
                && !turn.decision.iter().any(|d| matches!(d, Decision::Roll(_)));
            let success = attempt && !roll_awaited && self.verdict(&turn.decision);
            let decided = attempt && self.attempt_decided(&turn.decision);
            let sacrificed = if roll_awaited {
                Vec::new()
            } else {
                decision::sacrifices(&turn.decision)
            };
            self.apply_throw(target, &sacrificed, success);
            if roll_awaited {
                self.awaited_roll = Some(AwaitedRoll {
                    sacrifice: decision::sacrifices(&turn.decision).first().copied(),
                });
            }
            if self.mode.is_cards() && attempt {
                let played = card_plays(&turn.decision);
                let mut lead = None;
                for (i, &card) in played.iter().enumerate() {
                    let player = if i % 2 == 0 { us } else { us.other() };
                    // A legal turn's cards are playable; an illegal one is played as far
                    // as it goes.
                    let _ = self.cards.play(player, card, lead);
                    lead = (i % 2 == 0).then_some(card);
                }
                if !decided {
                    self.cards.attempt = Some(played);
                }
            }
        }
        self.finish_turn();
    }

    /// The wicket ends first (a King Defender taken, no Defender to name), then mate and
    /// stalemate, then the seventy-five-move rule. The position is dead only with bare
    /// Kings (ruling 15): with any other piece a side can still take a wicket.
    fn outcome(&self) -> Option<Outcome> {
        if self.cards.attempt.is_some() || self.awaited_roll.is_some() {
            return None;
        }
        if let Some(end) = self.wicket_end() {
            return Some(end);
        }
        if self.bare_kings() {
            return self.outcome_with_legal_turn();
        }
        let mut turns = Vec::new();
        self.legal_turns(&mut turns);
        if turns.is_empty() {
            return Some(if self.in_check(self.turn) {
                Outcome::Win {
                    winner: self.turn.other(),
                    reason: WinReason::Checkmate,
                }
            } else {
                Outcome::Draw {
                    reason: DrawReason::Stalemate,
                }
            });
        }
        self.outcome_with_legal_turn()
    }

    fn outcome_with_legal_turn(&self) -> Option<Outcome> {
        if self.bare_kings() {
            return Some(Outcome::Draw {
                reason: DrawReason::InsufficientMaterial,
            });
        }
        (self.halfmove_clock >= 150).then_some(Outcome::Draw {
            reason: DrawReason::SeventyFiveMoves,
        })
    }

    fn claimable_draw(&self) -> Option<DrawReason> {
        (self.halfmove_clock >= 100).then_some(DrawReason::FiftyMoves)
    }

    fn repetition_key(&self) -> u64 {
        self.position_key()
    }

    fn annotation_mismatch(&self, syntax: &Syntax) -> Option<String> {
        notation::annotation_mismatch(self, syntax)
    }

    fn awaiting(&self) -> Option<String> {
        self.roll_awaiting().or_else(|| Wickets::awaiting(self))
    }

    /// The opponent while its reply is awaited, the thrower while its card is (none
    /// played yet, or after a tie).
    fn awaited_side(&self) -> Option<Color> {
        if self.awaited_roll.is_some() {
            return Some(self.turn);
        }
        let played = self.cards.attempt.as_ref()?;
        Some(if played.len() % 2 == 1 {
            self.turn
        } else {
            self.turn.other()
        })
    }

    fn awaited_part(&self) -> &'static str {
        if self.awaited_roll.is_some() {
            "roll"
        } else {
            "card"
        }
    }

    fn awaited_parts(&self) -> Vec<String> {
        Wickets::awaited_parts(self)
    }

    /// A card, written `D4`, `cD4` or `_cD4`, added to the attempt's token; or `-` (also
    /// `c-`, `_c-`), the thrower declining the Cards II second pair.
    fn complete_token(last: &str, part: &str) -> Option<String> {
        let part = part.trim();
        let name = part
            .strip_prefix("_c")
            .or_else(|| part.strip_prefix('c'))
            .unwrap_or(part);
        let step = if name == "-" {
            "-".to_owned()
        } else {
            Card::from_name(name)?.to_string()
        };
        Some(format!("{}_c{step}", last.trim_end_matches(['+', '#'])))
    }

    fn completes(earlier: &str, later: &str) -> bool {
        if let (Ok(before), Ok(after)) = (Syntax::parse(earlier), Syntax::parse(later))
            && before.naming == after.naming
            && before.mv == after.mv
            && before.drop == after.drop
            && before.throw == after.throw
            && before.throw.is_some()
            && decision::completes_roll(&before.steps, &after.steps)
        {
            return true;
        }
        let earlier = earlier.trim_end_matches(['+', '#']);
        let later = later.trim_end_matches(['+', '#']);
        later.len() > earlier.len()
            && later.starts_with(earlier)
            && later[earlier.len()..]
                .strip_prefix('_')
                .is_some_and(|rest| {
                    rest.split('_').all(|step| {
                        step.strip_prefix('c')
                            .is_some_and(|card| card == "-" || Card::from_name(card).is_some())
                    })
                })
    }
}

/// The placement letter of a loose Ball owned by `owner`: it is a piece of the other
/// colour, so White's Ball is `o` and Black's is `O`.
const fn ball_char(owner: Color) -> char {
    match owner {
        Color::White => 'o',
        Color::Black => 'O',
    }
}

#[cfg(test)]
mod tests;
