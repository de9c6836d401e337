//! Chesscala, Francois Tremblay and David Mustoe's hybrid of chess and mancala (2011),
//! with the project's rulings.
//!
//! The 6x8 board is three mancala circuits (files a-b, c-d, e-f). A square holds a stack
//! of up to four pieces of both colours; whoever has at least as many pieces in a stack
//! controls it and may sow it: every piece but the Kings is laid down one a square along
//! the circuit, in any order, skipping full squares. A turn is an optional capture (pieces
//! capture as in chess, plus the Bomb, the Hammer and the Man) then a sowing move (a
//! sowing, a King step within its field, or the pawn double move). A Bomb that has just
//! been sown may capture as the second move; a side under multiple checks may make any
//! two moves. Checkmating either King wins, after the loser's extra turn, and so does
//! taking twelve pieces; the "no draws" option ends the game at once instead.
//!
//! The position is a 48-stack [`Board`] with the turn state the legal turns depend on;
//! turns ([`Turn`]) are one or two [`Move`]s. Tokens read into [`Notation`] without a
//! board.
//!
//! # How it is built
//!
//! Chesscala, Tremblay and Mustoe's hybrid of chess and mancala. `board` (`Sq`: 48 squares,
//! `rank * 6 + file`, with `successor` along the square's mancala circuit; `Role` with the
//! Hammer, the Bomb and the Man; `Piece`, a side and a role packed in one byte; `Stack`, four
//! piece codes sorted from the highest down, so a stack is a multiset, equal stacks are equal
//! bytes and a board is 192 bytes to copy; `sowing_squares`, where the pieces of a sowing
//! land, which does not depend on their order; the position string with parentheses round a
//! stack of several pieces), `movegen` (`Move`: capture, sowing with its order, King step,
//! pawn double move; `Turn`: one or two moves in a fixed array; captures of every role, the
//! Hammer's three modes in `hammer_landing`; sowings in each distinct order, found by
//! permuting the lifted pieces and keeping one order per distinct landing of (possibly
//! promoted) pieces, compared as a multiset of (square, piece) so that a sowing that wraps
//! round and lays several pieces on one square gives each position once; turns built as sowing, capture then sowing, sowing then a Bomb capture
//! where the Bomb landed, and under multiple checks any two moves; `attackers`, which counts
//! capturing moves and sowings that could lay a Bomb on a square), `notation`
//! (`Notation`: up to two `MoveSyntax` joined by `,` and a marker; `resolve` with the reasons
//! in words and the ambiguous readings listed; the canonical writer, which leaves out the
//! order of a sowing when no other legal turn differs from the turn by that order alone).
//!
//! Invariants: the position carries everything the legal turns depend on (first turn, open
//! double moves, lost pieces, the phase of rule 15, the "no draws" option), and the phase is
//! settled once, when a position is made by `play` or read (`settle`), so `outcome` is cheap
//! except when the side to move has no legal turn; checkmate is only computed when a King
//! is in check; Kings are never captured (a capture of a King is what check means). The
//! named setups are the project's reconstructions, chosen by the `[Array]` tag.
//!
//! Tests: the scenario table `tests/data/chesscala/scenarios.txt`, perft, playouts and the
//! commands in `tests/integration/chesscala.rs`. `tests/data/chesscala/reference.py` is an
//! independent Python program written from the rule page and rulings 1-18 (without reading
//! the engine's move generation; it follows the decisions documented in
//! `notation/chesscala.md` where the rules are silent). It confirms perft depth 1 and 2 of
//! the three setups (33 / 5,481, 33 / 5,280, 34 / 5,636) and the legal turns (as resulting
//! position strings, with each one's outcome) of 300 positions from seeded random games,
//! through a by-hand test (`cargo test --test outside -- --ignored reference`, 20 minutes,
//! so not in CI).

mod board;
mod movegen;
mod notation;

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

pub use board::{Board, Piece, Role, Sq, Stack};
pub use movegen::{Move, Turn};
pub use notation::{MoveSyntax, Notation};

use crate::games::chess::chess_kinds_and;
use crate::games::{
    Color, DrawReason, Game, IllegalTurn, Man, Outcome, PieceKind, RepetitionRule, SetupError,
    Snapshot, Stacking, Tags, TurnSyntaxError, Variant, WinReason,
};

/// Chesscala's pieces as the converters name them: the chess pieces, then the Bomb
/// (`O`, its letter in the position string), the Hammer and the Man.
const CHESSCALA_KINDS: [PieceKind; 9] = chess_kinds_and([
    PieceKind {
        name: "Bomb",
        label: "O",
    },
    PieceKind {
        name: "Hammer",
        label: "H",
    },
    PieceKind {
        name: "Man",
        label: "M",
    },
]);

/// A Chesscala piece as the converters name it.
fn chesscala_man(piece: Piece) -> Man {
    let kind = match piece.role() {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
        Role::Bomb => 6,
        Role::Hammer => 7,
        Role::Man => 8,
    };
    Man {
        color: piece.color(),
        kind: CHESSCALA_KINDS[kind],
    }
}

/// Why a side plays a last turn (rule 15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LastTurnReason {
    /// One of its Kings is checkmated.
    Checkmate,
    /// It has lost 12 or more pieces.
    Attrition,
}

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The game goes on (or ended at once: simultaneous mates, the "no draws" option).
    Play,
    /// The side to move plays its last turn (rule 15).
    LastTurn(LastTurnReason),
    /// The last turn has been played by the side that is not to move.
    Ended(LastTurnReason),
}

/// Whether draws are part of the game (rule 17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawRule {
    /// The standard rules: extra turns, simultaneous mates, stalemate.
    Standard,
    /// The "no draws" option: no turn may leave an own King in check, and the first
    /// checkmate or twelfth lost piece ends the game at once.
    NoDraws,
}

/// The named setups (the page's diagrams are lost: these are the project's
/// reconstructions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Setup {
    /// The standard setup: one Hammer and two Bombs a side.
    Standard,
    /// The orthodox army setup: no new pieces.
    OrthodoxArmy,
    /// The rooks' rearguard setup: Rooks behind the Queens, facing the opponent's
    /// attacking lines.
    RooksRearguard,
}

impl Setup {
    /// Every named setup.
    pub const ALL: [Setup; 3] = [Setup::Standard, Setup::OrthodoxArmy, Setup::RooksRearguard];

    /// The tag value.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Setup::Standard => "standard",
            Setup::OrthodoxArmy => "orthodox army",
            Setup::RooksRearguard => "rooks' rearguard",
        }
    }

    /// The position string of the setup.
    #[must_use]
    pub const fn position_string(self) -> &'static str {
        match self {
            Setup::Standard => {
                "kqk(qrbp)(bnho)(qrnp)/p(pp)p(bppp)p(nopp)/6/6/6/6/(NOPP)P(BPPP)P(PP)P/(QRNP)(BNHO)(QRBP)KQK w 1 BDFace 0/0 - 1"
            }
            Setup::OrthodoxArmy => {
                "kqk(qrbp)(rbnp)(qrnp)/p(pp)p(bnpp)p(npp)/6/6/6/6/(NPP)P(BNPP)P(PP)P/(QRNP)(RBNP)(QRBP)KQK w 1 BDFace 0/0 - 1"
            }
            Setup::RooksRearguard => {
                "k(qr)k(qrbp)(bnho)(qrnp)/p(pp)p(bppp)p(nopp)/6/6/6/6/(NOPP)P(BPPP)P(PP)P/(QRNP)(BNHO)(QRBP)K(QR)K w 1 BDFace 0/0 - 1"
            }
        }
    }

    /// Finds a setup by its tag value, case-insensitively; `orthodox` and `rooks
    /// rearguard` are accepted too.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Setup> {
        let wanted: String = name
            .trim()
            .to_ascii_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == ' ')
            .collect();
        match wanted.as_str() {
            "standard" => Some(Setup::Standard),
            "orthodox army" | "orthodox" => Some(Setup::OrthodoxArmy),
            "rooks rearguard" | "rearguard" => Some(Setup::RooksRearguard),
            _ => None,
        }
    }
}

/// The tag that picks a named setup: `[Array "standard"]`, `"orthodox army"`,
/// `"rooks' rearguard"`.
pub const SETUP_TAG: &str = "Array";
/// The tag of the "no draws" option: `[Draws "no"]`.
pub const DRAWS_TAG: &str = "Draws";

/// Pieces lost that end the game by attrition.
pub const ATTRITION: u8 = 12;

/// A position of Chesscala: the stacks and everything the legal turns depend on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chesscala {
    board: Board,
    turn: Color,
    fullmove_number: u32,
    /// Whether White's first turn, with its restriction (rule 6), is still to come.
    first_turn: bool,
    /// Per side (bit `3 * side + mancala`), the mancalas where the double move is open.
    doubles: u8,
    /// Pieces lost by White and by Black.
    lost: [u8; 2],
    phase: Phase,
    draws: DrawRule,
    /// The rules' verdict, settled when the position is made.
    outcome: Option<Outcome>,
}

impl Chesscala {
    /// The stack on a square.
    #[must_use]
    pub fn stack(&self, square: Sq) -> Stack {
        self.board[square.index()]
    }

    /// Pieces a side has lost.
    #[must_use]
    pub fn lost(&self, color: Color) -> u8 {
        self.lost[color as usize]
    }

    /// Where the game stands.
    #[must_use]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the "no draws" option is on.
    #[must_use]
    pub fn no_draws(&self) -> bool {
        self.draws == DrawRule::NoDraws
    }

    /// Whether a King of `side` is in check.
    #[must_use]
    pub fn is_check(&self, side: Color) -> bool {
        self.in_check(side)
    }

    /// Whether `side` has a checkmated King (rule 14): a King of it is in check and no
    /// turn of it, were it to move, leaves none of its Kings in check.
    #[must_use]
    pub fn is_mated(&self, side: Color) -> bool {
        if !self.in_check(side) {
            return false;
        }
        let probe = self.probe_for(side);
        // The turns one origin at a time ([`Chesscala::generate_from`]), so that the first
        // turn found to escape ends the search.
        let mut turns = Vec::new();
        !(0..board::SQUARES).any(|index| {
            turns.clear();
            probe.generate_from(Some(Sq(index as u8)), &mut turns);
            turns.iter().any(|turn| escapes(&probe, turn, side))
        })
    }

    /// [`Chesscala::is_mated`] by its plain definition: every turn generated, then tried.
    #[cfg(test)]
    fn is_mated_plainly(&self, side: Color) -> bool {
        if !self.in_check(side) {
            return false;
        }
        let probe = self.probe_for(side);
        let mut turns = Vec::new();
        probe.generate(&mut turns);
        !turns.iter().any(|turn| escapes(&probe, turn, side))
    }

    /// This position with `side` to move in plain play (no first turn, no pending phase,
    /// no outcome), to try whether a turn of `side` would leave a King of it in check.
    fn probe_for(&self, side: Color) -> Chesscala {
        let mut probe = self.clone();
        probe.turn = side;
        probe.first_turn = false;
        probe.phase = Phase::Play;
        probe.draws = DrawRule::Standard;
        probe.outcome = None;
        probe
    }

    /// Whether White's first-turn restriction (rule 6) forbids a sowing move from `from`:
    /// only the b, d, e and f files may be sown from.
    fn first_turn_forbids(&self, from: Sq) -> bool {
        self.first_turn && matches!(from.file(), 0 | 2)
    }

    fn double_allowed(&self, side: Color, mancala: u8) -> bool {
        self.doubles & (1 << (3 * side as u8 + mancala)) != 0
    }

    fn close_double(&mut self, side: Color, mancala: u8) {
        self.doubles &= !(1 << (3 * side as u8 + mancala));
    }

    /// Why `side` must play a last turn, if it must.
    fn last_turn_reason(&self, side: Color) -> Option<LastTurnReason> {
        if self.is_mated(side) {
            Some(LastTurnReason::Checkmate)
        } else if self.lost[side as usize] >= ATTRITION {
            Some(LastTurnReason::Attrition)
        } else {
            None
        }
    }

    /// Settles the phase and outcome after a turn (or on reading a position), given the
    /// phase before it.
    fn settle(&mut self, before: Phase) {
        let to_move = self.turn;
        let mover = to_move.other();
        self.outcome = None;
        match before {
            Phase::LastTurn(reason) | Phase::Ended(reason) => {
                self.phase = Phase::Ended(reason);
                self.outcome = Some(match self.last_turn_reason(to_move) {
                    Some(LastTurnReason::Checkmate) => Outcome::Draw {
                        reason: DrawReason::SimultaneousCheckmate,
                    },
                    Some(LastTurnReason::Attrition) => Outcome::Draw {
                        reason: DrawReason::AttritionOnLastTurn,
                    },
                    None => Outcome::Win {
                        winner: to_move,
                        reason: win_reason(reason),
                    },
                });
            }
            Phase::Play => {
                self.phase = Phase::Play;
                let Some(reason) = self.last_turn_reason(to_move) else {
                    return;
                };
                if self.draws == DrawRule::NoDraws {
                    self.outcome = Some(Outcome::Win {
                        winner: mover,
                        reason: win_reason(reason),
                    });
                } else if reason == LastTurnReason::Checkmate && self.is_mated(mover) {
                    self.outcome = Some(Outcome::Draw {
                        reason: DrawReason::SimultaneousCheckmate,
                    });
                } else {
                    self.phase = Phase::LastTurn(reason);
                }
            }
        }
    }

    /// The position of a named setup.
    #[must_use]
    pub fn setup(setup: Setup) -> Chesscala {
        Chesscala::from_position_string(setup.position_string())
            .unwrap_or_else(|error| panic!("the {} setup does not read: {error}", setup.name()))
    }
}

/// Whether `turn`, played on `position`, leaves none of `side`'s Kings in check.
fn escapes(position: &Chesscala, turn: &Turn, side: Color) -> bool {
    let mut next = position.clone();
    for step in turn.moves() {
        next.apply(step);
    }
    !next.in_check(side)
}

const fn win_reason(reason: LastTurnReason) -> WinReason {
    match reason {
        LastTurnReason::Checkmate => WinReason::Checkmate,
        LastTurnReason::Attrition => WinReason::Attrition,
    }
}

fn read_number<T: std::str::FromStr>(text: &str, field: &str) -> Result<T, SetupError> {
    text.parse::<T>()
        .map_err(|_| SetupError::new(format!("bad {field}: '{text}' is not a number")))
}

impl Game for Chesscala {
    type Turn = Turn;
    type Syntax = Notation;

    /// `Pawn`, `Knight`, `Bishop`, `Rook`, `Queen`, `King`, `Bomb` (`O`), `Hammer`,
    /// `Man`; a square's pieces have no order (the engine's stacks are sets).
    const PIECE_KINDS: &'static [PieceKind] = &CHESSCALA_KINDS;

    fn snapshot(&self) -> Option<Snapshot> {
        let names = (0..board::SQUARES as u8).map(|index| Sq(index).to_string());
        let stacks = self
            .board
            .iter()
            .map(|stack| stack.pieces().map(chesscala_man));
        Some(Snapshot::filled(Stacking::Unordered, names, stacks).normalized())
    }

    /// The pieces moved, without [`Game::play`]'s judgement of the new position (mates
    /// and the last turn), which the board does not show and which costs a search.
    fn snapshot_after(&self, turn: &Turn) -> Option<Snapshot> {
        let mut next = self.clone();
        for step in turn.moves() {
            next.apply(step);
        }
        next.snapshot()
    }

    const VARIANT: Variant = Variant::Chesscala;
    /// The page has no repetition rule: repeating a position never draws.
    const REPETITION: RepetitionRule = RepetitionRule::Draw {
        claim: u32::MAX,
        automatic: None,
    };

    fn start() -> Chesscala {
        Chesscala::setup(Setup::Standard)
    }

    /// A `[FEN]` tag, or a named setup by `[Array]`, then the "no draws" option by
    /// `[Draws "no"]`.
    fn from_tags(tags: &dyn Tags) -> Result<Chesscala, SetupError> {
        let mut position: Chesscala = match (tags.tag(SETUP_TAG), tags.tag("FEN")) {
            (Some(_), Some(_)) => {
                return Err(SetupError::new(
                    "both an array tag and a fen tag: give only one",
                ));
            }
            (Some(name), None) => Chesscala::setup(Setup::from_name(name).ok_or_else(|| {
                SetupError::new(format!(
                    "unknown array '{name}': expected standard, orthodox army or rooks' rearguard"
                ))
            })?),
            (None, _) => crate::games::position_from_setup_tags(tags)?,
        };
        match tags.tag(DRAWS_TAG).map(|v| v.trim().to_ascii_lowercase()) {
            None => {}
            Some(value) if matches!(value.as_str(), "no" | "none" | "off") => {
                position.draws = DrawRule::NoDraws;
                // An ended game stays ended; otherwise the option may end it now.
                if !matches!(position.phase, Phase::Ended(_)) {
                    position.settle(Phase::Play);
                }
            }
            Some(value)
                if matches!(value.as_str(), "yes" | "standard" | "on") && position.no_draws() =>
            {
                return Err(SetupError::new(
                    "the fen says no draws but the draws tag says yes",
                ));
            }
            Some(value) if matches!(value.as_str(), "yes" | "standard" | "on") => {}
            Some(value) => {
                return Err(SetupError::new(format!(
                    "bad draws tag '{value}': expected \"no\" or \"yes\""
                )));
            }
        }
        Ok(position)
    }

    /// Reads `placement side first doubles lost phase fullmove [nodraws]`, for example the
    /// standard start (see `notation/chesscala.md`).
    fn from_position_string(text: &str) -> Result<Chesscala, SetupError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() < 7 || fields.len() > 8 {
            return Err(SetupError::in_field(
                (fields.len() + 1).min(9),
                format!("a position string has 7 or 8 fields, not {}", fields.len()),
            ));
        }
        let board = board::read_placement(fields[0]).map_err(|error| error.or_in_field(1))?;
        let turn = crate::games::read_side(Some(fields[1]))?;
        let first_turn = match fields[2] {
            "1" if turn == Color::White => true,
            "1" => {
                return Err(SetupError::in_field(
                    3,
                    "field 3 says white's first turn is to come but black is to move",
                ));
            }
            "-" => false,
            other => {
                return Err(SetupError::in_field(
                    3,
                    format!("bad field 3 (first turn): expected '1' or '-', found '{other}'"),
                ));
            }
        };
        let mut doubles = 0u8;
        if fields[3] != "-" {
            for c in fields[3].chars() {
                let (side, mancala) = match c {
                    'B' => (0, 0),
                    'D' => (0, 1),
                    'F' => (0, 2),
                    'a' => (1, 0),
                    'c' => (1, 1),
                    'e' => (1, 2),
                    other => {
                        return Err(SetupError::in_field(
                            4,
                            format!("bad field 4 (double moves): '{other}' is not one of BDFace"),
                        ));
                    }
                };
                doubles |= 1 << (3 * side + mancala);
            }
        }
        let (white_lost, black_lost) = fields[4].split_once('/').ok_or_else(|| {
            SetupError::in_field(
                5,
                format!(
                    "bad field 5 (lost pieces): expected white/black, found '{}'",
                    fields[4]
                ),
            )
        })?;
        let lost = [
            read_number(white_lost, "field 5 (lost pieces)").map_err(|e| e.or_in_field(5))?,
            read_number(black_lost, "field 5 (lost pieces)").map_err(|e| e.or_in_field(5))?,
        ];
        let written_phase = match fields[5] {
            "-" => Phase::Play,
            "x" => Phase::LastTurn(LastTurnReason::Checkmate),
            "m" => Phase::Ended(LastTurnReason::Checkmate),
            "a" => Phase::Ended(LastTurnReason::Attrition),
            other => {
                return Err(SetupError::in_field(
                    6,
                    format!("bad field 6 (phase): expected '-', 'x', 'm' or 'a', found '{other}'"),
                ));
            }
        };
        let fullmove_number: u32 =
            read_number(fields[6], "field 7 (fullmove number)").map_err(|e| e.or_in_field(7))?;
        if fullmove_number == 0 {
            return Err(SetupError::in_field(
                7,
                "bad field 7 (fullmove number): it starts at 1",
            ));
        }
        crate::games::check_count(fullmove_number, 7, "fullmove number")?;
        let draws = match fields.get(7) {
            None => DrawRule::Standard,
            Some(&"nodraws") => DrawRule::NoDraws,
            Some(other) => {
                return Err(SetupError::in_field(
                    8,
                    format!("bad field 8: expected 'nodraws', found '{other}'"),
                ));
            }
        };
        for side in [Color::White, Color::Black] {
            let kings = board
                .iter()
                .filter(|stack| stack.contains(Piece::new(side, Role::King)))
                .count();
            for (index, stack) in board.iter().enumerate() {
                let square = Sq(index as u8);
                let king = Piece::new(side, Role::King);
                let here = stack.pieces().filter(|p| *p == king).count();
                if here > 0 && (here > 1 || board::field_partner(side, square).is_none()) {
                    return Err(SetupError::in_field(
                        1,
                        format!(
                            "a {} king on {square} is outside its fields",
                            side.name().to_ascii_lowercase()
                        ),
                    ));
                }
            }
            for field in [Sq::new(2, 0), Sq::new(4, 0), Sq::new(0, 7), Sq::new(2, 7)] {
                let king = Piece::new(side, Role::King);
                let partner = board::field_partner(side, field);
                if let Some(partner) = partner
                    && board[field.index()].contains(king)
                    && board[partner.index()].contains(king)
                {
                    return Err(SetupError::in_field(
                        1,
                        format!(
                            "two {} kings in the field {field}/{partner}",
                            side.name().to_ascii_lowercase()
                        ),
                    ));
                }
            }
            let pawn = Piece::new(side, Role::Pawn);
            if let Some(index) = (0..board::SQUARES).find(|&index| {
                board[index].contains(pawn) && Sq(index as u8).rank() == board::promotion_rank(side)
            }) {
                return Err(SetupError::in_field(
                    1,
                    format!(
                        "a {} pawn on {} stands on its last rank: write it as a man",
                        side.name().to_ascii_lowercase(),
                        Sq(index as u8)
                    ),
                ));
            }
            if kings == 0 {
                return Err(SetupError::in_field(
                    1,
                    format!("{} has no king", side.name().to_ascii_lowercase()),
                ));
            }
        }
        let mut position = Chesscala {
            board,
            turn,
            fullmove_number,
            first_turn,
            doubles,
            lost,
            phase: Phase::Play,
            draws,
            outcome: None,
        };
        match written_phase {
            Phase::Ended(_) => position.settle(written_phase),
            _ => {
                position.settle(Phase::Play);
                let derived = position.phase;
                match (written_phase, derived) {
                    (Phase::Play, Phase::LastTurn(_)) => {
                        return Err(SetupError::in_field(
                            6,
                            "the side to move must play its last turn (a checkmated king or 12 lost pieces): field 6 must be 'x'",
                        ));
                    }
                    (Phase::LastTurn(_), Phase::Play) => {
                        return Err(SetupError::in_field(
                            6,
                            "field 6 says the side to move plays its last turn, but it has no checkmated king and has not lost 12 pieces",
                        ));
                    }
                    _ => {}
                }
            }
        }
        Ok(position)
    }

    fn position_string(&self) -> String {
        let mut out = String::with_capacity(96);
        board::write_placement(&self.board, &mut out);
        out.push(' ');
        out.push(crate::games::side_field(self.turn));
        out.push_str(if self.first_turn { " 1 " } else { " - " });
        let before = out.len();
        for (bit, c) in ['B', 'D', 'F', 'a', 'c', 'e'].into_iter().enumerate() {
            if self.doubles & (1 << bit) != 0 {
                out.push(c);
            }
        }
        if out.len() == before {
            out.push('-');
        }
        let phase = match self.phase {
            Phase::Play => '-',
            Phase::LastTurn(_) => 'x',
            Phase::Ended(LastTurnReason::Checkmate) => 'm',
            Phase::Ended(LastTurnReason::Attrition) => 'a',
        };
        let _ = write!(
            out,
            " {}/{} {phase} {}",
            self.lost[0], self.lost[1], self.fullmove_number
        );
        if self.no_draws() {
            out.push_str(" nodraws");
        }
        out
    }

    /// Each square as its stack bottom to top, padded to four characters.
    fn diagram(&self) -> String {
        let mut out = String::with_capacity(400);
        for rank in (0..board::RANKS).rev() {
            let _ = write!(out, "{}", rank + 1);
            for file in 0..board::FILES {
                let stack = self.board[Sq::new(file, rank).index()];
                out.push(' ');
                if stack.is_empty() {
                    out.push_str("....");
                } else {
                    let text: String = stack.pieces().map(Piece::char).collect();
                    let _ = write!(out, "{text:<4}");
                }
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
        out.push_str("  a    b    c    d    e    f\n");
        let _ = writeln!(out, "lost: white {}, black {}", self.lost[0], self.lost[1]);
        out
    }

    fn side_to_move(&self) -> Color {
        self.turn
    }

    fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    fn legal_turns(&self, out: &mut Vec<Turn>) {
        self.generate(out);
    }

    fn parse_turn(token: &str) -> Result<Notation, TurnSyntaxError> {
        Notation::parse(token)
    }

    fn resolve(&self, syntax: &Notation) -> Result<Turn, IllegalTurn> {
        notation::resolve(self, syntax)
    }

    fn write_turn(&self, turn: &Turn) -> String {
        notation::write(self, turn)
    }

    /// Chesscala has no repetition rule: `turns` are all the legal turns, which tell
    /// whether a sowing order must be written.
    fn write_turns_except(
        &self,
        turns: &[Turn],
        forbidden: &crate::games::Forbidden,
    ) -> Vec<String> {
        let _ = forbidden;
        turns
            .iter()
            .map(|turn| notation::write_among(self, turn, turns))
            .collect()
    }

    fn play(&mut self, turn: &Turn) {
        let before = self.phase;
        for step in turn.moves() {
            self.apply(step);
        }
        self.first_turn = false;
        if self.turn == Color::Black {
            self.fullmove_number = crate::games::count_up(self.fullmove_number);
        }
        self.turn = self.turn.other();
        self.settle(before);
    }

    /// The settled verdict; otherwise, without a legal turn, a side with a checkmated
    /// King (or 12 lost pieces) loses and any other side is stalemated (rule 16).
    fn outcome(&self) -> Option<Outcome> {
        if self.outcome.is_some() {
            return self.outcome;
        }
        let mut turns = Vec::new();
        self.generate(&mut turns);
        if !turns.is_empty() {
            return None;
        }
        Some(match self.phase {
            Phase::LastTurn(reason) | Phase::Ended(reason) => Outcome::Win {
                winner: self.turn.other(),
                reason: win_reason(reason),
            },
            Phase::Play => Outcome::Draw {
                reason: DrawReason::Stalemate,
            },
        })
    }

    fn outcome_with_legal_turn(&self) -> Option<Outcome> {
        self.outcome
    }

    fn claimable_draw(&self) -> Option<DrawReason> {
        None
    }

    fn repetition_key(&self) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.board.hash(&mut hasher);
        self.turn.hash(&mut hasher);
        self.first_turn.hash(&mut hasher);
        self.doubles.hash(&mut hasher);
        self.lost.hash(&mut hasher);
        self.phase.hash(&mut hasher);
        self.draws.hash(&mut hasher);
        hasher.finish()
    }

    fn annotation_mismatch(&self, syntax: &Notation) -> Option<String> {
        notation::annotation_mismatch(self, syntax)
    }
}

#[cfg(test)]
mod tests;
