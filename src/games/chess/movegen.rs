//! Moves, the fixed-capacity move list, legal move generation and playing a move.
//!
//! Generation is legal, not pseudo-legal: it computes the checkers and the pinned pieces
//! once, and then only emits moves that keep the king safe, so nothing is made and unmade
//! to test it. The one exception is en passant, the capture that removes two pieces from a
//! line, which is tested by recomputing the attacks on the king with the new occupancy.

use std::fmt;
use std::ops::Deref;

use super::attacks::{self, tables};
use super::bitboard::Bitboard;
use super::types::{CastlingSide, Piece, Role, Square};
use super::{Board, Chess};
use crate::games::Color;

/// What a move does besides moving a piece from one square to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A move to an empty square.
    Normal,
    /// A capture of the piece on the destination square.
    Capture,
    /// A pawn capturing a pawn that has just passed it with a two-square move.
    EnPassant,
    /// Castling: the king moves two squares (the move's `to`) and the rook jumps over it.
    Castle,
    /// A null move (`--`): nothing moves and the other side is to move. Never generated;
    /// only a record's `--` resolves to it (`from` and `to` are the king's square).
    Null,
}

/// A legal move in some position. Castling is the king's move (`e1g1`), as in UCI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Where the moving piece stands.
    pub from: Square,
    /// Where it goes (for castling, the king's destination).
    pub to: Square,
    /// The kind of the moving piece.
    pub role: Role,
    /// What a pawn reaching the last rank becomes.
    pub promotion: Option<Role>,
    /// Capture, en passant, castling or a plain move.
    pub kind: MoveKind,
}

impl Move {
    /// A placeholder that fills unused slots of a [`MoveList`].
    const EMPTY: Move = Move {
        from: Square::new(0),
        to: Square::new(0),
        role: Role::Pawn,
        promotion: None,
        kind: MoveKind::Normal,
    };

    /// The UCI form: `e2e4`, `e7e8q`, castling as the king's move `e1g1`.
    #[must_use]
    pub fn uci(&self) -> String {
        let mut text = format!("{}{}", self.from, self.to);
        if let Some(role) = self.promotion {
            text.push(role.lower_char());
        }
        text
    }

    /// Whether the move takes a piece (en passant included).
    #[must_use]
    pub const fn is_capture(&self) -> bool {
        matches!(self.kind, MoveKind::Capture | MoveKind::EnPassant)
    }

    /// For castling, the wing castled to.
    #[must_use]
    pub const fn castling_side(&self) -> Option<CastlingSide> {
        match self.kind {
            MoveKind::Castle if self.to.file() > self.from.file() => Some(CastlingSide::KingSide),
            MoveKind::Castle => Some(CastlingSide::QueenSide),
            _ => None,
        }
    }
}

impl fmt::Display for Move {
    /// The UCI form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.uci())
    }
}

/// The most legal moves any chess position has is 218; 256 leaves room.
const CAPACITY: usize = 256;

/// The most legal moves to one destination square: a king step, two castlings, eight
/// knights, eight sliders (one per line) and three pawns with four promotions each make
/// 31.
pub(crate) const TO_ONE_SQUARE: usize = 32;

/// A list of at most `N` moves on the stack, so generating moves never allocates. The
/// default holds every legal move of any position; a list of the moves to one square
/// needs only 32 entries, which is cheaper to set up on the hot path of resolving
/// a token.
#[derive(Clone)]
pub struct MoveList<const N: usize = CAPACITY> {
    moves: [Move; N],
    len: usize,
}

/// The moves to a single destination square.
pub(crate) type TargetList = MoveList<TO_ONE_SQUARE>;

impl<const N: usize> MoveList<N> {
    /// An empty list.
    #[must_use]
    pub const fn new() -> MoveList<N> {
        MoveList {
            moves: [Move::EMPTY; N],
            len: 0,
        }
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub(crate) fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// Keeps only the moves `keep` accepts, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            if keep(&self.moves[i]) {
                self.moves[kept] = self.moves[i];
                kept += 1;
            }
        }
        self.len = kept;
    }
}

impl<const N: usize> Default for MoveList<N> {
    fn default() -> MoveList<N> {
        MoveList::new()
    }
}

impl<const N: usize> Deref for MoveList<N> {
    type Target = [Move];

    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl<const N: usize> fmt::Debug for MoveList<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// For each square, the castling rights that survive a move from or to it: moving the
/// king loses both of its side's rights, moving or capturing a rook loses that wing's.
const CASTLING_KEEP: [u8; 64] = {
    let mut keep = [0b1111u8; 64];
    keep[0] = !0b0010; // a1: White's queenside
    keep[4] = !0b0011; // e1: both of White's
    keep[7] = !0b0001; // h1: White's kingside
    keep[56] = !0b1000; // a8
    keep[60] = !0b1100; // e8
    keep[63] = !0b0100; // h8
    keep
};

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// The pieces of `us` on `board` that stand alone between `us`'s king on `king` and an
/// enemy rook, bishop or queen on one line, `occupied` being what blocks a line: they may
/// only move along that line. Chess with wickets shares it, with its loose Ball in
/// `occupied`.
#[inline]
pub(crate) fn pinned(board: &Board, king: Square, us: Color, occupied: Bitboard) -> Bitboard {
    let t = tables();
    let snipers = ((t.rook(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (t.bishop(king, Bitboard::EMPTY) & board.bishops_and_queens()))
        & board.by_color(us.other());
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let between = t.between(king, sniper) & occupied;
        if !between.more_than_one() {
            pinned |= between;
        }
    }
    pinned & board.by_color(us)
}

impl Chess {
    /// The pieces of `by` that attack `square`, with the given occupancy (which may differ
    /// from the board's, to look through a piece that is about to move).
    #[inline]
    pub(crate) fn attackers_to(&self, square: Square, by: Color, occupied: Bitboard) -> Bitboard {
        let t = tables();
        let b = &self.board;
        ((t.rook(square, occupied) & b.rooks_and_queens())
            | (t.bishop(square, occupied) & b.bishops_and_queens())
            | (attacks::knight(square) & b.by_role(Role::Knight))
            | (attacks::king(square) & b.by_role(Role::King))
            | (attacks::pawn(by.other(), square) & b.by_role(Role::Pawn)))
            & b.by_color(by)
    }

    /// The enemy pieces that would attack our king on `king` once a piece of ours has
    /// moved to `to` (taking whatever stood there), leaving the occupancy `occupied`:
    /// [`Chess::attackers_to`] without the enemy king, which can never stand next to
    /// ours, and without the piece taken on `to`.
    #[inline]
    pub(crate) fn attacked_after(&self, king: Square, occupied: Bitboard, to: Square) -> Bitboard {
        let t = tables();
        let b = &self.board;
        let them = self.turn.other();
        ((t.rook(king, occupied) & b.rooks_and_queens())
            | (t.bishop(king, occupied) & b.bishops_and_queens())
            | (attacks::knight(king) & b.by_role(Role::Knight))
            | (attacks::pawn(self.turn, king) & b.by_role(Role::Pawn)))
            & b.by_color(them).without(to)
    }

    /// The king of the side to move. A validated position always has exactly one.
    #[inline]
    pub(crate) fn our_king(&self) -> Square {
        self.board
            .king_of(self.turn)
            .expect("a validated position has a king")
    }

    /// The enemy pieces giving check to the side to move.
    #[inline]
    pub(crate) fn checkers(&self) -> Bitboard {
        self.attackers_to(self.our_king(), self.turn.other(), self.board.occupied())
    }

    /// The pieces of the side to move that stand alone between their king and an enemy
    /// slider on the same line: they may only move along that line.
    #[inline]
    pub(crate) fn pinned(&self, king: Square) -> Bitboard {
        pinned(&self.board, king, self.turn, self.board.occupied())
    }

    /// Every legal move.
    pub(crate) fn generate_all(&self, list: &mut MoveList) {
        self.generate(Bitboard::ALL, Bitboard::ALL, list);
    }

    /// The legal moves of pieces on `from_mask` to squares on `to_mask` (castling counts as
    /// a move to the king's destination). Resolving a token asks for a handful of moves
    /// this way instead of all of them.
    pub(crate) fn generate<const N: usize>(
        &self,
        from_mask: Bitboard,
        to_mask: Bitboard,
        list: &mut MoveList<N>,
    ) {
        let t = tables();
        let b = &self.board;
        let us = self.turn;
        let them = us.other();
        let ours = b.by_color(us);
        let theirs = b.by_color(them);
        let occupied = ours | theirs;
        let king = self.our_king();
        let checkers = self.attackers_to(king, them, occupied);

        if from_mask.contains(king) {
            // The king must not stay on a line it is checked along, so it is removed
            // from the occupancy before its destinations are tested.
            let without_king = occupied.without(king);
            for to in attacks::king(king) & !ours & to_mask {
                if self.attackers_to(to, them, without_king).is_empty() {
                    list.push(Move {
                        from: king,
                        to,
                        role: Role::King,
                        promotion: None,
                        kind: if theirs.contains(to) {
                            MoveKind::Capture
                        } else {
                            MoveKind::Normal
                        },
                    });
                }
            }
            if checkers.is_empty() {
                self.generate_castling(king, to_mask, list);
            }
        }
        if checkers.more_than_one() {
            return;
        }
        // In check, every other piece must capture the checker or step between.
        let target = match checkers.single() {
            Some(checker) => t.between(king, checker).with(checker),
            None => Bitboard::ALL,
        } & !ours
            & to_mask;
        if target.is_empty() && self.ep_square.is_none() {
            return;
        }
        let pinned = self.pinned(king);

        // A pinned knight can never move along its pin line.
        for from in b.by_piece(us, Role::Knight) & from_mask & !pinned {
            push_piece_moves(
                list,
                Role::Knight,
                from,
                attacks::knight(from) & target,
                theirs,
            );
        }
        for (role, rook_like, bishop_like) in [
            (Role::Bishop, false, true),
            (Role::Rook, true, false),
            (Role::Queen, true, true),
        ] {
            for from in b.by_piece(us, role) & from_mask {
                let mut reach = Bitboard::EMPTY;
                if rook_like {
                    reach |= t.rook(from, occupied);
                }
                if bishop_like {
                    reach |= t.bishop(from, occupied);
                }
                reach &= target;
                if pinned.contains(from) {
                    reach &= t.line(king, from);
                }
                push_piece_moves(list, role, from, reach, theirs);
            }
        }
        self.generate_pawn_moves(king, target, pinned, from_mask, to_mask, list);
    }

    fn generate_pawn_moves<const N: usize>(
        &self,
        king: Square,
        target: Bitboard,
        pinned: Bitboard,
        from_mask: Bitboard,
        to_mask: Bitboard,
        list: &mut MoveList<N>,
    ) {
        let t = tables();
        let b = &self.board;
        let us = self.turn;
        let theirs = b.by_color(us.other());
        let occupied = b.occupied();
        let forward: i8 = if us == Color::White { 8 } else { -8 };
        for from in b.by_piece(us, Role::Pawn) & from_mask {
            let mut allowed = target;
            if pinned.contains(from) {
                allowed &= t.line(king, from);
            }
            for to in attacks::pawn(us, from) & theirs & allowed {
                push_pawn_move(list, us, from, to, MoveKind::Capture);
            }
            // A pawn never stands on its last rank, so the square ahead exists.
            let Some(one) = from.offset(forward) else {
                continue;
            };
            if !occupied.contains(one) {
                if allowed.contains(one) {
                    push_pawn_move(list, us, from, one, MoveKind::Normal);
                }
                if from.relative(us).rank() == 1 {
                    let two = one.offset(forward).expect("the fourth rank exists");
                    if !occupied.contains(two) && allowed.contains(two) {
                        push_pawn_move(list, us, from, two, MoveKind::Normal);
                    }
                }
            }
            if let Some(ep) = self.ep_square
                && to_mask.contains(ep)
                && attacks::pawn(us, from).contains(ep)
                && self.en_passant_is_safe(king, from, ep)
            {
                list.push(Move {
                    from,
                    to: ep,
                    role: Role::Pawn,
                    promotion: None,
                    kind: MoveKind::EnPassant,
                });
            }
        }
    }

    /// Whether capturing en passant from `from` to `ep` leaves the king unattacked. Two
    /// pawns leave their squares at once, which pins cannot describe, so the attacks on
    /// the king are computed again with the occupancy after the capture.
    fn en_passant_is_safe(&self, king: Square, from: Square, ep: Square) -> bool {
        let t = tables();
        let b = &self.board;
        let us = self.turn;
        let backward: i8 = if us == Color::White { -8 } else { 8 };
        let Some(captured) = ep.offset(backward) else {
            return false;
        };
        if !b.by_piece(us.other(), Role::Pawn).contains(captured) || b.occupied().contains(ep) {
            return false;
        }
        let occupied = b.occupied().without(from).without(captured).with(ep);
        let theirs = b.by_color(us.other()).without(captured);
        let attackers = (t.rook(king, occupied) & b.rooks_and_queens())
            | (t.bishop(king, occupied) & b.bishops_and_queens())
            | (attacks::knight(king) & b.by_role(Role::Knight))
            | (attacks::pawn(us, king) & b.by_role(Role::Pawn));
        (attackers & theirs).is_empty()
    }

    /// Castling moves: the right is held (so king and rook are in place), the king is not
    /// in check (the caller knows), the squares between king and rook are empty, and the
    /// squares the king crosses and lands on are not attacked.
    fn generate_castling<const N: usize>(
        &self,
        king: Square,
        to_mask: Bitboard,
        list: &mut MoveList<N>,
    ) {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if self.castling_obstacle(king, side).is_none() {
                let to = Square::from_coords(side.king_to_file(), king.rank());
                if to_mask.contains(to) {
                    list.push(Move {
                        from: king,
                        to,
                        role: Role::King,
                        promotion: None,
                        kind: MoveKind::Castle,
                    });
                }
            }
        }
    }

    /// Why the side to move cannot castle on `side` right now, or `None` when it can.
    /// Move generation and the error messages of resolving share this one test.
    pub(crate) fn castling_obstacle(
        &self,
        king: Square,
        side: CastlingSide,
    ) -> Option<CastlingObstacle> {
        let t = tables();
        let us = self.turn;
        if !self.castling.has(us, side) {
            return Some(CastlingObstacle::NoRight);
        }
        let rook = Square::from_coords(side.rook_file(), king.rank());
        let occupied = self.board.occupied();
        // The piece nearest the king is the one a person looks at first.
        if let Some(square) =
            (t.between(king, rook) & occupied).min_by_key(|s| s.index().abs_diff(king.index()))
        {
            return Some(CastlingObstacle::Occupied(square));
        }
        if self.attackers_to(king, us.other(), occupied).any() {
            return Some(CastlingObstacle::InCheck);
        }
        // Walk from the king outwards, so a message names the first attacked square.
        let step: i8 = match side {
            CastlingSide::KingSide => 1,
            CastlingSide::QueenSide => -1,
        };
        let mut square = king;
        while square.file() != side.king_to_file() {
            square = square
                .offset(step)
                .expect("the path stays on the back rank");
            if self.attackers_to(square, us.other(), occupied).any() {
                return Some(CastlingObstacle::Attacked(square));
            }
        }
        None
    }

    /// Plays a move known to be legal.
    pub(crate) fn play_move(&mut self, m: &Move) {
        let us = self.turn;
        let them = us.other();
        let piece = Piece {
            color: us,
            role: m.role,
        };
        self.halfmove_clock = crate::games::count_up(self.halfmove_clock);
        self.ep_square = None;
        match m.kind {
            MoveKind::Normal | MoveKind::Capture => {
                if m.kind == MoveKind::Capture {
                    self.board.take(m.to, them);
                    self.halfmove_clock = 0;
                }
                self.board.shift(piece, m.from, m.to);
                if m.role == Role::Pawn {
                    self.halfmove_clock = 0;
                    if m.from.index().abs_diff(m.to.index()) == 16 {
                        self.ep_square =
                            Some(Square::new(((m.from.index() + m.to.index()) / 2) as u8));
                    }
                    if let Some(promotion) = m.promotion {
                        self.board.remove(m.to);
                        self.board.put(
                            m.to,
                            Piece {
                                color: us,
                                role: promotion,
                            },
                        );
                    }
                }
            }
            MoveKind::EnPassant => {
                self.board.shift(piece, m.from, m.to);
                self.board
                    .remove(Square::from_coords(m.to.file(), m.from.rank()));
                self.halfmove_clock = 0;
            }
            MoveKind::Castle => {
                self.board.shift(piece, m.from, m.to);
                let side = m.castling_side().expect("a castling move");
                let rank = m.from.rank();
                self.board.shift(
                    Piece {
                        color: us,
                        role: Role::Rook,
                    },
                    Square::from_coords(side.rook_file(), rank),
                    Square::from_coords(side.rook_to_file(), rank),
                );
            }
            MoveKind::Null => {}
        }
        if m.kind != MoveKind::Null {
            self.castling
                .retain(CASTLING_KEEP[m.from.index()] & CASTLING_KEEP[m.to.index()]);
        }
        if us == Color::Black {
            self.fullmove_number = crate::games::count_up(self.fullmove_number);
        }
        self.turn = them;
    }
}

/// Why castling is impossible right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CastlingObstacle {
    /// The right is gone: the king or that rook has moved (or the rook was taken).
    NoRight,
    /// A piece stands between the king and the rook.
    Occupied(Square),
    /// The king is in check.
    InCheck,
    /// A square the king crosses or lands on is attacked.
    Attacked(Square),
}

#[inline]
fn push_piece_moves<const N: usize>(
    list: &mut MoveList<N>,
    role: Role,
    from: Square,
    reach: Bitboard,
    theirs: Bitboard,
) {
    for to in reach {
        list.push(Move {
            from,
            to,
            role,
            promotion: None,
            kind: if theirs.contains(to) {
                MoveKind::Capture
            } else {
                MoveKind::Normal
            },
        });
    }
}

#[inline]
fn push_pawn_move<const N: usize>(
    list: &mut MoveList<N>,
    us: Color,
    from: Square,
    to: Square,
    kind: MoveKind,
) {
    if to.relative(us).rank() == 7 {
        for promotion in PROMOTIONS {
            list.push(Move {
                from,
                to,
                role: Role::Pawn,
                promotion: Some(promotion),
                kind,
            });
        }
    } else {
        list.push(Move {
            from,
            to,
            role: Role::Pawn,
            promotion: None,
            kind,
        });
    }
}
