//! Turn tokens: Standard Algebraic Notation read leniently (with long algebraic and UCI
//! coordinates), resolved against a position, and written canonically.
//!
//! The grammar (also in `notation/chess.md`):
//!
//! ```text
//! turn       = ( castling | move ) [ "e.p." ] [ marker ]
//! castling   = O "-" O [ "-" O ]                 ; O = "O" | "0"
//! move       = [ piece ] [ file ] [ rank ] [ "x" | ":" | "-" ] square [ promotion ]
//! piece      = "K" | "Q" | "R" | "B" | "N" | "P"
//! square     = file rank
//! promotion  = [ "=" ] letter | "(" letter ")"   ; letter = Q R B N, either case
//! marker     = "+" | "++" | "#"
//! ```

use std::fmt;

use super::Chess;
use super::attacks::{self, tables};
use super::bitboard::Bitboard;
use super::movegen::{CastlingObstacle, Move, MoveKind, TargetList};
use super::types::{CastlingSide, Role, Square};
use crate::games::{Color, IllegalKind, IllegalTurn, TurnSyntaxError};

/// The check or mate claim written after a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CheckMarker {
    /// No marker.
    #[default]
    None,
    /// `+` (or the old `++`): the move gives check.
    Check,
    /// `#`: the move mates.
    Mate,
}

/// What a turn token says to do, without its marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SanMove {
    /// A move named by the piece letter (none for a pawn), an optional origin file and/or
    /// rank, and the destination: `Nbd2`, `exd5`, `e8=Q`, also long algebraic `Ng1-f3`.
    Piece {
        /// The kind of piece moving.
        role: Role,
        /// The origin file, 0 = a, when given.
        file: Option<u8>,
        /// The origin rank, 0 = the first, when given.
        rank: Option<u8>,
        /// Whether the token says the move captures.
        capture: bool,
        /// The destination.
        to: Square,
        /// The promotion piece, when given.
        promotion: Option<Role>,
    },
    /// Two squares and no piece letter: UCI `e2e4` or long algebraic `e2-e4`. The piece
    /// is whatever stands on `from`; a king moving two squares (or onto its own rook)
    /// castles.
    Coordinate {
        /// The origin.
        from: Square,
        /// The destination.
        to: Square,
        /// Whether the token says the move captures (`e4xd5`).
        capture: bool,
        /// The promotion piece, when given.
        promotion: Option<Role>,
    },
    /// `O-O` or `O-O-O`.
    Castle(CastlingSide),
    /// A null move, `--` (also read: `Z0`, `0000`, `@@@@`): the side to move passes.
    /// Analysis records use it; it is not a FIDE move, so it is never generated, but a
    /// record may contain it when the side to move is not in check.
    Null,
}

/// A turn token read without a board. `Display` writes it back in one canonical spelling
/// (`e8=Q`, `O-O`, `e2-e4`), which parses to the same value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct San {
    /// The move.
    pub turn: SanMove,
    /// The check or mate claim.
    pub marker: CheckMarker,
}

fn syntax_error(offset: usize, message: impl Into<String>) -> TurnSyntaxError {
    TurnSyntaxError::new(offset, message)
}

/// The character at a byte offset, for messages (the offset is always on a boundary,
/// since the parser only steps over ASCII).
fn char_at(token: &str, offset: usize) -> char {
    token[offset..].chars().next().unwrap_or(' ')
}

fn file_at(bytes: &[u8], i: usize) -> Option<u8> {
    match bytes.get(i) {
        Some(&c @ b'a'..=b'h') => Some(c - b'a'),
        _ => None,
    }
}

fn rank_at(bytes: &[u8], i: usize) -> Option<u8> {
    match bytes.get(i) {
        Some(&c @ b'1'..=b'8') => Some(c - b'1'),
        _ => None,
    }
}

impl San {
    /// Reads one turn token (without move number or `!`/`?` glyphs). The plain shapes
    /// inline into the caller (the replay's loop); the rest of the grammar does not.
    #[inline]
    pub fn parse(token: &str) -> Result<San, TurnSyntaxError> {
        let bytes = token.as_bytes();
        if let Some(san) = parse_plain(bytes) {
            return Ok(san);
        }
        San::parse_full(token)
    }

    /// [`San::parse`] by the whole grammar, for every spelling.
    #[inline(never)]
    fn parse_full(token: &str) -> Result<San, TurnSyntaxError> {
        let bytes = token.as_bytes();
        if bytes.is_empty() {
            return Err(syntax_error(0, "empty turn"));
        }
        // null = "--" | "Z0" | "0000" | "@@@@"
        let null_length = [&b"--"[..], b"Z0", b"0000", b"@@@@"]
            .iter()
            .find(|null| bytes.starts_with(null))
            .map(|null| null.len());
        let (turn, mut i) = if let Some(length) = null_length {
            (SanMove::Null, length)
        } else if matches!(bytes[0], b'O' | b'0') {
            parse_castling(bytes)?
        } else {
            parse_move(token)?
        };
        if bytes[i..].starts_with(b"e.p.") {
            if !matches!(
                turn,
                SanMove::Piece {
                    role: Role::Pawn,
                    ..
                } | SanMove::Coordinate { .. }
            ) {
                return Err(syntax_error(i, "only a pawn captures en passant"));
            }
            i += 4;
        }
        // marker = "+" | "++" | "#"
        let marker = match &bytes[i..] {
            [b'+', b'+', ..] => {
                i += 2;
                CheckMarker::Check
            }
            [b'+', ..] => {
                i += 1;
                CheckMarker::Check
            }
            [b'#', ..] => {
                i += 1;
                CheckMarker::Mate
            }
            _ => CheckMarker::None,
        };
        if i < bytes.len() {
            return Err(syntax_error(
                i,
                format!("unexpected character '{}'", char_at(token, i)),
            ));
        }
        Ok(San { turn, marker })
    }
}

/// The shapes of almost every token of a real game, read in one step: an optional piece
/// letter, an optional origin file or rank, an optional `x`, the destination, an optional
/// `=` promotion and marker (`e4`, `exd5`, `Nbd7`, `R1xe2`, `e8=Q+`, `O-O-O#`). The same
/// value [`San::parse`] gives; `None` for anything else, which the full grammar reads.
/// One match on the token's shape, by its length first.
#[inline]
fn parse_plain(bytes: &[u8]) -> Option<San> {
    let (body, marker) = match bytes {
        [body @ .., b'+', b'+'] => (body, CheckMarker::Check),
        [body @ .., b'+'] => (body, CheckMarker::Check),
        [body @ .., b'#'] => (body, CheckMarker::Mate),
        _ => (bytes, CheckMarker::None),
    };
    let turn = match *body {
        [file, rank] => plain_pawn(None, false, file, rank, None)?,
        [b'O', b'-', b'O'] => SanMove::Castle(CastlingSide::KingSide),
        [first, file, rank] => match piece_letter(first) {
            Some(role) => plain_piece(role, None, false, file, rank)?,
            None => plain_pawn(Some(first), false, file, rank, None)?,
        },
        [first, b'x', file, rank] => match piece_letter(first) {
            Some(role) => plain_piece(role, None, true, file, rank)?,
            None => plain_pawn(Some(first), true, file, rank, None)?,
        },
        [file, rank, b'=', letter] => plain_pawn(None, false, file, rank, Some(letter))?,
        [first, from, file, rank] => {
            plain_piece(piece_letter(first)?, Some(from), false, file, rank)?
        }
        [b'O', b'-', b'O', b'-', b'O'] => SanMove::Castle(CastlingSide::QueenSide),
        [first, from, b'x', file, rank] => {
            plain_piece(piece_letter(first)?, Some(from), true, file, rank)?
        }
        [first, file, rank, b'=', letter] => {
            plain_pawn(Some(first), false, file, rank, Some(letter))?
        }
        [first, b'x', file, rank, b'=', letter] => {
            plain_pawn(Some(first), true, file, rank, Some(letter))?
        }
        _ => return None,
    };
    Some(San { turn, marker })
}

/// The role a piece letter of [`parse_plain`] names (not `P`: a pawn has no letter there).
#[inline(always)]
fn piece_letter(letter: u8) -> Option<Role> {
    match letter {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        b'K' => Some(Role::King),
        _ => None,
    }
}

/// The square a file letter and a rank digit name.
#[inline(always)]
fn plain_square(file: u8, rank: u8) -> Option<Square> {
    let (file, rank) = (file.wrapping_sub(b'a'), rank.wrapping_sub(b'1'));
    (file < 8 && rank < 8).then(|| Square::from_coords(file, rank))
}

/// A piece move of [`parse_plain`]: `from` is the origin file or rank written, if any.
#[inline(always)]
fn plain_piece(role: Role, from: Option<u8>, capture: bool, file: u8, rank: u8) -> Option<SanMove> {
    let (from_file, from_rank) = match from {
        None => (None, None),
        Some(c @ b'a'..=b'h') => (Some(c - b'a'), None),
        Some(c @ b'1'..=b'8') => (None, Some(c - b'1')),
        Some(_) => return None,
    };
    Some(SanMove::Piece {
        role,
        file: from_file,
        rank: from_rank,
        capture,
        to: plain_square(file, rank)?,
        promotion: None,
    })
}

/// A pawn move of [`parse_plain`]: `from` is the origin file written, if any; a promotion
/// only onto the first or last rank.
#[inline(always)]
fn plain_pawn(
    from: Option<u8>,
    capture: bool,
    file: u8,
    rank: u8,
    promotion: Option<u8>,
) -> Option<SanMove> {
    let from_file = match from {
        None => None,
        Some(c @ b'a'..=b'h') => Some(c - b'a'),
        Some(_) => return None,
    };
    let to = plain_square(file, rank)?;
    let promotion = match promotion {
        None => None,
        Some(_) if !matches!(rank, b'1' | b'8') => return None,
        Some(b'Q') => Some(Role::Queen),
        Some(b'R') => Some(Role::Rook),
        Some(b'B') => Some(Role::Bishop),
        Some(b'N') => Some(Role::Knight),
        Some(_) => return None,
    };
    Some(SanMove::Piece {
        role: Role::Pawn,
        file: from_file,
        rank: None,
        capture,
        to,
        promotion,
    })
}

/// castling = O "-" O [ "-" O ], where O is the letter `O` or the digit `0`.
fn parse_castling(bytes: &[u8]) -> Result<(SanMove, usize), TurnSyntaxError> {
    let is_o = |i: usize| matches!(bytes.get(i), Some(b'O' | b'0'));
    if bytes.get(1) != Some(&b'-') {
        return Err(syntax_error(1, "expected '-' in castling (O-O or O-O-O)"));
    }
    if !is_o(2) {
        return Err(syntax_error(2, "expected 'O' in castling (O-O or O-O-O)"));
    }
    if bytes.get(3) != Some(&b'-') {
        return Ok((SanMove::Castle(CastlingSide::KingSide), 3));
    }
    if !is_o(4) {
        return Err(syntax_error(4, "expected 'O' in castling (O-O or O-O-O)"));
    }
    Ok((SanMove::Castle(CastlingSide::QueenSide), 5))
}

/// move = [ piece ] [ file ] [ rank ] [ "x" | ":" | "-" ] square [ promotion ]
///
/// Read as two coordinate groups around an optional separator: with one group, it is the
/// destination; with two, the first is the origin (or part of it).
fn parse_move(token: &str) -> Result<(SanMove, usize), TurnSyntaxError> {
    let bytes = token.as_bytes();
    let mut i = 0;
    let role = match bytes[0] {
        c if c.is_ascii_uppercase() => match Role::from_char(char::from(c)) {
            Some(role) => {
                i = 1;
                Some(role)
            }
            None => {
                return Err(syntax_error(
                    0,
                    format!("unknown piece letter '{}'", char::from(c)),
                ));
            }
        },
        _ => None,
    };

    let first_at = i;
    let first_file = file_at(bytes, i);
    i += usize::from(first_file.is_some());
    let first_rank = rank_at(bytes, i);
    i += usize::from(first_rank.is_some());

    let separator = match bytes.get(i) {
        Some(&c @ (b'x' | b':' | b'-')) => {
            i += 1;
            Some(c)
        }
        _ => None,
    };
    let capture = matches!(separator, Some(b'x' | b':'));

    let second_at = i;
    let second_file = file_at(bytes, i);
    i += usize::from(second_file.is_some());
    let second_rank = rank_at(bytes, i);
    i += usize::from(second_rank.is_some());

    let two_groups = separator.is_some() || second_file.is_some() || second_rank.is_some();
    let (from_file, from_rank, to) = if two_groups {
        let (Some(file), Some(rank)) = (second_file, second_rank) else {
            let after = match separator {
                Some(c) => format!("'{}'", char::from(c)),
                None => format!("'{}'", &token[first_at..second_at]),
            };
            let at = if second_file.is_some() { i } else { second_at };
            return Err(syntax_error(at, format!("expected a square after {after}")));
        };
        (first_file, first_rank, Square::from_coords(file, rank))
    } else {
        match (first_file, first_rank) {
            (Some(file), Some(rank)) => (None, None, Square::from_coords(file, rank)),
            (Some(file), None) => {
                return Err(syntax_error(
                    i,
                    format!(
                        "expected a rank after the file '{}'",
                        char::from(b'a' + file)
                    ),
                ));
            }
            _ => {
                let what = match role {
                    Some(role) => format!(
                        "expected a square after the piece letter '{}'",
                        role.upper_char()
                    ),
                    None => "expected a piece letter or a square".to_owned(),
                };
                return Err(syntax_error(first_at, what));
            }
        }
    };

    let promotion_at = i;
    let promotion = parse_promotion(token, &mut i)?;
    if promotion.is_some() {
        if role.is_some_and(|role| role != Role::Pawn) {
            return Err(syntax_error(promotion_at, "only a pawn can promote"));
        }
        if to.rank() != 0 && to.rank() != 7 {
            return Err(syntax_error(
                promotion_at,
                format!("a pawn promotes only on the last rank, not on {to}"),
            ));
        }
    }

    let turn = match (role, from_file, from_rank) {
        (None, Some(file), Some(rank)) => SanMove::Coordinate {
            from: Square::from_coords(file, rank),
            to,
            capture,
            promotion,
        },
        (role, file, rank) => SanMove::Piece {
            role: role.unwrap_or(Role::Pawn),
            file,
            rank,
            capture,
            to,
            promotion,
        },
    };
    Ok((turn, i))
}

/// promotion = [ "=" ] letter | "(" letter ")", letter one of Q R B N in either case.
fn parse_promotion(token: &str, i: &mut usize) -> Result<Option<Role>, TurnSyntaxError> {
    let bytes = token.as_bytes();
    let start = *i;
    let (letter_at, closing) = match bytes.get(start) {
        Some(b'=') => (start + 1, false),
        Some(b'(') => (start + 1, true),
        Some(c) if b"QRBNqrbnKkPp".contains(c) => (start, false),
        _ => return Ok(None),
    };
    let Some(&letter) = bytes.get(letter_at) else {
        return Err(syntax_error(
            letter_at,
            "expected a promotion piece (Q, R, B or N)",
        ));
    };
    let role = match Role::from_char(char::from(letter)) {
        Some(Role::King) => return Err(syntax_error(letter_at, "cannot promote to a king")),
        Some(Role::Pawn) => return Err(syntax_error(letter_at, "cannot promote to a pawn")),
        Some(role) => role,
        None => {
            return Err(syntax_error(
                letter_at,
                format!(
                    "expected a promotion piece (Q, R, B or N), found '{}'",
                    char_at(token, letter_at)
                ),
            ));
        }
    };
    *i = letter_at + 1;
    if closing {
        if bytes.get(*i) != Some(&b')') {
            return Err(syntax_error(*i, "expected ')' after the promotion piece"));
        }
        *i += 1;
    }
    Ok(Some(role))
}

impl fmt::Display for SanMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SanMove::Null => f.write_str("--"),
            SanMove::Piece {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } => {
                if role != Role::Pawn {
                    write!(f, "{}", role.upper_char())?;
                }
                if let Some(file) = file {
                    write!(f, "{}", char::from(b'a' + file))?;
                }
                if let Some(rank) = rank {
                    write!(f, "{}", char::from(b'1' + rank))?;
                }
                if capture {
                    f.write_str("x")?;
                }
                write!(f, "{to}")?;
                if let Some(role) = promotion {
                    write!(f, "={}", role.upper_char())?;
                }
                Ok(())
            }
            SanMove::Coordinate {
                from,
                to,
                capture,
                promotion,
            } => {
                write!(f, "{from}{}{to}", if capture { 'x' } else { '-' })?;
                if let Some(role) = promotion {
                    write!(f, "={}", role.upper_char())?;
                }
                Ok(())
            }
            SanMove::Castle(side) => f.write_str(side.notation()),
        }
    }
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.turn)?;
        f.write_str(match self.marker {
            CheckMarker::None => "",
            CheckMarker::Check => "+",
            CheckMarker::Mate => "#",
        })
    }
}

/// The canonical SAN of a legal move: minimal disambiguation (the file if it tells the
/// pieces apart, else the rank, else both), `x` for captures, `=Q`, `O-O`, and `+`/`#`.
pub(crate) fn write(position: &Chess, m: &Move) -> String {
    let mut text = String::with_capacity(8);
    if m.kind == MoveKind::Null {
        text.push_str("--");
    } else if let Some(side) = m.castling_side() {
        text.push_str(side.notation());
    } else if m.role == Role::Pawn {
        if m.is_capture() {
            text.push(m.from.file_char());
            text.push('x');
        }
        text.push_str(&m.to.to_string());
        if let Some(role) = m.promotion {
            text.push('=');
            text.push(role.upper_char());
        }
    } else {
        text.push(m.role.upper_char());
        let others = position
            .board
            .by_piece(position.turn, m.role)
            .without(m.from);
        if others.any() {
            let mut rivals_moves = TargetList::new();
            position.generate(others, Bitboard::from_square(m.to), &mut rivals_moves);
            let rivals = rivals_moves
                .iter()
                .filter(|r| r.kind != MoveKind::Castle)
                .fold(Bitboard::EMPTY, |set, r| set.with(r.from));
            if rivals.any() {
                if (rivals & Bitboard::file(m.from.file())).is_empty() {
                    text.push(m.from.file_char());
                } else if (rivals & Bitboard::rank(m.from.rank())).is_empty() {
                    text.push(m.from.rank_char());
                } else {
                    text.push_str(&m.from.to_string());
                }
            }
        }
        if m.is_capture() {
            text.push('x');
        }
        text.push_str(&m.to.to_string());
    }
    let mut next = position.clone();
    next.play_move(m);
    if next.is_check() {
        text.push(if next.has_no_legal_move() { '#' } else { '+' });
    }
    text
}

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
fn resolve_unique(
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
fn choose(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;

    fn square(name: &str) -> Square {
        Square::from_name(name).unwrap()
    }

    fn piece(
        role: Role,
        file: Option<char>,
        rank: Option<char>,
        capture: bool,
        to: &str,
        promotion: Option<Role>,
    ) -> SanMove {
        SanMove::Piece {
            role,
            file: file.map(|c| c as u8 - b'a'),
            rank: rank.map(|c| c as u8 - b'1'),
            capture,
            to: square(to),
            promotion,
        }
    }

    #[test]
    fn the_plain_reading_agrees_with_the_grammar() {
        let pieces = ["", "N", "B", "R", "Q", "K", "P", "O"];
        let heads = [
            "", "a", "e", "h", "1", "4", "8", "b2", "x", "-", "O-O", "O-O-O", "-O",
        ];
        let captures = ["", "x", ":"];
        let targets = ["", "e4", "d1", "a8", "h8", "c7", "i4", "e9", "e"];
        let promotions = ["", "=Q", "=N", "=R", "=B", "=K", "=q", "Q", "(Q)"];
        let markers = ["", "+", "++", "#", "+#", "#+", "+++", "e.p."];
        let (mut plain, mut tokens) = (0, 0);
        for piece in pieces {
            for head in heads {
                for capture in captures {
                    for target in targets {
                        for promotion in promotions {
                            for marker in markers {
                                let token =
                                    format!("{piece}{head}{capture}{target}{promotion}{marker}");
                                tokens += 1;
                                if let Some(san) = parse_plain(token.as_bytes()) {
                                    plain += 1;
                                    assert_eq!(Ok(san), San::parse_full(&token), "{token}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(plain > 2000, "{plain} of {tokens} tokens read plainly");
    }

    #[test]
    fn parses_the_accepted_spellings() {
        use CheckMarker::{Check, Mate, None as Plain};
        use Role::*;
        let cases: Vec<(&str, SanMove, CheckMarker, &str)> = vec![
            (
                "e4",
                piece(Pawn, None, None, false, "e4", None),
                Plain,
                "e4",
            ),
            (
                "Nf3",
                piece(Knight, None, None, false, "f3", None),
                Plain,
                "Nf3",
            ),
            (
                "Nbd2",
                piece(Knight, Some('b'), None, false, "d2", None),
                Plain,
                "Nbd2",
            ),
            (
                "R1e2",
                piece(Rook, None, Some('1'), false, "e2", None),
                Plain,
                "R1e2",
            ),
            (
                "Qh4xe1+",
                piece(Queen, Some('h'), Some('4'), true, "e1", None),
                Check,
                "Qh4xe1+",
            ),
            (
                "exd5",
                piece(Pawn, Some('e'), None, true, "d5", None),
                Plain,
                "exd5",
            ),
            (
                "e:d5",
                piece(Pawn, Some('e'), None, true, "d5", None),
                Plain,
                "exd5",
            ),
            (
                "exd6e.p.",
                piece(Pawn, Some('e'), None, true, "d6", None),
                Plain,
                "exd6",
            ),
            (
                "e8=Q",
                piece(Pawn, None, None, false, "e8", Some(Queen)),
                Plain,
                "e8=Q",
            ),
            (
                "e8Q",
                piece(Pawn, None, None, false, "e8", Some(Queen)),
                Plain,
                "e8=Q",
            ),
            (
                "e8(N)",
                piece(Pawn, None, None, false, "e8", Some(Knight)),
                Plain,
                "e8=N",
            ),
            (
                "bxa1=r#",
                piece(Pawn, Some('b'), None, true, "a1", Some(Rook)),
                Mate,
                "bxa1=R#",
            ),
            (
                "Ng1-f3",
                piece(Knight, Some('g'), Some('1'), false, "f3", None),
                Plain,
                "Ng1f3",
            ),
            (
                "Ng1xf3",
                piece(Knight, Some('g'), Some('1'), true, "f3", None),
                Plain,
                "Ng1xf3",
            ),
            (
                "Pe4",
                piece(Pawn, None, None, false, "e4", None),
                Plain,
                "e4",
            ),
            (
                "Kf2++",
                piece(King, None, None, false, "f2", None),
                Check,
                "Kf2+",
            ),
            ("O-O", SanMove::Castle(CastlingSide::KingSide), Plain, "O-O"),
            (
                "0-0-0#",
                SanMove::Castle(CastlingSide::QueenSide),
                Mate,
                "O-O-O#",
            ),
            (
                "O-O-O",
                SanMove::Castle(CastlingSide::QueenSide),
                Plain,
                "O-O-O",
            ),
            (
                "e2e4",
                SanMove::Coordinate {
                    from: square("e2"),
                    to: square("e4"),
                    capture: false,
                    promotion: None,
                },
                Plain,
                "e2-e4",
            ),
            (
                "e7-e8=Q",
                SanMove::Coordinate {
                    from: square("e7"),
                    to: square("e8"),
                    capture: false,
                    promotion: Some(Queen),
                },
                Plain,
                "e7-e8=Q",
            ),
            (
                "e7e8q",
                SanMove::Coordinate {
                    from: square("e7"),
                    to: square("e8"),
                    capture: false,
                    promotion: Some(Queen),
                },
                Plain,
                "e7-e8=Q",
            ),
            (
                "e4xd5",
                SanMove::Coordinate {
                    from: square("e4"),
                    to: square("d5"),
                    capture: true,
                    promotion: None,
                },
                Plain,
                "e4xd5",
            ),
        ];
        for (token, turn, marker, canonical) in cases {
            let san = San::parse(token).unwrap_or_else(|e| panic!("{token}: {e}"));
            assert_eq!(san, San { turn, marker }, "{token}");
            assert_eq!(san.to_string(), canonical, "{token}");
            assert_eq!(San::parse(canonical), Ok(san), "{canonical}");
        }
    }

    #[test]
    fn syntax_errors_say_where_and_what() {
        let cases = [
            ("", 0, "empty turn"),
            ("Xe4", 0, "unknown piece letter 'X'"),
            ("N", 1, "expected a square after the piece letter 'N'"),
            ("Nx", 2, "expected a square after 'x'"),
            ("Nxe", 3, "expected a square after 'x'"),
            ("e", 1, "expected a rank after the file 'e'"),
            ("e4=", 3, "expected a promotion piece (Q, R, B or N)"),
            ("e8=K", 3, "cannot promote to a king"),
            (
                "e4=Q",
                2,
                "a pawn promotes only on the last rank, not on e4",
            ),
            ("Ne8=Q", 3, "only a pawn can promote"),
            ("e4!", 2, "unexpected character '!'"),
            ("Nf3+x", 4, "unexpected character 'x'"),
            ("O-", 2, "expected 'O' in castling (O-O or O-O-O)"),
            ("O+O", 1, "expected '-' in castling (O-O or O-O-O)"),
            ("Ne8é", 3, "unexpected character 'é'"),
            ("e8(Q", 4, "expected ')' after the promotion piece"),
            ("1", 0, "expected a piece letter or a square"),
        ];
        for (token, offset, message) in cases {
            assert_eq!(
                San::parse(token),
                Err(TurnSyntaxError::new(offset, message)),
                "{token}"
            );
        }
    }

    fn position(fen: &str) -> Chess {
        Chess::from_position_string(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn resolve_token(position: &Chess, token: &str) -> Result<Move, IllegalTurn> {
        position.resolve(&San::parse(token).unwrap())
    }

    fn error(fen: &str, token: &str) -> IllegalTurn {
        resolve_token(&position(fen), token).expect_err(token)
    }

    #[test]
    fn illegal_turns_say_why() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let cases: Vec<(&str, &str, IllegalKind, &str)> = vec![
            (
                start,
                "Nd4",
                IllegalKind::NoSuchPiece,
                "no knight can move to d4",
            ),
            (
                start,
                "e5",
                IllegalKind::NoSuchPiece,
                "no pawn can move to e5",
            ),
            (
                start,
                "Nbd4",
                IllegalKind::NoSuchPiece,
                "no knight on the b-file can move to d4",
            ),
            (
                start,
                "Bb5",
                IllegalKind::Blocked,
                "the bishop on f1 is blocked by the pawn on e2",
            ),
            (
                start,
                "Ra3",
                IllegalKind::Blocked,
                "the rook on a1 is blocked by the pawn on a2",
            ),
            (
                start,
                "Nd2",
                IllegalKind::Blocked,
                "d2 is occupied by a white pawn",
            ),
            (
                start,
                "exd3",
                IllegalKind::Other,
                "no piece to capture on d3",
            ),
            (start, "Nxf3", IllegalKind::Other, "no capture on f3"),
            (
                start,
                "e2e5",
                IllegalKind::NoSuchPiece,
                "the pawn on e2 cannot move to e5",
            ),
            (
                start,
                "e3e4",
                IllegalKind::NoSuchPiece,
                "no white piece on e3",
            ),
            (
                start,
                "g1g3",
                IllegalKind::NoSuchPiece,
                "the knight on g1 cannot move to g3",
            ),
            (
                start,
                "O-O",
                IllegalKind::Blocked,
                "cannot castle kingside: f1 is occupied",
            ),
            (
                start,
                "O-O-O",
                IllegalKind::Blocked,
                "cannot castle queenside: d1 is occupied",
            ),
            (
                "4k3/8/8/8/8/4p3/4P3/4K3 w - - 0 1",
                "e4",
                IllegalKind::Blocked,
                "the pawn on e2 is blocked by the pawn on e3",
            ),
            (
                "4k3/4p3/4P3/8/8/8/8/4K3 b - - 0 1",
                "e5",
                IllegalKind::Blocked,
                "the pawn on e7 is blocked by the pawn on e6",
            ),
            (
                "4k3/8/8/b7/8/8/3N4/4K3 w - - 0 1",
                "Nf3",
                IllegalKind::LeavesKingInCheck,
                "Nf3 would leave the king on e1 in check",
            ),
            (
                "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1",
                "Kf2",
                IllegalKind::LeavesKingInCheck,
                "the king cannot move into check on f2",
            ),
            (
                "4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1",
                "Nd2",
                IllegalKind::Ambiguous(vec!["Nbd2".to_owned(), "Nfd2".to_owned()]),
                "ambiguous: Nbd2 or Nfd2",
            ),
            (
                "k7/4P3/8/8/8/8/8/4K3 w - - 0 1",
                "e8",
                IllegalKind::Other,
                "e8 needs a promotion piece",
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K1R1 w Qkq - 0 1",
                "O-O",
                IllegalKind::Other,
                "cannot castle kingside: the rook on h1 has moved",
            ),
            (
                "r3k2r/8/8/8/8/8/8/R4K1R w kq - 0 1",
                "O-O",
                IllegalKind::Other,
                "cannot castle kingside: the king has moved",
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
                "O-O",
                IllegalKind::Other,
                "cannot castle kingside: the right was lost (the king or the rook on h1 has moved)",
            ),
            (
                "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",
                "O-O",
                IllegalKind::LeavesKingInCheck,
                "cannot castle kingside: the king would pass through check on f1",
            ),
            (
                "r3k2r/8/8/8/8/8/6r1/R3K2R w KQkq - 0 1",
                "O-O",
                IllegalKind::LeavesKingInCheck,
                "cannot castle kingside: the king would land in check on g1",
            ),
            (
                "r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1",
                "O-O-O",
                IllegalKind::LeavesKingInCheck,
                "cannot castle queenside: the king is in check",
            ),
            (
                "rnbqkbnr/ppppp2p/5p2/6pQ/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 3",
                "a6",
                IllegalKind::GameOver,
                "the game is over: Black is checkmated",
            ),
        ];
        for (fen, token, kind, message) in cases {
            let error = error(fen, token);
            assert_eq!(error.message, message, "{token} in {fen}");
            assert_eq!(error.kind, kind, "{token} in {fen}");
        }
    }

    #[test]
    fn queenside_castling_through_b1_attack_is_fine() {
        // b1 is crossed by the rook, not the king: an attack on it does not matter.
        let p = position("r3k2r/8/8/8/8/8/1r6/R3K2R w KQkq - 0 1");
        let m = resolve_token(&p, "O-O-O").unwrap();
        assert_eq!(m.uci(), "e1c1");
        assert_eq!(p.write_turn(&m), "O-O-O");
    }

    #[test]
    fn coordinates_resolve_including_castling() {
        let p = position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        for (token, uci) in [
            ("e1g1", "e1g1"),
            ("e1h1", "e1g1"),
            ("e1c1", "e1c1"),
            ("e1a1", "e1c1"),
            ("Ke1-g1", "e1g1"),
        ] {
            let m = resolve_token(&p, token).unwrap_or_else(|e| panic!("{token}: {e}"));
            assert_eq!(m.kind, MoveKind::Castle, "{token}");
            assert_eq!(m.uci(), uci, "{token}");
        }
        // Without the full origin, a king letter means a king step.
        assert_eq!(
            error("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "Kg1").message,
            "no king can move to g1"
        );
    }

    #[test]
    fn null_moves_pass_the_turn_unless_in_check() {
        let p = Chess::start();
        for token in ["--", "Z0", "0000", "@@@@"] {
            let m = resolve_token(&p, token).unwrap();
            assert_eq!(m.kind, MoveKind::Null, "{token}");
            assert_eq!(p.write_turn(&m), "--");
            let mut next = p.clone();
            next.play(&m);
            assert_eq!(
                next.position_string(),
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 1 1"
            );
        }
        let p = position("4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
        let error = resolve_token(&p, "--").unwrap_err();
        assert_eq!(
            error.message,
            "a null move would leave the king on e1 in check"
        );
        assert!(!p.legal_moves().iter().any(|m| m.kind == MoveKind::Null));
    }

    #[test]
    fn writes_minimal_disambiguation() {
        // Rooks on a1 and h1 both reach d1: the file tells them apart.
        let p = position("4k3/8/8/8/8/8/K7/R6R w - - 0 1");
        let m = resolve_token(&p, "Rad1").unwrap();
        assert_eq!(p.write_turn(&m), "Rad1");
        // Rooks on a1 and a5 both reach a3: the rank does.
        let p = position("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
        let m = resolve_token(&p, "R1a3").unwrap();
        assert_eq!(p.write_turn(&m), "R1a3");
        // Queens on a1, a5 and e1... e5 reach c3 from a1 (diagonal), a5 (diagonal), e1
        // (diagonal) and e5 (diagonal): the one on a1 needs both.
        let p = position("8/8/7k/Q3Q3/8/8/8/Q3Q2K w - - 0 1");
        let m = resolve_token(&p, "Qa1c3").unwrap();
        assert_eq!(p.write_turn(&m), "Qa1c3");
        // A pinned rival does not count.
        let p = position("4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1");
        let m = resolve_token(&p, "Nd2").unwrap();
        assert_eq!(p.write_turn(&m), "Nd2");
    }

    #[test]
    fn writes_check_mate_promotion_and_en_passant() {
        let p = position("rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq g6 0 3");
        let m = resolve_token(&p, "Qh5").unwrap();
        assert_eq!(p.write_turn(&m), "Qh5#");
        let p = position("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
        let m = resolve_token(&p, "b8=Q").unwrap();
        assert_eq!(p.write_turn(&m), "b8=Q+");
        let m = resolve_token(&p, "b7b8n").unwrap();
        assert_eq!(p.write_turn(&m), "b8=N");
        let p = position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        let m = resolve_token(&p, "exd6").unwrap();
        assert_eq!(m.kind, MoveKind::EnPassant);
        assert_eq!(p.write_turn(&m), "exd6");
        assert_eq!(resolve_token(&p, "exd6e.p.").unwrap(), m);
        assert_eq!(resolve_token(&p, "ed6").unwrap(), m);
    }

    #[test]
    fn pinned_en_passant_is_illegal_and_explained() {
        // Capturing en passant would open the fifth rank to the rook.
        let p = position("8/8/8/r2pP2K/8/8/8/4k3 w - d6 0 2");
        let e = resolve_token(&p, "exd6").unwrap_err();
        assert_eq!(e.kind, IllegalKind::LeavesKingInCheck);
        assert_eq!(e.message, "exd6 would leave the king on h5 in check");
    }

    /// The fast path agrees with the full resolution on every piece move a token can
    /// name, in positions with pins, checks, promotions, en passant and castling, and
    /// takes every unambiguous move that is neither en passant nor castling.
    #[test]
    fn the_fast_path_agrees_with_full_generation() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
            "4k3/8/8/8/1b6/8/3N4/4K2q w - - 0 1",
            "3k4/8/8/2Pp4/8/8/8/3K4 w - d6 0 1",
            "4k3/1P6/8/8/3pP3/8/6p1/4K2R b K e3 0 1",
            "7k/8/8/8/8/1N3N2/8/1N3NK1 w - - 0 1",
        ];
        let roles = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ];
        let mut fast = 0;
        for fen in fens {
            let mut position =
                Chess::from_position_string(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            for ply in 0..12usize {
                for role in roles {
                    let pieces = position.board.by_piece(position.turn, role);
                    let mut masks = vec![pieces];
                    for line in 0..8 {
                        masks.push(pieces & Bitboard::file(line));
                        masks.push(pieces & Bitboard::rank(line));
                    }
                    for (from_mask, to, promotion, capture) in masks.iter().flat_map(|&mask| {
                        (0..64).flat_map(move |to| {
                            [None, Some(Role::Queen), Some(Role::Knight)]
                                .into_iter()
                                .flat_map(move |promotion| {
                                    [false, true]
                                        .map(|capture| (mask, Square::new(to), promotion, capture))
                                })
                        })
                    }) {
                        let mut moves = TargetList::new();
                        position.generate(from_mask, Bitboard::from_square(to), &mut moves);
                        moves.retain(|m| m.kind != MoveKind::Castle);
                        let full = choose(&position, &moves, promotion, capture, to);
                        let quick =
                            resolve_unique(&position, role, from_mask, capture, to, promotion);
                        match (quick, full) {
                            (Some(m), Some(Ok(expected))) => {
                                assert_eq!(m, expected, "{fen} ply {ply}");
                                fast += 1;
                            }
                            (Some(m), other) => {
                                panic!("{fen} ply {ply}: fast {m:?}, full {other:?}")
                            }
                            (None, Some(Ok(expected))) => assert_eq!(
                                expected.kind,
                                MoveKind::EnPassant,
                                "{fen} ply {ply}: missed {expected:?}"
                            ),
                            (None, _) => {}
                        }
                    }
                }
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[(ply * 37 + 11) % moves.len()];
                position.play_move(&m);
            }
        }
        assert!(fast > 1000, "the fast path was taken {fast} times");
    }
}
