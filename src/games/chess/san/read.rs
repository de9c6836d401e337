//! Reading a turn token without a board: [`San::parse`], the plain shapes in one step and
//! the full grammar of the module's documentation for the rest.

use super::{CheckMarker, San, SanMove};
use crate::games::TurnSyntaxError;
use crate::games::chess::types::{CastlingSide, Role, Square};

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
    pub(super) fn parse_full(token: &str) -> Result<San, TurnSyntaxError> {
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
pub(super) fn parse_plain(bytes: &[u8]) -> Option<San> {
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
