//! Foreign moves as operations on a [`Snapshot`], the same for every format and game:
//! applying them (what a reader does before matching) and deriving them from two
//! snapshots (what a writer does).

use crate::games::{Color, Man, PieceKind, Snapshot, Stacking};

/// One operation on the board, as Zillions and Game Courier write them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A piece goes from one place to another. `piece` names it (a Zillions name or a
    /// Game Courier label) or is `None` for "whatever is on top". With `capture`
    /// everything on `to` is removed first; on a game whose places hold one piece, that
    /// happens anyway.
    Move {
        /// The piece's name or label, if given.
        piece: Option<String>,
        /// Where it starts.
        from: String,
        /// Where it ends.
        to: String,
        /// Whether the move is written as a capture (`x`).
        capture: bool,
    },
    /// Everything on a place is removed.
    Remove {
        /// The place.
        at: String,
    },
    /// A new piece is put on a place (on top of a stack; replacing on a single place).
    Drop {
        /// Its side, if the format says it (otherwise the side to move).
        color: Option<Color>,
        /// Its name or label.
        piece: String,
        /// Where it goes.
        at: String,
    },
    /// The top piece on a place becomes another kind, or changes side when `to` names a
    /// side. Without a place, the last place a piece moved or was dropped to.
    Change {
        /// The new kind's name or label, or `White`/`Black`.
        to: String,
        /// The place, if given.
        at: Option<String>,
    },
}

/// The kind of piece a name or label means in a game, and the side a label's case
/// gives (`p` is Black's), matched case-insensitively on names.
pub fn kind_named(kinds: &[PieceKind], text: &str) -> Option<(PieceKind, Option<Color>)> {
    let squeezed = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let wanted = squeezed(text);
    if let Some(kind) = kinds.iter().find(|kind| kind.label == wanted) {
        return Some((*kind, Some(Color::White)));
    }
    if let Some(kind) = kinds
        .iter()
        .find(|kind| kind.label.to_ascii_lowercase() == wanted && kind.label != wanted)
    {
        return Some((*kind, Some(Color::Black)));
    }
    kinds
        .iter()
        .find(|kind| kind.name.eq_ignore_ascii_case(&wanted))
        .map(|kind| (*kind, None))
}

/// A side named in words (`White`, `Black`, either case).
pub fn color_named(text: &str) -> Option<Color> {
    [Color::White, Color::Black]
        .into_iter()
        .find(|color| color.name().eq_ignore_ascii_case(text.trim()))
}

/// Applies operations in order to a snapshot, as a foreign program would, with
/// `mover` as the side of drops that do not name one. The error says, in words, which
/// operation cannot be made.
pub fn apply(
    snapshot: &mut Snapshot,
    kinds: &[PieceKind],
    mover: Color,
    ops: &[Op],
) -> Result<(), String> {
    let mut last: Option<usize> = None;
    for op in ops {
        match op {
            Op::Move {
                piece,
                from,
                to,
                capture,
            } => {
                let from_index = place(snapshot, from)?;
                let to_index = place(snapshot, to)?;
                let pieces = &snapshot.places[from_index].pieces;
                let found = match piece {
                    None => pieces.len().checked_sub(1),
                    Some(name) => {
                        let (kind, color) = kind_named(kinds, name)
                            .ok_or_else(|| format!("there is no piece called {name} here"))?;
                        // Without a side, the mover's own piece first.
                        let fits = |man: &Man, side: Option<Color>| {
                            man.kind == kind && side.is_none_or(|side| man.color == side)
                        };
                        pieces
                            .iter()
                            .rposition(|man| fits(man, color.or(Some(mover))))
                            .or_else(|| pieces.iter().rposition(|man| fits(man, color)))
                    }
                };
                let Some(found) = found else {
                    return Err(match piece {
                        Some(name) => format!("there is no {name} on {from}"),
                        None => format!("there is no piece on {from}"),
                    });
                };
                let man = snapshot.places[from_index].pieces.remove(found);
                if *capture || snapshot.stacking == Stacking::Single {
                    snapshot.places[to_index].pieces.clear();
                }
                snapshot.places[to_index].pieces.push(man);
                last = Some(to_index);
            }
            Op::Remove { at } => {
                let index = place(snapshot, at)?;
                snapshot.places[index].pieces.clear();
            }
            Op::Drop { color, piece, at } => {
                let index = place(snapshot, at)?;
                let (kind, label_color) = kind_named(kinds, piece)
                    .ok_or_else(|| format!("there is no piece called {piece} here"))?;
                let color = color.or(label_color).unwrap_or(mover);
                if snapshot.stacking == Stacking::Single {
                    snapshot.places[index].pieces.clear();
                }
                snapshot.places[index].pieces.push(Man { color, kind });
                last = Some(index);
            }
            Op::Change { to, at } => {
                let index = match at {
                    Some(at) => place(snapshot, at)?,
                    None => last.ok_or_else(|| format!("\"= {to}\" follows no move"))?,
                };
                let name = snapshot.places[index].name.clone();
                let top = snapshot.places[index]
                    .pieces
                    .last_mut()
                    .ok_or_else(|| format!("there is no piece on {name} to change"))?;
                if let Some(color) = color_named(to) {
                    top.color = color;
                } else {
                    let (kind, _) = kind_named(kinds, to)
                        .ok_or_else(|| format!("there is no piece called {to} here"))?;
                    top.kind = kind;
                }
                last = Some(index);
            }
        }
    }
    Ok(())
}

fn place(snapshot: &Snapshot, name: &str) -> Result<usize, String> {
    snapshot
        .find(name)
        .ok_or_else(|| format!("there is no place {name} on this board"))
}

/// Which operations a format can write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Moves, removals, drops and changes of kind or side (Zillions).
    WithChange,
    /// Moves, removals and drops only (Game Courier): a change is written as a removal
    /// and a drop.
    WithoutChange,
}

impl Dialect {
    /// How the dialect names a piece: by its Zillions name or its Game Courier label.
    fn word(self, man: Man) -> String {
        match self {
            Dialect::WithChange => man.kind.name.to_owned(),
            Dialect::WithoutChange => man.label(),
        }
    }
}

/// The operations that turn `before` into `after` when applied in order (see [`apply`]),
/// in the most readable form: pieces that vanished from one place and appeared on
/// another are moves (with a change of kind for a promotion), pieces that vanished are
/// removals, new pieces are drops. Whatever the readable form misses is put right at
/// the end by clearing the place and dropping its pieces, so the result is always exact.
#[must_use]
pub fn derive(
    before: &Snapshot,
    after: &Snapshot,
    kinds: &[PieceKind],
    mover: Color,
    dialect: Dialect,
) -> Vec<Op> {
    let count = before.places.len().min(after.places.len());
    // What vanished from and appeared on each place (as multisets for unordered places,
    // above the common bottom of the stacks otherwise).
    let mut vanished: Vec<Vec<Man>> = vec![Vec::new(); count];
    let mut appeared: Vec<Vec<Man>> = vec![Vec::new(); count];
    for index in 0..count {
        let (old, new) = (&before.places[index].pieces, &after.places[index].pieces);
        if before.stacking == Stacking::Unordered {
            let mut new_left = new.clone();
            for man in old {
                match new_left.iter().position(|other| other == man) {
                    Some(at) => {
                        new_left.remove(at);
                    }
                    None => vanished[index].push(*man),
                }
            }
            appeared[index] = new_left;
        } else {
            let common = old.iter().zip(new).take_while(|(a, b)| a == b).count();
            vanished[index] = old[common..].iter().rev().copied().collect();
            appeared[index] = new[common..].to_vec();
        }
    }
    // What stays on each place from before (nothing means a move onto it may clear it).
    let kept: Vec<usize> = (0..count)
        .map(|index| after.places[index].pieces.len() - appeared[index].len())
        .collect();
    // Pair pieces that vanished with pieces that appeared elsewhere: the same piece
    // first, then a piece of the same side that changed kind (a promotion).
    let mut moves: Vec<(usize, usize, Man, Man)> = Vec::new();
    for same_kind in [true, false] {
        #[allow(clippy::needless_range_loop)] // `to` indexes two vectors and is stored
        for to in 0..count {
            let mut at = 0;
            while at < appeared[to].len() {
                let man = appeared[to][at];
                let source = (0..count).filter(|&from| from != to).find_map(|from| {
                    vanished[from]
                        .iter()
                        .position(|other| {
                            if same_kind {
                                *other == man
                            } else {
                                other.color == man.color
                            }
                        })
                        .map(|position| (from, position))
                });
                let Some((from, position)) = source else {
                    at += 1;
                    continue;
                };
                let moved = vanished[from].remove(position);
                appeared[to].remove(at);
                moves.push((from, to, moved, man));
            }
        }
    }
    // A piece that changed kind where it stood while a piece of the new kind passed on
    // (a Cascudo pawn displaced at the end of a chain promotes to what displaced it):
    // the passing piece stops there, and the changed piece is the one that moves on.
    for place in 0..count {
        while let (Some(&gone), Some(&came)) = (vanished[place].first(), appeared[place].first()) {
            let Some(at) = moves.iter().position(|&(from, to, moved, man)| {
                from != place && to != place && moved == came && man.color == gone.color
            }) else {
                break;
            };
            let (from, to, moved, man) = moves[at];
            moves[at] = (from, place, moved, came);
            moves.push((place, to, gone, man));
            vanished[place].remove(0);
            appeared[place].remove(0);
        }
    }
    // A place whose pieces are all taken and that nothing stays on is cleared by the
    // first move onto it (`x`); moves out of such places go first.
    let captured = |index: usize| !vanished[index].is_empty() && kept[index] == 0;
    moves.sort_by_key(|&(from, _, _, _)| !captured(from) || vanished[from].is_empty());
    let moves = in_playable_order(moves);
    let mut ops = Vec::new();
    let mut cleared = vec![false; count];
    for &(from, to, moved, man) in &moves {
        let capture = captured(to) && !cleared[to];
        cleared[to] |= capture;
        // Game Courier has no capturing move: where a move onto a piece would not
        // replace it, the place is cleared first.
        let explicit = capture && dialect == Dialect::WithoutChange;
        if explicit && before.stacking != Stacking::Single {
            ops.push(Op::Remove {
                at: before.places[to].name.clone(),
            });
        }
        ops.push(Op::Move {
            piece: Some(dialect.word(moved)),
            from: before.places[from].name.clone(),
            to: before.places[to].name.clone(),
            capture: capture && !explicit,
        });
        if moved.kind != man.kind {
            if dialect == Dialect::WithChange {
                ops.push(Op::Change {
                    to: man.kind.name.to_owned(),
                    at: None,
                });
            } else {
                ops.push(Op::Drop {
                    color: Some(man.color),
                    piece: dialect.word(man),
                    at: before.places[to].name.clone(),
                });
            }
        }
    }
    // Removals before drops, so that no drop is followed by a removal (which would
    // read as a capturing move in Zillions).
    for index in 0..count {
        if !vanished[index].is_empty() && !cleared[index] && kept[index] == 0 {
            ops.push(Op::Remove {
                at: before.places[index].name.clone(),
            });
            cleared[index] = true;
        }
    }
    for (place, men) in before.places.iter().zip(&appeared) {
        for man in men {
            ops.push(Op::Drop {
                color: Some(man.color),
                piece: dialect.word(*man),
                at: place.name.clone(),
            });
        }
    }
    // Put right what the readable form misses (a stone captured from a square that
    // keeps others, a stack whose order changed).
    let mut check = before.clone();
    if apply(&mut check, kinds, mover, &ops).is_err() {
        ops.clear();
        check = before.clone();
    }
    rebuild(&check.normalized(), after, dialect, &mut ops);
    ops
}

/// Orders moves (from, to, piece before, piece after) so that a move out of a place goes
/// before a move into it: a chain of moves (a cascade, a piece moving on from where
/// another arrives) then reads in an order the other program can play. When identical
/// pieces make the chain a cycle, two of them trade origins (which leaves the same
/// board); a cycle that no trade breaks keeps the first move left first, and `derive`
/// puts right what that misses.
fn in_playable_order(moves: Vec<(usize, usize, Man, Man)>) -> Vec<(usize, usize, Man, Man)> {
    fn order(mut moves: Vec<(usize, usize, Man, Man)>) -> (Vec<(usize, usize, Man, Man)>, bool) {
        let mut ordered = Vec::with_capacity(moves.len());
        let mut acyclic = true;
        while !moves.is_empty() {
            let free = (0..moves.len()).find(|&at| {
                !moves
                    .iter()
                    .enumerate()
                    .any(|(other, &(from, ..))| other != at && from == moves[at].1)
            });
            acyclic &= free.is_some();
            ordered.push(moves.remove(free.unwrap_or(0)));
        }
        (ordered, acyclic)
    }
    let (ordered, acyclic) = order(moves.clone());
    if acyclic {
        return ordered;
    }
    for first in 0..moves.len() {
        for second in first + 1..moves.len() {
            let (a, b) = (moves[first], moves[second]);
            if (a.2, a.3) != (b.2, b.3) || a.0 == b.1 || b.0 == a.1 {
                continue;
            }
            let mut traded = moves.clone();
            traded[first].0 = b.0;
            traded[second].0 = a.0;
            if let (ordered, true) = order(traded) {
                return ordered;
            }
        }
    }
    ordered
}

/// The edits that turn the standard start into a setup: each place that differs is
/// cleared (when it holds anything) and its pieces dropped, bottom to top.
#[must_use]
pub fn edits(before: &Snapshot, after: &Snapshot, dialect: Dialect) -> Vec<Op> {
    let mut ops = Vec::new();
    rebuild(&before.clone().normalized(), after, dialect, &mut ops);
    ops
}

/// Appends what makes every place of `current` that differs from `after` like it:
/// removals first (so that no drop is followed by a removal), then drops.
fn rebuild(current: &Snapshot, after: &Snapshot, dialect: Dialect, ops: &mut Vec<Op>) {
    let wrong: Vec<usize> = (0..current.places.len().min(after.places.len()))
        .filter(|&index| current.places[index] != after.places[index])
        .collect();
    for &index in &wrong {
        if !current.places[index].pieces.is_empty() {
            ops.push(Op::Remove {
                at: after.places[index].name.clone(),
            });
        }
    }
    for &index in &wrong {
        for man in &after.places[index].pieces {
            ops.push(Op::Drop {
                color: Some(man.color),
                piece: dialect.word(*man),
                at: after.places[index].name.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Chess, Game};

    fn chess_after(moves: &[&str]) -> Chess {
        let mut position = Chess::start();
        for token in moves {
            let turn = position
                .resolve(&Chess::parse_turn(token).expect("a token"))
                .expect("legal");
            position.play(&turn);
        }
        position
    }

    #[test]
    fn a_capture_is_a_move_written_with_x() {
        let before = chess_after(&["e4", "d5"]);
        let after = chess_after(&["e4", "d5", "exd5"]);
        let ops = derive(
            &before.snapshot().expect("a board"),
            &after.snapshot().expect("a board"),
            Chess::PIECE_KINDS,
            Color::White,
            Dialect::WithChange,
        );
        assert_eq!(
            ops,
            vec![Op::Move {
                piece: Some("Pawn".to_owned()),
                from: "e4".to_owned(),
                to: "d5".to_owned(),
                capture: true,
            }]
        );
    }

    #[test]
    fn castling_is_two_moves_and_applies_back() {
        let before = chess_after(&["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"]);
        let after = chess_after(&["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O"]);
        let (old, new) = (
            before.snapshot().expect("a board"),
            after.snapshot().expect("a board"),
        );
        let ops = derive(
            &old,
            &new,
            Chess::PIECE_KINDS,
            Color::White,
            Dialect::WithoutChange,
        );
        assert_eq!(ops.len(), 2);
        let mut replayed = old.clone();
        apply(&mut replayed, Chess::PIECE_KINDS, Color::White, &ops).expect("applies");
        assert_eq!(replayed, new);
    }

    /// Ordered stacks (no game on this branch has them yet): a sowing that lays the
    /// pieces of a stack one per place, onto other stacks, and a capture from the top of
    /// a stack, derive and apply back exactly in both dialects.
    #[test]
    fn ordered_stacks_derive_and_apply_back() {
        const KINDS: [PieceKind; 2] = [
            PieceKind {
                name: "Stone",
                label: "S",
            },
            PieceKind {
                name: "Tower",
                label: "T",
            },
        ];
        let man = |color, kind: usize| Man {
            color,
            kind: KINDS[kind],
        };
        let (w, b) = (Color::White, Color::Black);
        let board = |stacks: [Vec<Man>; 4]| {
            let mut snapshot = Snapshot::new(
                Stacking::Ordered,
                ["a1", "a2", "a3", "a4"].map(str::to_owned),
            );
            for (place, stack) in snapshot.places.iter_mut().zip(stacks) {
                place.pieces = stack;
            }
            snapshot
        };
        let cases = [
            (
                board([
                    vec![man(w, 0), man(b, 1), man(w, 0)],
                    vec![man(b, 0)],
                    vec![],
                    vec![man(w, 1)],
                ]),
                board([
                    vec![],
                    vec![man(b, 0), man(w, 0)],
                    vec![man(b, 1)],
                    vec![man(w, 1), man(w, 0)],
                ]),
            ),
            (
                board([vec![man(w, 0), man(b, 0)], vec![], vec![], vec![]]),
                board([vec![man(w, 0)], vec![], vec![], vec![]]),
            ),
            (
                board([vec![man(w, 0), man(b, 0)], vec![man(b, 1)], vec![], vec![]]),
                board([vec![man(b, 0), man(w, 0)], vec![man(b, 1)], vec![], vec![]]),
            ),
        ];
        for (before, after) in cases {
            for dialect in [Dialect::WithChange, Dialect::WithoutChange] {
                let ops = derive(&before, &after, &KINDS, Color::White, dialect);
                let mut replayed = before.clone();
                apply(&mut replayed, &KINDS, Color::White, &ops).expect("applies");
                assert_eq!(replayed, after, "{ops:?}");
            }
        }
    }

    #[test]
    fn a_move_from_an_empty_place_says_so() {
        let mut snapshot = Chess::start().snapshot().expect("a board");
        let error = apply(
            &mut snapshot,
            Chess::PIECE_KINDS,
            Color::White,
            &[Op::Move {
                piece: None,
                from: "e4".to_owned(),
                to: "e5".to_owned(),
                capture: false,
            }],
        )
        .expect_err("nothing on e4");
        assert_eq!(error, "there is no piece on e4");
    }
}
