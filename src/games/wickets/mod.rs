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

mod cards;
mod notation;

use std::fmt::{self, Write as _};
use std::hash::{DefaultHasher, Hash, Hasher};

pub use cards::Card;
use cards::{CardState, Deal, Verdict};
pub use notation::{MovePart, Step, Syntax};

use crate::games::chess::attacks::{self, KNIGHT_DELTAS, tables};
use crate::games::chess::bitboard::Bitboard;
use crate::games::chess::types::{CastlingSide, Piece, Role, Square, color_index};
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

/// A place a piece or a Ball can stand: one of the 64 squares or one of the two wickets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc(u8);

impl Loc {
    /// White's wicket, behind e1 (where e0 would be).
    pub const W0: Loc = Loc(64);
    /// Black's wicket, behind e8 (where e9 would be).
    pub const W9: Loc = Loc(65);

    /// The place of a board square.
    #[must_use]
    pub const fn square(square: Square) -> Loc {
        Loc(square.index() as u8)
    }

    /// The board square, or `None` for a wicket.
    #[must_use]
    pub const fn as_square(self) -> Option<Square> {
        if self.0 < 64 {
            Some(Square::new(self.0))
        } else {
            None
        }
    }

    /// Whether this is one of the two wickets.
    #[must_use]
    pub const fn is_wicket(self) -> bool {
        self.0 >= 64
    }

    /// The wicket of `color` (w0 for White).
    #[must_use]
    pub const fn wicket_of(color: Color) -> Loc {
        match color {
            Color::White => Loc::W0,
            Color::Black => Loc::W9,
        }
    }

    /// Reads `e4`, `w0` or `w9`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Loc> {
        match name {
            "w0" => Some(Loc::W0),
            "w9" => Some(Loc::W9),
            _ => Square::from_name(name).map(Loc::square),
        }
    }

    /// File and rank, with the wickets on the e-file at ranks -1 and 8.
    const fn coords(self) -> (i8, i8) {
        match self.0 {
            64 => (4, -1),
            65 => (4, 8),
            i => ((i % 8) as i8, (i / 8) as i8),
        }
    }

    const fn from_coords(file: i8, rank: i8) -> Option<Loc> {
        if file >= 0 && file < 8 && rank >= 0 && rank < 8 {
            Some(Loc((rank * 8 + file) as u8))
        } else if file == 4 && rank == -1 {
            Some(Loc::W0)
        } else if file == 4 && rank == 8 {
            Some(Loc::W9)
        } else {
            None
        }
    }

    fn step(self, (df, dr): (i8, i8)) -> Option<Loc> {
        let (f, r) = self.coords();
        Loc::from_coords(f + df, r + dr)
    }

    /// The file letter (`e` for the wickets).
    #[must_use]
    pub fn file_char(self) -> char {
        char::from(b'a' + self.coords().0 as u8)
    }

    /// The rank digit (`0` and `9` for the wickets).
    #[must_use]
    pub fn rank_char(self) -> char {
        char::from(b'1'.wrapping_add(self.coords().1 as u8))
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_square() {
            Some(square) => write!(f, "{square}"),
            None if *self == Loc::W0 => f.write_str("w0"),
            None => f.write_str("w9"),
        }
    }
}

/// A set of places, one bit per place (the 64 squares, then w0 and w9): the engine's
/// scratch sets, kept on the stack so generation does not allocate per node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LocSet(u128);

impl LocSet {
    fn insert(&mut self, loc: Loc) {
        self.0 |= 1 << loc.0;
    }

    fn remove(&mut self, loc: Loc) {
        self.0 &= !(1 << loc.0);
    }

    fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl Iterator for LocSet {
    type Item = Loc;

    /// The places in ascending order (the board from a1, then w0, w9).
    fn next(&mut self) -> Option<Loc> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Loc(i as u8))
    }
}

impl Extend<Loc> for LocSet {
    fn extend<I: IntoIterator<Item = Loc>>(&mut self, iter: I) {
        for loc in iter {
            self.insert(loc);
        }
    }
}

impl FromIterator<Loc> for LocSet {
    fn from_iter<I: IntoIterator<Item = Loc>>(iter: I) -> LocSet {
        let mut set = LocSet::default();
        for loc in iter {
            set.insert(loc);
        }
        set
    }
}

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// How a throw into the opposing wicket is decided: the `[Decision]` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecisionMode {
    /// Success unless the Defender sees its wicket; then three sacrifices buy it.
    Deterministic,
    /// As Deterministic, with two sacrifices.
    DeterministicII,
    /// A die: 3-6 succeeds, 5-6 when the Defender sees its wicket.
    Dice,
    /// As Dice, with one second roll after a failure, bought by one sacrifice.
    DiceII,
    /// Each side plays a card, the opponent following suit; the higher card wins, the
    /// opponent's with a 2.5 bonus when its Defender sees its wicket; ties are replayed.
    Cards,
    /// As Cards, with one second try after a failure.
    CardsII,
}

impl DecisionMode {
    /// Every mode, in the order of the rules page.
    pub const ALL: [DecisionMode; 6] = [
        DecisionMode::Deterministic,
        DecisionMode::DeterministicII,
        DecisionMode::Dice,
        DecisionMode::DiceII,
        DecisionMode::Cards,
        DecisionMode::CardsII,
    ];

    /// The `[Decision]` tag value.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            DecisionMode::Deterministic => "Deterministic",
            DecisionMode::DeterministicII => "Deterministic II",
            DecisionMode::Dice => "Dice",
            DecisionMode::DiceII => "Dice II",
            DecisionMode::Cards => "Cards",
            DecisionMode::CardsII => "Cards II",
        }
    }

    /// The short form in the position string.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            DecisionMode::Deterministic => "det",
            DecisionMode::DeterministicII => "det2",
            DecisionMode::Dice => "dice",
            DecisionMode::DiceII => "dice2",
            DecisionMode::Cards => "cards",
            DecisionMode::CardsII => "cards2",
        }
    }

    /// Reads a tag value or a position-string code, case-insensitively.
    pub fn from_name(text: &str) -> Result<DecisionMode, SetupError> {
        let wanted: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        DecisionMode::ALL
            .into_iter()
            .find(|mode| {
                let name: String = mode.name().replace(' ', "").to_ascii_lowercase();
                name == wanted || mode.code() == wanted
            })
            .ok_or_else(|| {
                SetupError::new(format!(
                    "unknown decision mode \"{text}\" (expected Deterministic, Deterministic II, \
                     Dice, Dice II, Cards or Cards II)"
                ))
            })
    }

    /// Pieces a deterministic mode sacrifices when the Defender sees its wicket.
    const fn sacrifices(self) -> usize {
        match self {
            DecisionMode::Deterministic => 3,
            DecisionMode::DeterministicII => 2,
            _ => 0,
        }
    }

    const fn is_dice(self) -> bool {
        matches!(self, DecisionMode::Dice | DecisionMode::DiceII)
    }

    /// Whether the mode decides by cards.
    #[must_use]
    pub const fn is_cards(self) -> bool {
        matches!(self, DecisionMode::Cards | DecisionMode::CardsII)
    }
}

/// What a move does besides moving a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// To an empty square.
    Normal,
    /// Capturing an opposing piece.
    Capture,
    /// Capturing the mover's own loose Ball: the piece becomes Ball-haver.
    Ball,
    /// A pawn capturing en passant.
    EnPassant,
    /// Castling (`from` and `to` are the king's squares).
    Castle(CastlingSide),
}

/// The move part of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Where the piece stands.
    pub from: Loc,
    /// Where it goes.
    pub to: Loc,
    /// The moving piece's kind.
    pub role: Role,
    /// What a pawn on the last rank becomes.
    pub promotion: Option<Role>,
    /// Capture, Ball capture, castling...
    pub kind: MoveKind,
}

/// One part of a scoring attempt's decision, in the order it happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decision {
    /// A die roll, 1 to 6.
    Roll(u8),
    /// One of the thrower's own pieces removed from the board.
    Sacrifice(Loc),
    /// A card played: the thrower's and the opponent's in turn.
    Card(Card),
}

/// A whole legal turn.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    /// The new Defender the mover names first, when it has none.
    pub naming: Option<Loc>,
    /// The move.
    pub mv: Move,
    /// Where the Ball of a captured Ball-haver is dropped.
    pub drop: Option<Square>,
    /// Where the Ball is thrown (an own piece, an empty square, the opposing wicket).
    pub throw: Option<Loc>,
    /// The decision of a scoring attempt (rolls, sacrifices), in order.
    pub decision: Vec<Decision>,
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
}

fn idx(color: Color) -> usize {
    color_index(color)
}

fn wicket_index(loc: Loc) -> usize {
    usize::from(loc == Loc::W9)
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

    /// The piece on a square or in a wicket.
    #[must_use]
    pub fn piece_at(&self, loc: Loc) -> Option<Piece> {
        match loc.as_square() {
            Some(square) => self.board.piece_at(square),
            None => self.wicket[wicket_index(loc)],
        }
    }

    fn ball_at(&self, loc: Loc) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&c| self.loose[idx(c)] == Some(loc))
    }

    fn is_empty(&self, loc: Loc) -> bool {
        self.piece_at(loc).is_none() && self.ball_at(loc).is_none()
    }

    fn occupied(&self) -> Bitboard {
        let mut occ = self.board.occupied();
        for ball in self.loose.iter().flatten() {
            if let Some(square) = ball.as_square() {
                occ = occ.with(square);
            }
        }
        occ
    }

    fn remove_piece(&mut self, loc: Loc) {
        match loc.as_square() {
            Some(square) => self.board.remove(square),
            None => self.wicket[wicket_index(loc)] = None,
        }
    }

    fn put_piece(&mut self, loc: Loc, piece: Piece) {
        match loc.as_square() {
            Some(square) => self.board.put(square, piece),
            None => self.wicket[wicket_index(loc)] = Some(piece),
        }
    }

    /// Every place holding a piece of `color`, the board first.
    fn locs_of(&self, color: Color) -> impl Iterator<Item = Loc> + '_ {
        self.board.by_color(color).map(Loc::square).chain(
            [Loc::W0, Loc::W9]
                .into_iter()
                .filter(move |&w| self.wicket[wicket_index(w)].is_some_and(|p| p.color == color)),
        )
    }

    fn king_loc(&self, color: Color) -> Option<Loc> {
        self.locs_of(color)
            .find(|&loc| self.piece_at(loc).is_some_and(|p| p.role == Role::King))
    }

    /// Whether a piece of `by` on the board attacks `loc` (pieces in wickets never do,
    /// Balls never do).
    fn attacked(&self, loc: Loc, by: Color) -> bool {
        let b = &self.board;
        if let Some(square) = loc.as_square() {
            let occ = self.occupied();
            let them = b.by_color(by);
            return (attacks::knight(square) & b.by_piece(by, Role::Knight)).any()
                || (attacks::king(square) & b.by_piece(by, Role::King)).any()
                || (attacks::pawn(by.other(), square) & b.by_piece(by, Role::Pawn)).any()
                || (tables().rook(square, occ) & them & b.rooks_and_queens()).any()
                || (tables().bishop(square, occ) & them & b.bishops_and_queens()).any();
        }
        Iterator::any(&mut b.by_color(by), |square| {
            self.reaches_wicket(square, b.piece_at(square).expect("occupied"), loc)
        })
    }

    /// Whether `piece` on `from` attacks the wicket `wicket`.
    fn reaches_wicket(&self, from: Square, piece: Piece, wicket: Loc) -> bool {
        let (wf, wr) = wicket.coords();
        let df = from.file() as i8 - wf;
        let dr = from.rank() as i8 - wr;
        let orthogonal = df == 0;
        let diagonal = df.abs() == dr.abs();
        match piece.role {
            Role::Knight => matches!((df.abs(), dr.abs()), (1, 2) | (2, 1)),
            Role::King => df.abs().max(dr.abs()) == 1,
            Role::Pawn => {
                let forward = if piece.color == Color::White { 1 } else { -1 };
                df.abs() == 1 && dr == -forward
            }
            Role::Rook if !orthogonal => false,
            Role::Bishop if !diagonal => false,
            Role::Queen if !orthogonal && !diagonal => false,
            _ => {
                let unit = (df.signum(), dr.signum());
                let mut at = wicket.step(unit);
                while let Some(loc) = at {
                    if loc == Loc::square(from) {
                        return true;
                    }
                    if !self.is_empty(loc) {
                        return false;
                    }
                    at = loc.step(unit);
                }
                false
            }
        }
    }

    /// Whether the Defender of `color` sees (attacks) its own wicket.
    #[must_use]
    pub fn defender_sees_wicket(&self, color: Color) -> bool {
        let Some(defender) = self.defender[idx(color)] else {
            return false;
        };
        let (Some(square), Some(piece)) = (defender.as_square(), self.piece_at(defender)) else {
            return false;
        };
        self.reaches_wicket(square, piece, Loc::wicket_of(color))
    }

    /// Whether `color`'s king is attacked.
    #[must_use]
    pub fn in_check(&self, color: Color) -> bool {
        self.king_loc(color)
            .is_some_and(|king| self.attacked(king, color.other()))
    }

    /// Every place a piece on `from` could go to by geometry (for pawns: captures only).
    fn targets(&self, from: Loc, piece: Piece) -> LocSet {
        let mut set = LocSet::default();
        self.targets_into(from, piece, &mut set);
        set
    }

    fn targets_into(&self, from: Loc, piece: Piece, out: &mut LocSet) {
        if let Some(square) = from.as_square() {
            let occ = self.occupied();
            let set = match piece.role {
                Role::Pawn => attacks::pawn(piece.color, square),
                Role::Knight => attacks::knight(square),
                Role::King => attacks::king(square),
                Role::Bishop => tables().bishop(square, occ),
                Role::Rook => tables().rook(square, occ),
                Role::Queen => tables().queen(square, occ),
            };
            out.extend(set.map(Loc::square));
            for wicket in [Loc::W0, Loc::W9] {
                if self.reaches_wicket(square, piece, wicket) {
                    out.insert(wicket);
                }
            }
            return;
        }
        let walk = |dirs: &[(i8, i8)], out: &mut LocSet| {
            for &dir in dirs {
                let mut at = from.step(dir);
                while let Some(loc) = at {
                    out.insert(loc);
                    if !self.is_empty(loc) {
                        break;
                    }
                    at = loc.step(dir);
                }
            }
        };
        match piece.role {
            Role::Knight => out.extend(KNIGHT_DELTAS.iter().filter_map(|&d| from.step(d))),
            Role::King => out.extend(
                ROOK_DIRS
                    .iter()
                    .chain(&BISHOP_DIRS)
                    .filter_map(|&d| from.step(d)),
            ),
            Role::Rook => walk(&ROOK_DIRS, out),
            Role::Bishop => walk(&BISHOP_DIRS, out),
            Role::Queen => {
                walk(&ROOK_DIRS, out);
                walk(&BISHOP_DIRS, out);
            }
            Role::Pawn => {}
        }
    }

    /// What moving from `from` to `to` would be, or why it may not: `strict` applies the
    /// wicket entry rights and the Defender-Ball rule, which diagnosis relaxes.
    fn move_kind(&self, from: Loc, to: Loc, strict: bool) -> Option<MoveKind> {
        let us = self.turn;
        let is_defender = self.defender[idx(us)] == Some(from);
        let kind = if let Some(piece) = self.piece_at(to) {
            if piece.color == us || piece.role == Role::King {
                return None;
            }
            MoveKind::Capture
        } else if let Some(owner) = self.ball_at(to) {
            if owner != us || (strict && is_defender) {
                return None;
            }
            MoveKind::Ball
        } else {
            MoveKind::Normal
        };
        if strict && to.is_wicket() {
            let allowed = if to == Loc::wicket_of(us) {
                is_defender
            } else {
                self.haver[idx(us)] == Some(from) || kind == MoveKind::Ball
            };
            if !allowed {
                return None;
            }
        }
        Some(kind)
    }

    /// The moves of the side to move, before king safety.
    fn pseudo_moves(&self, strict: bool, out: &mut Vec<Move>) {
        self.each_pseudo_move(strict, &mut |m| out.push(m));
    }

    /// Calls `out` with every move of the side to move before the king-safety test;
    /// `strict` as in [`Wickets::move_kind`].
    fn each_pseudo_move(&self, strict: bool, out: &mut dyn FnMut(Move)) {
        let us = self.turn;
        let mine: LocSet = self.locs_of(us).collect();
        for from in mine {
            let piece = self.piece_at(from).expect("own piece");
            let targets = self.targets(from, piece);
            if piece.role == Role::Pawn {
                self.pawn_moves(from, targets, out);
                continue;
            }
            for to in targets {
                if let Some(kind) = self.move_kind(from, to, strict) {
                    out(Move {
                        from,
                        to,
                        role: piece.role,
                        promotion: None,
                        kind,
                    });
                }
            }
        }
        self.castling_moves(out);
    }

    fn pawn_moves(&self, from: Loc, captures: LocSet, out: &mut dyn FnMut(Move)) {
        let us = self.turn;
        let Some(square) = from.as_square() else {
            return;
        };
        let forward: i8 = if us == Color::White { 8 } else { -8 };
        let last_rank = if us == Color::White { 7 } else { 0 };
        let mut push = |to: Square, kind: MoveKind| {
            let promotions: &[Option<Role>] = if to.rank() == last_rank {
                &[
                    Some(Role::Queen),
                    Some(Role::Rook),
                    Some(Role::Bishop),
                    Some(Role::Knight),
                ]
            } else {
                &[None]
            };
            for &promotion in promotions {
                out(Move {
                    from,
                    to: Loc::square(to),
                    role: Role::Pawn,
                    promotion,
                    kind,
                });
            }
        };
        if let Some(one) = square.offset(forward)
            && self.is_empty(Loc::square(one))
        {
            push(one, MoveKind::Normal);
            let start_rank = if us == Color::White { 1 } else { 6 };
            if square.rank() == start_rank
                && let Some(two) = one.offset(forward)
                && self.is_empty(Loc::square(two))
            {
                push(two, MoveKind::Normal);
            }
        }
        for to in captures {
            let Some(target) = to.as_square() else {
                continue;
            };
            if Some(target) == self.ep_square && self.is_empty(to) {
                push(target, MoveKind::EnPassant);
            } else if !self.is_empty(to)
                && let Some(kind) = self.move_kind(from, to, true)
            {
                push(target, kind);
            }
        }
    }

    fn castling_moves(&self, out: &mut dyn FnMut(Move)) {
        let us = self.turn;
        let rank = if us == Color::White { 0 } else { 7 };
        let king = Square::from_coords(4, rank);
        if self.board.piece_at(king)
            != Some(Piece {
                color: us,
                role: Role::King,
            })
        {
            return;
        }
        let occ = self.occupied();
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if !self.castling.has(us, side) {
                continue;
            }
            let rook = Square::from_coords(side.rook_file(), rank);
            if self.board.piece_at(rook)
                != Some(Piece {
                    color: us,
                    role: Role::Rook,
                })
            {
                continue;
            }
            if (tables().between(king, rook) & occ).any() {
                continue;
            }
            let king_to = Square::from_coords(side.king_to_file(), rank);
            let path = tables().between(king, king_to).with(king).with(king_to);
            if Iterator::any(&mut path.clone(), |square| {
                self.attacked(Loc::square(square), us.other())
            }) {
                continue;
            }
            out(Move {
                from: Loc::square(king),
                to: Loc::square(king_to),
                role: Role::King,
                promotion: None,
                kind: MoveKind::Castle(side),
            });
        }
    }

    /// Plays the move part; returns whether an opposing Ball-haver was captured (its Ball
    /// must then be dropped).
    fn apply_move(&mut self, m: &Move) -> bool {
        let us = self.turn;
        let them = us.other();
        let piece = self.piece_at(m.from).expect("a legal move has a piece");
        let mut captured_haver = false;
        let relocate = |roles: &mut [Option<Loc>; 2], from: Loc, to: Loc| {
            if roles[idx(us)] == Some(from) {
                roles[idx(us)] = Some(to);
            }
        };
        if let MoveKind::Castle(side) = m.kind {
            let rank = if us == Color::White { 0 } else { 7 };
            let rook_from = Loc::square(Square::from_coords(side.rook_file(), rank));
            let rook_to = Loc::square(Square::from_coords(side.rook_to_file(), rank));
            let rook = self.piece_at(rook_from).expect("castling rook");
            self.remove_piece(m.from);
            self.remove_piece(rook_from);
            self.put_piece(m.to, piece);
            self.put_piece(rook_to, rook);
            for roles in [&mut self.haver, &mut self.defender] {
                if roles[idx(us)] == Some(m.from) {
                    roles[idx(us)] = Some(m.to);
                } else if roles[idx(us)] == Some(rook_from) {
                    roles[idx(us)] = Some(rook_to);
                }
            }
        } else {
            let victim = match m.kind {
                MoveKind::Capture => Some(m.to),
                MoveKind::EnPassant => {
                    let (f, r) = m.to.coords();
                    Loc::from_coords(f, if us == Color::White { r - 1 } else { r + 1 })
                }
                _ => None,
            };
            if let Some(victim) = victim {
                if self.defender[idx(them)] == Some(victim) {
                    self.defender[idx(them)] = None;
                }
                if self.haver[idx(them)] == Some(victim) {
                    self.haver[idx(them)] = None;
                    captured_haver = true;
                }
                self.remove_piece(victim);
            }
            if m.kind == MoveKind::Ball {
                self.loose[idx(us)] = None;
            }
            self.remove_piece(m.from);
            let role = m.promotion.unwrap_or(piece.role);
            self.put_piece(m.to, Piece { color: us, role });
            relocate(&mut self.haver, m.from, m.to);
            relocate(&mut self.defender, m.from, m.to);
            if m.kind == MoveKind::Ball {
                self.haver[idx(us)] = Some(m.to);
            }
        }
        if piece.role == Role::King {
            self.castling.set(us, CastlingSide::KingSide, false);
            self.castling.set(us, CastlingSide::QueenSide, false);
        }
        for (color, rank) in [(Color::White, 0), (Color::Black, 7)] {
            for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
                let corner = Loc::square(Square::from_coords(side.rook_file(), rank));
                if m.from == corner || m.to == corner {
                    self.castling.set(color, side, false);
                }
            }
        }
        self.ep_square = None;
        if piece.role == Role::Pawn
            && let (Some(from), Some(to)) = (m.from.as_square(), m.to.as_square())
            && from.rank().abs_diff(to.rank()) == 2
        {
            self.ep_square = Some(Square::from_coords(
                from.file(),
                (from.rank() + to.rank()) / 2,
            ));
        }
        if piece.role == Role::Pawn
            || m.kind != MoveKind::Normal && !matches!(m.kind, MoveKind::Castle(_))
        {
            self.halfmove_clock = 0;
        } else {
            self.halfmove_clock += 1;
        }
        captured_haver
    }

    /// The empty board squares next to `loc` where a dropped Ball may go.
    fn drop_squares(&self, loc: Loc) -> LocSet {
        ROOK_DIRS
            .iter()
            .chain(&BISHOP_DIRS)
            .filter_map(|&d| loc.step(d))
            .filter(|&l| !l.is_wicket() && self.is_empty(l))
            .collect()
    }

    /// The pieces that may throw after `m` (none after a Ball capture).
    fn throwers(&self, m: &Move) -> LocSet {
        let us = self.turn;
        let mut out = LocSet::default();
        let Some(haver) = self.haver[idx(us)] else {
            return out;
        };
        match m.kind {
            MoveKind::Ball => {}
            MoveKind::Castle(side) => {
                let rank = if us == Color::White { 0 } else { 7 };
                let rook = Loc::square(Square::from_coords(side.rook_to_file(), rank));
                if haver == m.to || haver == rook {
                    out.insert(m.to);
                    out.insert(rook);
                }
            }
            _ if haver == m.to => out.insert(m.to),
            _ => {}
        }
        out
    }

    /// Where the throwers may throw: along queen lines over empty places, to the first
    /// own non-Defender piece or to an empty place (never into the thrower's own wicket).
    fn throw_targets(&self, throwers: LocSet) -> LocSet {
        let us = self.turn;
        let mut out = LocSet::default();
        for thrower in throwers {
            for &dir in ROOK_DIRS.iter().chain(&BISHOP_DIRS) {
                let mut at = thrower.step(dir);
                while let Some(loc) = at {
                    if self.is_empty(loc) {
                        if loc != Loc::wicket_of(us) {
                            out.insert(loc);
                        }
                    } else {
                        if self.piece_at(loc).is_some_and(|p| p.color == us)
                            && self.defender[idx(us)] != Some(loc)
                        {
                            out.insert(loc);
                        }
                        break;
                    }
                    at = loc.step(dir);
                }
            }
        }
        if let Some(haver) = self.haver[idx(us)] {
            out.remove(haver);
        }
        out
    }

    /// Own pieces that may be sacrificed: not the King, not the Defender.
    fn sacrificable(&self) -> Vec<Loc> {
        let us = self.turn;
        self.locs_of(us)
            .filter(|&loc| {
                self.piece_at(loc).is_some_and(|p| p.role != Role::King)
                    && self.defender[idx(us)] != Some(loc)
            })
            .collect()
    }

    /// Every decision a scoring attempt may carry here, with whether it succeeds.
    fn decisions(&self) -> Vec<(Vec<Decision>, bool)> {
        let sees = self.defender_sees_wicket(self.turn.other());
        let mut out = Vec::new();
        if self.mode.is_cards() {
            // The cards are played by both sides as the attempt goes: the turn is listed
            // once, its cards still to be played.
            out.push((Vec::new(), false));
            return out;
        }
        if self.mode.is_dice() {
            let need = if sees { 5 } else { 3 };
            let pieces = self.sacrificable();
            for first in 1..=6 {
                out.push((vec![Decision::Roll(first)], first >= need));
                if first < need && self.mode == DecisionMode::DiceII {
                    for &piece in &pieces {
                        for second in 1..=6 {
                            out.push((
                                vec![
                                    Decision::Roll(first),
                                    Decision::Sacrifice(piece),
                                    Decision::Roll(second),
                                ],
                                second >= need,
                            ));
                        }
                    }
                }
            }
            return out;
        }
        if !sees {
            out.push((Vec::new(), true));
            return out;
        }
        out.push((Vec::new(), false));
        let pieces = self.sacrificable();
        let k = self.mode.sacrifices();
        let mut chosen = Vec::with_capacity(k);
        combinations(&pieces, k, 0, &mut chosen, &mut |set| {
            out.push((set.iter().map(|&l| Decision::Sacrifice(l)).collect(), true));
        });
        out
    }

    /// Lands a thrown Ball, deciding a scoring attempt.
    fn apply_throw(&mut self, target: Loc, decision: &[Decision], success: bool) {
        let us = self.turn;
        let them = us.other();
        if self.piece_at(target).is_some() {
            self.haver[idx(us)] = Some(target);
            return;
        }
        self.haver[idx(us)] = None;
        self.loose[idx(us)] = Some(target);
        for part in decision {
            if let Decision::Sacrifice(loc) = part {
                self.remove_piece(*loc);
            }
        }
        // A Ball landing behind a pawn that has just moved two squares blocks en passant.
        if self.ep_square.is_some_and(|ep| Loc::square(ep) == target) {
            self.ep_square = None;
        }
        if target == Loc::wicket_of(them)
            && success
            && let Some(defender) = self.defender[idx(them)].take()
        {
            self.remove_piece(defender);
        }
    }

    fn finish_turn(&mut self) {
        if self.turn == Color::Black {
            self.fullmove_number += 1;
        }
        self.turn = self.turn.other();
    }

    /// The pieces `color` may name as its new Defender: any but its Ball-haver.
    fn naming_candidates(&self, color: Color) -> Vec<Loc> {
        self.locs_of(color)
            .filter(|&loc| self.haver[idx(color)] != Some(loc))
            .collect()
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

    /// Generates the legal turns; with `strict` off, the move rules are relaxed (for
    /// saying why a token is illegal).
    fn generate(&self, strict: bool, out: &mut Vec<Turn>) {
        if self.wicket_end().is_some() || self.cards.attempt.is_some() {
            return;
        }
        let us = self.turn;
        if self.defender[idx(us)].is_none() {
            for naming in self.naming_candidates(us) {
                let mut base = self.clone();
                base.defender[idx(us)] = Some(naming);
                base.generate_named(Some(naming), strict, out);
            }
        } else {
            self.generate_named(None, strict, out);
        }
    }

    /// The turns after `naming` (already applied to `self`): moves, drops, throws and
    /// decisions. Allocates nothing but the turns pushed (and the decision lists of
    /// scoring attempts in the dice and deterministic modes).
    fn generate_named(&self, naming: Option<Loc>, strict: bool, out: &mut Vec<Turn>) {
        let us = self.turn;
        self.each_pseudo_move(strict, &mut |m| {
            let mut moved = self.clone();
            if moved.apply_move(&m) {
                for drop in moved.drop_squares(m.to) {
                    let square = drop.as_square().expect("a board square");
                    let mut dropped = moved.clone();
                    dropped.loose[idx(us.other())] = Some(drop);
                    dropped.finish_generating(naming, &m, Some(square), out);
                }
            } else {
                moved.finish_generating(naming, &m, None, out);
            }
        });
    }

    /// Pushes the turns of a move once its drop is done: without a throw, then with each
    /// throw (and each decision of a scoring attempt), those that leave the king safe.
    fn finish_generating(
        &self,
        naming: Option<Loc>,
        m: &Move,
        drop: Option<Square>,
        out: &mut Vec<Turn>,
    ) {
        let us = self.turn;
        let turn = Turn {
            naming,
            mv: *m,
            drop,
            throw: None,
            decision: Vec::new(),
        };
        if !self.in_check(us) {
            out.push(turn.clone());
        }
        for target in self.throw_targets(self.throwers(m)) {
            let push = |decision: Vec<Decision>, success: bool, out: &mut Vec<Turn>| {
                let mut thrown = self.clone();
                thrown.apply_throw(target, &decision, success);
                if !thrown.in_check(us) {
                    out.push(Turn {
                        throw: Some(target),
                        decision,
                        ..turn.clone()
                    });
                }
            };
            if target == Loc::wicket_of(us.other()) {
                for (decision, success) in self.decisions() {
                    push(decision, success, out);
                }
            } else {
                push(Vec::new(), false, out);
            }
        }
    }

    /// Whether the scoring attempt in `turn` succeeds (false for any other turn).
    fn succeeds(&self, turn: &Turn) -> bool {
        let us = self.turn;
        if turn.throw != Some(Loc::wicket_of(us.other())) {
            return false;
        }
        let mut moved = self.clone();
        if turn.naming.is_some() {
            moved.defender[idx(us)] = turn.naming;
        }
        moved.apply_move(&turn.mv);
        let sees = moved.defender_sees_wicket(us.other());
        if self.mode.is_cards() {
            let cards = card_plays(&turn.decision);
            return cards::judge(self.mode, sees, &cards) == Ok(Verdict::Success);
        }
        if self.mode.is_dice() {
            let need = if sees { 5 } else { 3 };
            return matches!(turn.decision.last(), Some(Decision::Roll(r)) if *r >= need);
        }
        !sees || !turn.decision.is_empty()
    }

    /// Whether the cards of an attempt decided it; called before the turn passes, while
    /// the thrower is the side to move.
    fn attempt_decided(&self, played: &[Card]) -> bool {
        let sees = self.defender_sees_wicket(self.turn.other());
        matches!(
            cards::judge(self.mode, sees, played),
            Ok(Verdict::Success | Verdict::Failure)
        )
    }

    /// What a scoring attempt still waits for, when the last turn's cards did not decide
    /// it: the thrower's next card (none played yet, or a tie) or the opponent's reply.
    #[must_use]
    pub fn awaiting(&self) -> Option<String> {
        let played = self.cards.attempt.as_ref()?;
        let thrower = self.turn.other();
        Some(match played.len() % 2 {
            1 => format!(
                "the scoring attempt awaits {}'s card in reply to {thrower}'s {}",
                self.turn,
                played[played.len() - 1]
            ),
            _ if played.is_empty() => {
                format!("the scoring attempt awaits {thrower}'s card")
            }
            _ => format!("the scoring attempt awaits {thrower}'s next card after a tie"),
        })
    }

    /// The cards played since the last reshuffle (the discard pile), in deck order.
    pub fn discards(&self) -> impl Iterator<Item = Card> + use<> {
        let mask = self.cards.discards;
        (0..40u8).filter_map(move |i| {
            (mask & (1 << i) != 0)
                .then(|| Card::new(cards::SUITS[usize::from(i / 10)], i % 10 + 1))
                .flatten()
        })
    }

    fn position_key(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.cards.discards.hash(&mut hasher);
        self.cards.attempt.hash(&mut hasher);
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

/// Calls `found` with every `k`-element subset of `items` (in order).
fn combinations(
    items: &[Loc],
    k: usize,
    start: usize,
    chosen: &mut Vec<Loc>,
    found: &mut impl FnMut(&[Loc]),
) {
    if chosen.len() == k {
        found(chosen);
        return;
    }
    for i in start..items.len() {
        chosen.push(items[i]);
        combinations(items, k, i + 1, chosen, found);
        chosen.pop();
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
        notation::read_position(text)
    }

    fn position_string(&self) -> String {
        notation::write_position(self)
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
        let success = self.succeeds(turn);
        if turn.naming.is_some() {
            self.defender[idx(us)] = turn.naming;
        }
        self.apply_move(&turn.mv);
        if let Some(square) = turn.drop {
            self.loose[idx(us.other())] = Some(Loc::square(square));
        }
        if let Some(target) = turn.throw {
            self.apply_throw(target, &turn.decision, success);
            if self.mode.is_cards() && target == Loc::wicket_of(us.other()) {
                let played = card_plays(&turn.decision);
                let mut lead = None;
                for (i, &card) in played.iter().enumerate() {
                    let player = if i % 2 == 0 { us } else { us.other() };
                    // A legal turn's cards are playable; an illegal one is played as far
                    // as it goes.
                    let _ = self.cards.play(player, card, lead);
                    lead = (i % 2 == 0).then_some(card);
                }
                if !success && !self.attempt_decided(&played) {
                    self.cards.attempt = Some(played);
                }
            }
        }
        self.finish_turn();
    }

    /// The wicket ends first (a King Defender taken, no Defender to name), then mate and
    /// stalemate, then the seventy-five-move rule. Material is never insufficient: a lone
    /// King can still take a wicket.
    fn outcome(&self) -> Option<Outcome> {
        if self.cards.attempt.is_some() {
            return None;
        }
        if let Some(end) = self.wicket_end() {
            return Some(end);
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
        Wickets::awaiting(self)
    }
}

/// The cards of a decision, in the order played.
fn card_plays(decision: &[Decision]) -> Vec<Card> {
    decision
        .iter()
        .filter_map(|d| match d {
            Decision::Card(card) => Some(*card),
            _ => None,
        })
        .collect()
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
mod tests {
    use super::*;

    #[test]
    fn the_start_has_the_orthodox_twenty_turns_and_the_defender_entering_its_wicket() {
        let mut turns = Vec::new();
        Wickets::start().legal_turns(&mut turns);
        assert_eq!(turns.len(), 21);
    }

    #[test]
    fn wickets_join_the_board_as_e0_and_e9() {
        assert_eq!(Loc::W0.step((-1, 1)), Loc::from_name("d1"));
        assert_eq!(Loc::W0.step((0, 1)), Loc::from_name("e1"));
        assert_eq!(Loc::W9.step((1, -1)), Loc::from_name("f8"));
        assert_eq!(Loc::W0.step((1, 0)), None);
        assert_eq!(
            Loc::from_name("c1").and_then(|l| l.step((2, -1))),
            Some(Loc::W0)
        );
        assert_eq!(Loc::W0.rank_char(), '0');
        assert_eq!(Loc::W9.rank_char(), '9');
    }
}
