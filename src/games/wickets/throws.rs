//! Throws and drops: where a captured Ball-haver's Ball may be dropped, who may throw
//! after a move, where a Ball may fly, and landing it.

use super::board::{BISHOP_DIRS, LocSet, ROOK_DIRS};
use super::movegen::{Move, MoveKind};
use super::{Loc, Wickets, idx};
use crate::games::Color;
use crate::games::chess::types::Square;

impl Wickets {
    /// The empty places next to `loc` where a dropped Ball may go: board squares and, by
    /// ruling 11, an empty wicket.
    pub(super) fn drop_squares(&self, loc: Loc) -> LocSet {
        ROOK_DIRS
            .iter()
            .chain(&BISHOP_DIRS)
            .filter_map(|&d| loc.step(d))
            .filter(|&l| self.is_empty(l))
            .collect()
    }

    /// The pieces that may throw after `m` (none after a Ball capture).
    pub(super) fn throwers(&self, m: &Move) -> LocSet {
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
    pub(super) fn throw_targets(&self, throwers: LocSet) -> LocSet {
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

    /// Lands a thrown Ball, deciding a scoring attempt.
    pub(super) fn apply_throw(&mut self, target: Loc, sacrifices: &[Loc], success: bool) {
        let us = self.turn;
        let them = us.other();
        if self.piece_at(target).is_some() {
            self.haver[idx(us)] = Some(target);
            return;
        }
        self.haver[idx(us)] = None;
        self.loose[idx(us)] = Some(target);
        for &loc in sacrifices {
            self.remove_piece(loc);
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
}
