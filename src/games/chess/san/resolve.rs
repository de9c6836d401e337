//! Resolving a token against a position: the legal move it means, or why it means none
//! (the piece that cannot go there and the reason, an ambiguity with the pieces named).

use super::{San, SanMove, write};
use crate::games::chess::Chess;
use crate::games::chess::attacks::{self, tables};
use crate::games::chess::bitboard::Bitboard;
use crate::games::chess::movegen::{CastlingObstacle, Move, MoveKind, TargetList};
use crate::games::chess::types::{CastlingSide, Role, Square};
use crate::games::{Color, IllegalKind, IllegalTurn};

/// Finds the legal move a token means. The fast path asks the generator only for moves
/// of the named pieces to the named square; explaining a failure is slower and only
/// happens on errors.
/// A null move passes the turn; with the king in check it would leave it there.
fn resolve_null(position: &Chess) -> Result<Move, IllegalTurn> {
    let king = position
        .board
        .king_of(position.turn)
        .expect("a valid position has a king a side");
    if position.is_check() {
        return Err(IllegalTurn::new(
            IllegalKind::LeavesKingInCheck,
            format!("a null move would leave the king on {king} in check"),
        ));
    }
    Ok(Move {
        from: king,
        to: king,
        role: Role::King,
        promotion: None,
        kind: MoveKind::Null,
    })
}

#[inline]
pub(crate) fn resolve(position: &Chess, san: &San) -> Result<Move, IllegalTurn> {
    // The fast path, small enough to inline into the replay's loop; the rest (castling,
    // coordinates, en passant, ambiguities, errors and their explanations) apart.
    if let SanMove::Piece {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    } = san.turn
        && let Some(m) = resolve_unique(
            position,
            role,
            piece_origins(position, role, file, rank, to),
            capture,
            to,
            promotion,
        )
    {
        return Ok(m);
    }
    resolve_fully(position, san)
}

/// The squares a piece move's token allows the piece to come from: the pieces of that
/// kind on the origin file and rank it gives. A pawn move without an origin file stays
/// on its file (`e4` is a push).
#[inline]
fn piece_origins(
    position: &Chess,
    role: Role,
    file: Option<u8>,
    rank: Option<u8>,
    to: Square,
) -> Bitboard {
    let file = match (role, file, rank) {
        (Role::Pawn, None, None) => Some(to.file()),
        _ => file,
    };
    let mut from_mask = position.board.by_piece(position.turn, role);
    if let Some(file) = file {
        from_mask &= Bitboard::file(file);
    }
    if let Some(rank) = rank {
        from_mask &= Bitboard::rank(rank);
    }
    from_mask
}

/// [`resolve`] for every token, the fast path included.
#[inline(never)]
fn resolve_fully(position: &Chess, san: &San) -> Result<Move, IllegalTurn> {
    let result = match san.turn {
        SanMove::Null => resolve_null(position),
        SanMove::Castle(side) => resolve_castling(position, side),
        SanMove::Piece {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            let from_mask = piece_origins(position, role, file, rank, to);
            // A pawn move without an origin file stays on its file (`e4` is a push).
            let file = match (role, file, rank) {
                (Role::Pawn, None, None) => Some(to.file()),
                _ => file,
            };
            if let Some(m) = resolve_unique(position, role, from_mask, capture, to, promotion) {
                return Ok(m);
            }
            let mut moves = TargetList::new();
            position.generate(from_mask, Bitboard::from_square(to), &mut moves);
            // `Kg1` is a king step; castling is written `O-O`, or with the full origin in
            // long algebraic (`Ke1-g1`).
            if !(file.is_some() && rank.is_some()) {
                moves.retain(|m| m.kind != MoveKind::Castle);
            }
            choose(position, &moves, promotion, capture, to).unwrap_or_else(|| {
                Err(explain_piece_move(
                    position, san, role, file, rank, to, from_mask,
                ))
            })
        }
        SanMove::Coordinate {
            from,
            to,
            capture,
            promotion,
        } => {
            let to = castling_destination(position, from, to);
            let mut moves = TargetList::new();
            position.generate(
                Bitboard::from_square(from),
                Bitboard::from_square(to),
                &mut moves,
            );
            choose(position, &moves, promotion, capture, to)
                .unwrap_or_else(|| Err(explain_coordinate_move(position, san, from, to, promotion)))
        }
    };
    result.map_err(|error| {
        if position.has_no_legal_move() {
            let why = if position.is_check() {
                format!("{} is checkmated", position.turn.name())
            } else {
                format!("{} is stalemated", position.turn.name())
            };
            IllegalTurn::new(IllegalKind::GameOver, format!("the game is over: {why}"))
        } else {
            error
        }
    })
}

/// The fast path of resolving a piece move, which is what almost every token of a real
/// game is: the pieces on `from_mask` that reach `to` are found by looking back from
/// `to` (a knight on `to` sees the knights that reach it, a push has one origin), and
/// only those are tested for leaving the king in check, by the attacks on the king with
/// the occupancy after the move. Returns the move when exactly one fits the token as
/// [`choose`] would accept it; `None` sends the caller to the full resolution, which
/// also explains a token that does not resolve (no candidate, an ambiguity, en passant,
/// castling, a missing promotion piece, a capture sign without a capture).
#[inline]
pub(super) fn resolve_unique(
    position: &Chess,
    role: Role,
    from_mask: Bitboard,
    capture: bool,
    to: Square,
    promotion: Option<Role>,
) -> Option<Move> {
    let b = &position.board;
    let us = position.turn;
    let them = us.other();
    let ours = b.by_color(us);
    let theirs = b.by_color(them);
    if ours.contains(to) {
        return None;
    }
    let occupied = ours | theirs;
    let kind = if theirs.contains(to) {
        MoveKind::Capture
    } else {
        MoveKind::Normal
    };
    if capture && kind != MoveKind::Capture {
        return None;
    }
    let t = tables();
    let candidates = match role {
        Role::Pawn => {
            // Every pawn move to the last rank promotes, and only those do.
            if promotion.is_some() != (to.relative(us).rank() == 7) {
                return None;
            }
            if kind == MoveKind::Capture {
                attacks::pawn(them, to) & from_mask
            } else if position.ep_square == Some(to) {
                return None;
            } else {
                let back: i8 = if us == Color::White { -8 } else { 8 };
                let one = to.offset(back)?;
                if occupied.contains(one) {
                    Bitboard::from_square(one) & from_mask
                } else if to.relative(us).rank() == 3 {
                    Bitboard::from_square(one.offset(back)?) & from_mask
                } else {
                    Bitboard::EMPTY
                }
            }
        }
        _ if promotion.is_some() => return None,
        Role::Knight => attacks::knight(to) & from_mask,
        Role::Bishop => t.bishop(to, occupied) & from_mask,
        Role::Rook => t.rook(to, occupied) & from_mask,
        Role::Queen => t.queen(to, occupied) & from_mask,
        Role::King => attacks::king(to) & from_mask,
    };
    let king = position.our_king();
    let mut found = None;
    for from in candidates {
        let safe = if role == Role::King {
            position
                .attackers_to(to, them, occupied.without(from))
                .is_empty()
        } else {
            // A piece taken on `to` attacks nothing any more.
            position
                .attacked_after(king, occupied.without(from).with(to), to)
                .is_empty()
        };
        if safe {
            if found.is_some() {
                return None;
            }
            found = Some(from);
        }
    }
    Some(Move {
        from: found?,
        to,
        role,
        promotion,
        kind,
    })
}

/// A king on its home square moving onto its own rook (the Chess960 way of writing
/// castling, which some programs use for orthodox chess too) means castling.
fn castling_destination(position: &Chess, from: Square, to: Square) -> Square {
    let us = position.turn;
    let home = Square::from_coords(4, 0).relative(us);
    if from == home
        && position.board.king_of(us) == Some(from)
        && position.board.by_piece(us, Role::Rook).contains(to)
        && to.rank() == from.rank()
    {
        let side = if to.file() > from.file() {
            CastlingSide::KingSide
        } else {
            CastlingSide::QueenSide
        };
        return Square::from_coords(side.king_to_file(), from.rank());
    }
    to
}

/// Picks the one move with the given promotion among the candidates: `Some(Ok)` when
/// exactly one fits, `Some(Err)` for an ambiguity, a missing promotion piece or a
/// spurious capture sign, `None` when nothing fits (the caller explains why).
pub(super) fn choose(
    position: &Chess,
    moves: &TargetList,
    promotion: Option<Role>,
    capture: bool,
    to: Square,
) -> Option<Result<Move, IllegalTurn>> {
    let mut fitting = moves.iter().filter(|m| m.promotion == promotion);
    let Some(&first) = fitting.next() else {
        if promotion.is_none() && moves.iter().any(|m| m.promotion.is_some()) {
            return Some(Err(IllegalTurn::new(
                IllegalKind::Other,
                format!("{to} needs a promotion piece"),
            )));
        }
        return None;
    };
    if fitting.next().is_some() {
        let names: Vec<String> = moves
            .iter()
            .filter(|m| m.promotion == promotion)
            .map(|m| write(position, m))
            .collect();
        let message = format!("ambiguous: {}", join_alternatives(&names));
        return Some(Err(IllegalTurn::new(
            IllegalKind::Ambiguous(names),
            message,
        )));
    }
    if capture && !first.is_capture() {
        return Some(Err(IllegalTurn::new(
            IllegalKind::Other,
            format!("no capture on {to}"),
        )));
    }
    Some(Ok(first))
}

/// `a`, `a or b`, `a, b or c`.
fn join_alternatives(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn resolve_castling(position: &Chess, side: CastlingSide) -> Result<Move, IllegalTurn> {
    let us = position.turn;
    let king = position.our_king();
    let home = Square::from_coords(4, 0).relative(us);
    let rook_home = Square::from_coords(side.rook_file(), home.rank());
    let fail = |kind: IllegalKind, why: String| {
        Err(IllegalTurn::new(
            kind,
            format!("cannot castle {}: {why}", side.name()),
        ))
    };
    if king != home {
        return fail(IllegalKind::Other, "the king has moved".to_owned());
    }
    match position.castling_obstacle(king, side) {
        None => Ok(Move {
            from: king,
            to: Square::from_coords(side.king_to_file(), home.rank()),
            role: Role::King,
            promotion: None,
            kind: MoveKind::Castle,
        }),
        Some(CastlingObstacle::NoRight) => {
            if position.board.by_piece(us, Role::Rook).contains(rook_home) {
                fail(
                    IllegalKind::Other,
                    format!("the right was lost (the king or the rook on {rook_home} has moved)"),
                )
            } else {
                fail(
                    IllegalKind::Other,
                    format!("the rook on {rook_home} has moved"),
                )
            }
        }
        Some(CastlingObstacle::Occupied(square)) => {
            fail(IllegalKind::Blocked, format!("{square} is occupied"))
        }
        Some(CastlingObstacle::InCheck) => fail(
            IllegalKind::LeavesKingInCheck,
            "the king is in check".to_owned(),
        ),
        Some(CastlingObstacle::Attacked(square)) => {
            let to = Square::from_coords(side.king_to_file(), home.rank());
            let why = if square == to {
                format!("the king would land in check on {square}")
            } else {
                format!("the king would pass through check on {square}")
            };
            fail(IllegalKind::LeavesKingInCheck, why)
        }
    }
}

/// Whether a piece of this kind on `from` could reach `to` on an otherwise empty board
/// (for a pawn: a push from where pushes start, or a diagonal step forward).
fn pattern_reaches(position: &Chess, role: Role, from: Square, to: Square) -> bool {
    let us = position.turn;
    let t = tables();
    match role {
        Role::Pawn => {
            if attacks::pawn(us, from).contains(to) {
                return true;
            }
            let forward: i8 = if us == Color::White { 8 } else { -8 };
            from.offset(forward) == Some(to)
                || (from.relative(us).rank() == 1 && from.offset(2 * forward) == Some(to))
        }
        Role::Knight => attacks::knight(from).contains(to),
        Role::Bishop => t.bishop(from, Bitboard::EMPTY).contains(to),
        Role::Rook => t.rook(from, Bitboard::EMPTY).contains(to),
        Role::Queen => t.queen(from, Bitboard::EMPTY).contains(to),
        Role::King => attacks::king(from).contains(to),
    }
}

/// Why a piece that could reach `to` in principle cannot go there now, with a rank for
/// choosing among several pieces: the lower, the nearer the move came to being legal.
fn candidate_problem(
    position: &Chess,
    san: &San,
    role: Role,
    from: Square,
    to: Square,
) -> (u8, IllegalTurn) {
    let us = position.turn;
    let b = &position.board;
    let occupied = b.occupied();
    let describe = |square: Square| -> String {
        b.piece_at(square).map_or_else(
            || "a piece".to_owned(),
            |piece| format!("the {} on {square}", piece.role.name()),
        )
    };
    if b.by_color(us).contains(to) {
        let own = b.role_at(to).map_or("piece", Role::name);
        return (
            3,
            IllegalTurn::new(
                IllegalKind::Blocked,
                format!(
                    "{to} is occupied by a {} {own}",
                    us.name().to_ascii_lowercase()
                ),
            ),
        );
    }
    let mover = format!("the {} on {from}", role.name());
    if role == Role::Pawn {
        if from.file() == to.file() {
            let path = tables().between(from, to).with(to);
            if let Some(blocker) = nearest(path & occupied, from) {
                return (
                    2,
                    IllegalTurn::new(
                        IllegalKind::Blocked,
                        format!("{mover} is blocked by {}", describe(blocker)),
                    ),
                );
            }
        } else if !b.by_color(us.other()).contains(to) && position.ep_square != Some(to) {
            return (
                2,
                IllegalTurn::new(IllegalKind::Other, format!("no piece to capture on {to}")),
            );
        }
    } else if matches!(role, Role::Bishop | Role::Rook | Role::Queen)
        && let Some(blocker) = nearest(tables().between(from, to) & occupied, from)
    {
        return (
            2,
            IllegalTurn::new(
                IllegalKind::Blocked,
                format!("{mover} is blocked by {}", describe(blocker)),
            ),
        );
    }
    let king = position.our_king();
    let message = if role == Role::King {
        format!("the king cannot move into check on {to}")
    } else {
        let written = San {
            turn: san.turn,
            marker: super::CheckMarker::None,
        };
        format!("{written} would leave the king on {king} in check")
    };
    (1, IllegalTurn::new(IllegalKind::LeavesKingInCheck, message))
}

/// The square of `squares` nearest `origin` on a line through it: the first piece met.
fn nearest(squares: Bitboard, origin: Square) -> Option<Square> {
    squares.min_by_key(|square| square.index().abs_diff(origin.index()))
}

fn explain_piece_move(
    position: &Chess,
    san: &San,
    role: Role,
    file: Option<u8>,
    rank: Option<u8>,
    to: Square,
    candidates: Bitboard,
) -> IllegalTurn {
    let reaching: Vec<Square> = candidates
        .filter(|&from| pattern_reaches(position, role, from, to))
        .collect();
    if reaching.is_empty() {
        let origin = match (role, file, rank) {
            (_, Some(file), Some(rank)) => format!(" on {}", Square::from_coords(file, rank)),
            // A pawn's file is implied by the destination for a push; say it only when
            // the token gave it.
            (Role::Pawn, Some(file), None) if file == to.file() => String::new(),
            (_, Some(file), None) => format!(" on the {}-file", char::from(b'a' + file)),
            (_, None, Some(rank)) => format!(" on rank {}", rank + 1),
            _ => String::new(),
        };
        return IllegalTurn::new(
            IllegalKind::NoSuchPiece,
            format!("no {}{origin} can move to {to}", role.name()),
        );
    }
    reaching
        .into_iter()
        .map(|from| candidate_problem(position, san, role, from, to))
        .min_by_key(|(rank, _)| *rank)
        .map(|(_, problem)| problem)
        .expect("not empty")
}

fn explain_coordinate_move(
    position: &Chess,
    san: &San,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> IllegalTurn {
    let us = position.turn;
    let side = us.name().to_ascii_lowercase();
    let Some(piece) = position
        .board
        .piece_at(from)
        .filter(|piece| piece.color == us)
    else {
        return IllegalTurn::new(
            IllegalKind::NoSuchPiece,
            format!("no {side} piece on {from}"),
        );
    };
    let role = piece.role;
    if role == Role::King && from.rank() == to.rank() && from.file().abs_diff(to.file()) == 2 {
        let side = if to.file() > from.file() {
            CastlingSide::KingSide
        } else {
            CastlingSide::QueenSide
        };
        if let Err(error) = resolve_castling(position, side) {
            return error;
        }
    }
    if promotion.is_some() && role != Role::Pawn {
        return IllegalTurn::new(
            IllegalKind::Other,
            format!(
                "only a pawn can promote, and the piece on {from} is a {}",
                role.name()
            ),
        );
    }
    if !pattern_reaches(position, role, from, to) {
        return IllegalTurn::new(
            IllegalKind::NoSuchPiece,
            format!("the {} on {from} cannot move to {to}", role.name()),
        );
    }
    candidate_problem(position, san, role, from, to).1
}
