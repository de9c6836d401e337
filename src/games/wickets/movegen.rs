//! Move generation: the moves of each piece, on the board and into and out of the
//! wickets, castling, playing a move, and the whole turns (naming, move, drop, throw,
//! decision) kept when the mover's king is safe.

use super::board::{BISHOP_DIRS, LocSet, ROOK_DIRS, may_reach_wicket};
use super::cards::Card;
use super::{Loc, Wickets, idx};
use crate::games::Color;
use crate::games::chess::attacks::{self, KNIGHT_DELTAS, tables};
use crate::games::chess::bitboard::Bitboard;
use crate::games::chess::types::{CastlingSide, Piece, Role, Square};

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

/// Where generated turns go: a list, or a [`Count`] of them (perft's last level).
pub(super) trait Sink {
    /// Takes one turn.
    fn push(&mut self, turn: Turn);
}

impl Sink for Vec<Turn> {
    fn push(&mut self, turn: Turn) {
        Vec::push(self, turn);
    }
}

/// A [`Sink`] that counts the turns.
#[derive(Default)]
pub(super) struct Count(pub(super) u64);

impl Sink for Count {
    fn push(&mut self, _turn: Turn) {
        self.0 += 1;
    }
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
    /// Cards II: the thrower declines the second pair after a failing first one (`_c-`).
    Decline,
}

/// A whole legal turn.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    /// The new Defender the mover names first, when it has none.
    pub naming: Option<Loc>,
    /// The move.
    pub mv: Move,
    /// Where the Ball of a captured Ball-haver is dropped.
    pub drop: Option<Loc>,
    /// Where the Ball is thrown (an own piece, an empty square, the opposing wicket).
    pub throw: Option<Loc>,
    /// The decision of a scoring attempt (rolls, sacrifices), in order.
    pub decision: Vec<Decision>,
}

/// The board squares a piece on `square` could go to by geometry (for pawns: captures
/// only), with `occ` the board squares holding a piece or a Ball.
pub(super) fn board_targets(square: Square, piece: Piece, occ: Bitboard) -> Bitboard {
    match piece.role {
        Role::Pawn => attacks::pawn(piece.color, square),
        Role::Knight => attacks::knight(square),
        Role::King => attacks::king(square),
        Role::Bishop => tables().bishop(square, occ),
        Role::Rook => tables().rook(square, occ),
        Role::Queen => tables().queen(square, occ),
    }
}

impl Wickets {
    /// Whether `piece` on `square` attacks `wicket` ([`Wickets::reaches_wicket`]), asked
    /// only where its geometry allows it.
    fn reaches_wicket_from(&self, square: Square, piece: Piece, wicket: Loc) -> bool {
        may_reach_wicket(square, piece, wicket) && self.reaches_wicket(square, piece, wicket)
    }

    /// Adds to `out` every place a piece on `from` could go to by geometry (for pawns:
    /// captures only), with `occ` the board squares holding a piece or a Ball
    /// ([`Wickets::occupied`]).
    pub(super) fn targets_into(&self, from: Loc, piece: Piece, occ: Bitboard, out: &mut LocSet) {
        if let Some(square) = from.as_square() {
            out.insert_squares(board_targets(square, piece, occ));
            for wicket in [Loc::W0, Loc::W9] {
                if self.reaches_wicket_from(square, piece, wicket) {
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
    pub(super) fn move_kind(&self, from: Loc, to: Loc, strict: bool) -> Option<MoveKind> {
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
    pub(super) fn pseudo_moves(&self, strict: bool, out: &mut Vec<Move>) {
        self.each_pseudo_move(strict, &mut |m| out.push(m));
    }

    /// Calls `out` with every move of the side to move before the king-safety test;
    /// `strict` as in [`Wickets::move_kind`].
    pub(super) fn each_pseudo_move(&self, strict: bool, out: &mut dyn FnMut(Move)) {
        let us = self.turn;
        let occ = self.occupied();
        let own = self.board.by_color(us);
        let to_each = |out: &mut dyn FnMut(Move), from: Loc, role, to, kind: Option<MoveKind>| {
            if let Some(kind) = kind {
                out(Move {
                    from,
                    to,
                    role,
                    promotion: None,
                    kind,
                });
            }
        };
        for from in self.locs_of(us) {
            let piece = self.piece_at(from).expect("own piece");
            let square = match from.as_square() {
                Some(square) if piece.role != Role::Pawn => square,
                _ => {
                    let mut targets = LocSet::default();
                    self.targets_into(from, piece, occ, &mut targets);
                    if piece.role == Role::Pawn {
                        self.pawn_moves(from, targets, out);
                    } else {
                        for to in targets {
                            to_each(out, from, piece.role, to, self.move_kind(from, to, strict));
                        }
                    }
                    continue;
                }
            };
            // The board first, then the wickets ([`Wickets::targets_into`]'s order). An
            // own piece is never a target; a board square with neither a piece nor a Ball
            // is a plain move (what `move_kind` says of both, in either mode).
            for to in board_targets(square, piece, occ) & !own {
                let kind = if occ.contains(to) {
                    self.move_kind(from, Loc::square(to), strict)
                } else {
                    Some(MoveKind::Normal)
                };
                to_each(out, from, piece.role, Loc::square(to), kind);
            }
            for wicket in [Loc::W0, Loc::W9] {
                if self.reaches_wicket_from(square, piece, wicket) {
                    to_each(
                        out,
                        from,
                        piece.role,
                        wicket,
                        self.move_kind(from, wicket, strict),
                    );
                }
            }
        }
        self.castling_moves(out);
    }

    pub(super) fn pawn_moves(&self, from: Loc, captures: LocSet, out: &mut dyn FnMut(Move)) {
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

    pub(super) fn castling_moves(&self, out: &mut dyn FnMut(Move)) {
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
    pub(super) fn apply_move(&mut self, m: &Move) -> bool {
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
            self.halfmove_clock = crate::games::count_up(self.halfmove_clock);
        }
        captured_haver
    }

    /// The pieces `color` may name as its new Defender: any but its Ball-haver.
    pub(super) fn naming_candidates(&self, color: Color) -> Vec<Loc> {
        self.locs_of(color)
            .filter(|&loc| self.haver[idx(color)] != Some(loc))
            .collect()
    }

    /// Generates the legal turns; with `strict` off, the move rules are relaxed (for
    /// saying why a token is illegal).
    pub(super) fn generate(&self, strict: bool, out: &mut Vec<Turn>) {
        self.generate_with(strict, true, out);
    }

    /// [`Wickets::generate`], with `shortcut` off trying every move on the board to test
    /// the king's safety (the plain definition, which a test compares with).
    pub(super) fn generate_with(&self, strict: bool, shortcut: bool, out: &mut impl Sink) {
        if self.wicket_end().is_some()
            || self.cards.attempt.is_some()
            || self.awaited_roll.is_some()
        {
            return;
        }
        let us = self.turn;
        if self.defender[idx(us)].is_none() {
            for naming in self.naming_candidates(us) {
                let mut base = self.clone();
                base.defender[idx(us)] = Some(naming);
                base.generate_named(Some(naming), strict, shortcut, out);
            }
        } else {
            self.generate_named(None, strict, shortcut, out);
        }
    }

    /// The own pieces on the board that stand alone (no other piece and no loose Ball)
    /// between `king` and an enemy rook, bishop or queen on one line. No line between two
    /// board squares passes through a wicket, so the wickets play no part.
    fn pinned(&self, king: Square) -> Bitboard {
        crate::games::chess::pinned(&self.board, king, self.turn, self.occupied())
    }

    /// Whether `m` is surely a whole turn that leaves the king safe, without playing it:
    /// the king (on the board, `quiet` holding the pinned pieces) is not in check now,
    /// the move is neither the king's nor castling nor en passant, its piece is not
    /// pinned, it takes no opposing Ball-haver (no drop) and does not move the own
    /// Ball-haver (no throw). Such a move only vacates `from` (safe: not pinned), fills
    /// `to` (a block, never an attack on the own king) and may replace an enemy piece
    /// there (the square stays full), so the king stays unattacked; a wicket lies
    /// between no two board squares.
    fn plainly_safe(&self, m: &Move, quiet: Option<Bitboard>) -> bool {
        let Some(pinned) = quiet else {
            return false;
        };
        let us = self.turn;
        match m.kind {
            MoveKind::Normal | MoveKind::Capture | MoveKind::Ball => {}
            MoveKind::EnPassant | MoveKind::Castle(_) => return false,
        }
        m.role != Role::King
            && m.from.as_square().is_none_or(|from| !pinned.contains(from))
            && self.haver[idx(us)] != Some(m.from)
            && !(m.kind == MoveKind::Capture && self.haver[idx(us.other())] == Some(m.to))
    }

    /// The turns after `naming` (already applied to `self`): moves, drops, throws and
    /// decisions. A move that [`Wickets::plainly_safe`] admits is a turn as it stands;
    /// any other move, drop and throw is tried on one of two working copies made once per
    /// call and restored from `self` by [`Wickets::restore_from`] (a copy of the plain
    /// fields), so a node costs no clone of the position. Allocates nothing but the turns
    /// pushed (and the decision lists of scoring attempts in the dice and deterministic
    /// modes).
    pub(super) fn generate_named(
        &self,
        naming: Option<Loc>,
        strict: bool,
        shortcut: bool,
        out: &mut impl Sink,
    ) {
        let us = self.turn;
        let quiet = match self.king_loc(us).and_then(Loc::as_square) {
            Some(king) if shortcut && !self.attacked(Loc::square(king), us.other()) => {
                Some(self.pinned(king))
            }
            _ => None,
        };
        let mut moved = self.clone();
        let mut thrown = self.clone();
        self.each_pseudo_move(strict, &mut |m| {
            if self.plainly_safe(&m, quiet) {
                out.push(Turn {
                    naming,
                    mv: m,
                    drop: None,
                    throw: None,
                    decision: Vec::new(),
                });
                return;
            }
            moved.restore_from(self);
            if moved.apply_move(&m) {
                for drop in moved.drop_squares(m.to) {
                    moved.loose[idx(us.other())] = Some(drop);
                    moved.finish_generating(naming, &m, Some(drop), &mut thrown, out);
                }
            } else {
                moved.finish_generating(naming, &m, None, &mut thrown, out);
            }
        });
    }

    /// Pushes the turns of a move once its drop is done: without a throw, then with each
    /// throw (and each decision of a scoring attempt), those that leave the king safe.
    /// `scratch` is a working copy (of any position of this game with the same cards)
    /// that each throw is tried on.
    pub(super) fn finish_generating(
        &self,
        naming: Option<Loc>,
        m: &Move,
        drop: Option<Loc>,
        scratch: &mut Wickets,
        out: &mut impl Sink,
    ) {
        let us = self.turn;
        let turn = |throw: Option<Loc>, decision: Vec<Decision>| Turn {
            naming,
            mv: *m,
            drop,
            throw,
            decision,
        };
        if !self.in_check(us) {
            out.push(turn(None, Vec::new()));
        }
        let throwers = self.throwers(m);
        if throwers.is_empty() {
            return;
        }
        for target in self.throw_targets(throwers) {
            let mut safe = |sacrifices: &[Loc], success: bool| {
                scratch.restore_from(self);
                scratch.apply_throw(target, sacrifices, success);
                !scratch.in_check(us)
            };
            if self.is_attempt(target) {
                self.attempts(&mut safe, &mut |decision| {
                    out.push(turn(Some(target), decision));
                });
            } else if safe(&[], false) {
                out.push(turn(Some(target), Vec::new()));
            }
        }
    }

    /// Makes `self` the position `from` again in everything a naming, a move, a drop or a
    /// throw changes: every field but the decision mode, the cards and an awaited roll,
    /// which those never touch (generation stops before a turn when a card or a roll is
    /// awaited). A plain copy, with no allocation, in place of a clone per node.
    pub(super) fn restore_from(&mut self, from: &Wickets) {
        let Wickets {
            board,
            wicket,
            loose,
            haver,
            defender,
            turn,
            castling,
            ep_square,
            halfmove_clock,
            fullmove_number,
            mode: _,
            cards: _,
            awaited_roll: _,
        } = from;
        self.board.clone_from(board);
        self.wicket = *wicket;
        self.loose = *loose;
        self.haver = *haver;
        self.defender = *defender;
        self.turn = *turn;
        self.castling = *castling;
        self.ep_square = *ep_square;
        self.halfmove_clock = *halfmove_clock;
        self.fullmove_number = *fullmove_number;
    }
}
