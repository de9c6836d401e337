//! The places of Chess with wickets (the 64 squares and the two wickets), the sets of
//! places the generator uses, what attacks what, and the position string.

use std::fmt::{self, Write as _};

use super::cards::{self, Card, CardState};
use super::{AwaitedRoll, DecisionMode, Wickets, ball_char, idx, wicket_index};
use crate::games::chess::attacks::{self, tables};
use crate::games::chess::bitboard::Bitboard;
use crate::games::chess::types::{CastlingSide, Piece, Role, Square};
use crate::games::chess::{Board, CastlingRights};
use crate::games::{Color, SetupError, read_number_field};

/// A place a piece or a Ball can stand: one of the 64 squares or one of the two wickets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc(pub(super) u8);

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
    pub(super) const fn coords(self) -> (i8, i8) {
        match self.0 {
            64 => (4, -1),
            65 => (4, 8),
            i => ((i % 8) as i8, (i / 8) as i8),
        }
    }

    pub(super) const fn from_coords(file: i8, rank: i8) -> Option<Loc> {
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

    pub(super) fn step(self, (df, dr): (i8, i8)) -> Option<Loc> {
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
pub(super) struct LocSet(u128);

impl LocSet {
    pub(super) fn insert(&mut self, loc: Loc) {
        self.0 |= 1 << loc.0;
    }

    pub(super) fn remove(&mut self, loc: Loc) {
        self.0 &= !(1 << loc.0);
    }

    pub(super) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Adds the board squares of a set of squares.
    pub(super) fn insert_squares(&mut self, squares: Bitboard) {
        self.0 |= u128::from(squares.0);
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

/// The board squares from which a piece of the role with index `role` ([`Role::ALL`])
/// could reach a wicket by its geometry alone: a pawn's or a king's step, a knight's
/// jump, the e-file for a rook, the two diagonals ending in the wicket for a bishop, both
/// for a queen. [`Wickets::reaches_wicket`] is false from every other square, whatever
/// the position, so the generator and the attack test ask it only here.
const fn wicket_reach(wicket: Loc, role: usize) -> Bitboard {
    let (wf, wr) = wicket.coords();
    let mut squares = 0u64;
    let mut index = 0;
    while index < 64 {
        let df = (index % 8) as i8 - wf;
        let dr = (index / 8) as i8 - wr;
        let (f, r) = (df.abs(), dr.abs());
        let reaches = match role {
            0 => f == 1 && r == 1,
            1 => (f == 1 && r == 2) || (f == 2 && r == 1),
            2 => f == r,
            3 => df == 0,
            4 => df == 0 || f == r,
            _ => f <= 1 && r <= 1,
        };
        if reaches {
            squares |= 1 << index;
        }
        index += 1;
    }
    Bitboard(squares)
}

const fn wicket_reaches(wicket: Loc) -> [Bitboard; 6] {
    let mut out = [Bitboard(0); 6];
    let mut role = 0;
    while role < 6 {
        out[role] = wicket_reach(wicket, role);
        role += 1;
    }
    out
}

/// [`wicket_reach`] of w0 and of w9, by role index.
pub(super) const WICKET_REACH: [[Bitboard; 6]; 2] =
    [wicket_reaches(Loc::W0), wicket_reaches(Loc::W9)];

/// Whether a piece on `square` could reach `wicket` at all ([`wicket_reach`]).
pub(super) const fn may_reach_wicket(square: Square, piece: Piece, wicket: Loc) -> bool {
    WICKET_REACH[wicket_index(wicket)][piece.role.index()].contains(square)
}

pub(super) const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
pub(super) const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

impl Wickets {
    /// The piece on a square or in a wicket.
    #[must_use]
    pub fn piece_at(&self, loc: Loc) -> Option<Piece> {
        match loc.as_square() {
            Some(square) => self.board.piece_at(square),
            None => self.wicket[wicket_index(loc)],
        }
    }

    pub(super) fn ball_at(&self, loc: Loc) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&c| self.loose[idx(c)] == Some(loc))
    }

    pub(super) fn is_empty(&self, loc: Loc) -> bool {
        self.piece_at(loc).is_none() && self.ball_at(loc).is_none()
    }

    pub(super) fn occupied(&self) -> Bitboard {
        let mut occ = self.board.occupied();
        for ball in self.loose.iter().flatten() {
            if let Some(square) = ball.as_square() {
                occ = occ.with(square);
            }
        }
        occ
    }

    pub(super) fn remove_piece(&mut self, loc: Loc) {
        match loc.as_square() {
            Some(square) => self.board.remove(square),
            None => self.wicket[wicket_index(loc)] = None,
        }
    }

    pub(super) fn put_piece(&mut self, loc: Loc, piece: Piece) {
        match loc.as_square() {
            Some(square) => self.board.put(square, piece),
            None => self.wicket[wicket_index(loc)] = Some(piece),
        }
    }

    /// Every place holding a piece of `color`, the board first.
    pub(super) fn locs_of(&self, color: Color) -> impl Iterator<Item = Loc> + '_ {
        self.board.by_color(color).map(Loc::square).chain(
            [Loc::W0, Loc::W9]
                .into_iter()
                .filter(move |&w| self.wicket[wicket_index(w)].is_some_and(|p| p.color == color)),
        )
    }

    /// The place of `color`'s king: on the board (the lowest square, as [`Wickets::locs_of`]
    /// lists them) or else in a wicket.
    pub(super) fn king_loc(&self, color: Color) -> Option<Loc> {
        if let Some(square) = self.board.king_of(color) {
            return Some(Loc::square(square));
        }
        let king = Some(Piece {
            color,
            role: Role::King,
        });
        [Loc::W0, Loc::W9]
            .into_iter()
            .find(|&w| self.wicket[wicket_index(w)] == king)
    }

    /// Whether a piece of `by` on the board attacks `loc` (pieces in wickets never do,
    /// Balls never do).
    pub(super) fn attacked(&self, loc: Loc, by: Color) -> bool {
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
        let reach = &WICKET_REACH[wicket_index(loc)];
        Role::ALL.into_iter().any(|role| {
            let piece = Piece { color: by, role };
            let mut near = b.by_piece(by, role) & reach[role.index()];
            Iterator::any(&mut near, |square| self.reaches_wicket(square, piece, loc))
        })
    }

    /// Whether `piece` on `from` attacks the wicket `wicket`.
    pub(super) fn reaches_wicket(&self, from: Square, piece: Piece, wicket: Loc) -> bool {
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
}

pub(super) fn bad(field: usize, detail: impl fmt::Display) -> SetupError {
    SetupError::in_field(
        field,
        format!("field {field} of the position string: {detail}"),
    )
}

pub(super) fn write_pair(out: &mut String, pair: [Option<Loc>; 2]) {
    for (i, loc) in pair.iter().enumerate() {
        if i == 1 {
            out.push(',');
        }
        match loc {
            Some(loc) => {
                let _ = write!(out, "{loc}");
            }
            None => out.push('-'),
        }
    }
}

/// Writes the position string: placement (with `o`/`O` for loose Balls), side, castling,
/// en passant, wickets, Ball-havers, Defenders, decision mode, the two counters.
pub(super) fn write_position(position: &Wickets) -> String {
    let mut out = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let loc = Loc::square(Square::from_coords(file, rank));
            let c = position
                .piece_at(loc)
                .map(Piece::char)
                .or_else(|| position.ball_at(loc).map(ball_char));
            match c {
                Some(c) => {
                    if empty > 0 {
                        let _ = write!(out, "{empty}");
                        empty = 0;
                    }
                    out.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            let _ = write!(out, "{empty}");
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out.push_str(if position.turn == Color::White {
        " w "
    } else {
        " b "
    });
    let castling = position.castling;
    let mut any = false;
    for (color, side, c) in [
        (Color::White, CastlingSide::KingSide, 'K'),
        (Color::White, CastlingSide::QueenSide, 'Q'),
        (Color::Black, CastlingSide::KingSide, 'k'),
        (Color::Black, CastlingSide::QueenSide, 'q'),
    ] {
        if castling.has(color, side) {
            out.push(c);
            any = true;
        }
    }
    if !any {
        out.push('-');
    }
    match position.ep_square {
        Some(square) => {
            let _ = write!(out, " {square} ");
        }
        None => out.push_str(" - "),
    }
    for (i, wicket) in [Loc::W0, Loc::W9].into_iter().enumerate() {
        if i == 1 {
            out.push(',');
        }
        let c = position
            .piece_at(wicket)
            .map(Piece::char)
            .or_else(|| position.ball_at(wicket).map(ball_char))
            .unwrap_or('-');
        out.push(c);
    }
    out.push(' ');
    write_pair(&mut out, position.haver);
    out.push(' ');
    write_pair(&mut out, position.defender);
    let _ = write!(out, " {}", position.mode.code());
    let state = &position.cards;
    if state.discards != 0 || state.attempt.is_some() {
        out.push('/');
        if state.discards == 0 {
            out.push('-');
        } else {
            out.push_str(&cards::write_mask(state.discards));
        }
    }
    if let Some(awaited) = position.awaited_roll {
        out.push_str("/?");
        if let Some(loc) = awaited.sacrifice {
            let _ = write!(out, "{loc}");
        }
    }
    if let Some(attempt) = &state.attempt {
        out.push('/');
        if attempt.is_empty() {
            out.push('-');
        }
        for card in attempt {
            let _ = write!(out, "{card}");
        }
    }
    let _ = write!(
        out,
        " {} {}",
        position.halfmove_clock, position.fullmove_number
    );
    out
}

pub(super) fn read_pair(field: usize, text: &str) -> Result<[Option<Loc>; 2], SetupError> {
    let (a, b) = text.split_once(',').ok_or_else(|| {
        bad(
            field,
            format!("expected two places joined by a comma, not \"{text}\""),
        )
    })?;
    let one = |s: &str| -> Result<Option<Loc>, SetupError> {
        if s == "-" {
            return Ok(None);
        }
        Loc::from_name(s)
            .map(Some)
            .ok_or_else(|| bad(field, format!("\"{s}\" is not a place")))
    };
    Ok([one(a)?, one(b)?])
}

/// Reads and checks a position string.
pub(super) fn read_position(text: &str) -> Result<Wickets, SetupError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if !(7..=10).contains(&fields.len()) {
        return Err(SetupError::in_field(
            (fields.len() + 1).min(11),
            format!(
                "a position string has 7 to 10 fields (placement, side, castling, en passant, \
                 wickets, Ball-havers, Defenders, mode, counters), not {}",
                fields.len()
            ),
        ));
    }
    let mut board = Board::empty();
    let mut loose: [Option<Loc>; 2] = [None; 2];
    let mut put_ball = |owner: Color, loc: Loc, field: usize| {
        if loose[idx(owner)].replace(loc).is_some() {
            return Err(bad(field, format!("two loose Balls of {owner}")));
        }
        Ok(())
    };
    let ranks: Vec<&str> = fields[0].split('/').collect();
    if ranks.len() != 8 {
        return Err(bad(1, "the placement has 8 ranks"));
    }
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0u8;
        for c in rank_text.chars() {
            if let Some(n) = c.to_digit(10) {
                file = file.saturating_add(n as u8);
                continue;
            }
            if file >= 8 {
                return Err(bad(1, format!("rank {} is too long", rank + 1)));
            }
            let loc = Loc::square(Square::from_coords(file, rank));
            match c {
                'o' => put_ball(Color::White, loc, 1)?,
                'O' => put_ball(Color::Black, loc, 1)?,
                _ => {
                    let piece = Piece::from_char(c)
                        .ok_or_else(|| bad(1, format!("unknown piece letter '{c}'")))?;
                    board.put(Square::from_coords(file, rank), piece);
                }
            }
            file += 1;
        }
        if file != 8 {
            return Err(bad(1, format!("rank {} does not have 8 squares", rank + 1)));
        }
    }
    let turn = match fields[1] {
        "w" => Color::White,
        "b" => Color::Black,
        other => {
            return Err(bad(
                2,
                format!("the side to move is w or b, not \"{other}\""),
            ));
        }
    };
    let mut castling = CastlingRights::NONE;
    if fields[2] != "-" {
        for c in fields[2].chars() {
            let (color, side) = match c {
                'K' => (Color::White, CastlingSide::KingSide),
                'Q' => (Color::White, CastlingSide::QueenSide),
                'k' => (Color::Black, CastlingSide::KingSide),
                'q' => (Color::Black, CastlingSide::QueenSide),
                _ => return Err(bad(3, format!("unknown castling letter '{c}'"))),
            };
            castling.set(color, side, true);
        }
    }
    let ep_square = match fields[3] {
        "-" => None,
        s => Some(Square::from_name(s).ok_or_else(|| bad(4, format!("\"{s}\" is not a square")))?),
    };
    let mut wicket = [None; 2];
    let wicket_chars: Vec<char> = fields[4].chars().collect();
    if wicket_chars.len() != 3 || wicket_chars[1] != ',' {
        return Err(bad(
            5,
            "the wickets field is two letters joined by a comma, as -,-",
        ));
    }
    for (i, &c) in [wicket_chars[0], wicket_chars[2]].iter().enumerate() {
        let loc = if i == 0 { Loc::W0 } else { Loc::W9 };
        match c {
            '-' => {}
            'o' => put_ball(Color::White, loc, 5)?,
            'O' => put_ball(Color::Black, loc, 5)?,
            _ => {
                wicket[i] = Some(
                    Piece::from_char(c)
                        .ok_or_else(|| bad(5, format!("unknown piece letter '{c}'")))?,
                );
            }
        }
    }
    let haver = read_pair(6, fields[5])?;
    let defender = read_pair(7, fields[6])?;
    let mut card_state = CardState::default();
    let mut awaited_roll = None;
    let mode = match fields.get(7) {
        Some(field) => {
            // `dice/?a2`: the awaited roll comes last, after any deck state.
            let (field, awaited) = match field.split_once("/?") {
                Some((field, rest)) => (field, Some(rest)),
                None => (*field, None),
            };
            let mut parts = field.split('/');
            let mode = DecisionMode::from_name(parts.next().unwrap_or_default())
                .map_err(|error| error.or_in_field(8))?;
            if let Some(rest) = awaited {
                awaited_roll =
                    Some(read_awaited_roll(mode, rest).map_err(|error| error.or_in_field(8))?);
            }
            let mut read = |what: &str| -> Result<Option<Vec<Card>>, SetupError> {
                parts
                    .next()
                    .map(|text| {
                        if !mode.is_cards() {
                            return Err(bad(8, format!("{what} need a Cards mode")));
                        }
                        cards::read_cards(text)
                            .ok_or_else(|| bad(8, format!("\"{text}\" is not a list of cards")))
                    })
                    .transpose()
            };
            if let Some(discards) = read("discards")? {
                for card in discards {
                    let bit = card.bit();
                    if card_state.discards & bit != 0 {
                        return Err(bad(8, format!("{card} is discarded twice")));
                    }
                    card_state.discards |= bit;
                }
                if card_state.discards.count_ones() > 20 {
                    return Err(bad(8, "at most 20 cards are discarded before a reshuffle"));
                }
            }
            card_state.attempt = read("attempt cards")?;
            if let Some(attempt) = &card_state.attempt
                && let Some(card) = attempt
                    .iter()
                    .find(|&&c| card_state.discards & c.bit() == 0)
            {
                return Err(bad(
                    8,
                    format!("the attempt card {card} is not among the discards"),
                ));
            }
            if parts.next().is_some() {
                return Err(bad(8, "the mode field is mode[/discards[/attempt]]"));
            }
            mode
        }
        None => DecisionMode::Deterministic,
    };
    // The counters go up by `games::count_up`, which stops at `MAX_COUNT`; a larger one
    // is refused with the reason, so a counter never wraps.
    let number = |i: usize, what: &str, default: u32| -> Result<u32, SetupError> {
        Ok(read_number_field(fields.get(i).copied(), i as u32 + 1, what, 0)?.unwrap_or(default))
    };
    let position = Wickets {
        board,
        wicket,
        loose,
        haver,
        defender,
        turn,
        castling,
        ep_square,
        halfmove_clock: number(8, "halfmove clock", 0)?,
        fullmove_number: number(9, "fullmove number", 1)?.max(1),
        mode,
        cards: card_state,
        awaited_roll,
    };
    check(&position)?;
    Ok(position)
}

pub(super) fn check(p: &Wickets) -> Result<(), SetupError> {
    for color in [Color::White, Color::Black] {
        let kings = p
            .locs_of(color)
            .filter(|&l| p.piece_at(l).is_some_and(|q| q.role == Role::King))
            .count();
        if kings > 1 {
            return Err(SetupError::new(format!("{color} has {kings} kings")));
        }
        match (p.haver[idx(color)], p.loose[idx(color)]) {
            (Some(_), Some(_)) => {
                return Err(SetupError::new(format!(
                    "{color}'s Ball is both held and loose"
                )));
            }
            (None, None) => {
                return Err(SetupError::new(format!(
                    "{color}'s Ball is neither held nor loose"
                )));
            }
            _ => {}
        }
        if let Some(h) = p.haver[idx(color)]
            && p.piece_at(h).is_none_or(|q| q.color != color)
        {
            return Err(SetupError::new(format!(
                "{color}'s Ball-haver on {h} is not a {} piece",
                color.name().to_lowercase()
            )));
        }
        if let Some(d) = p.defender[idx(color)] {
            if p.piece_at(d).is_none_or(|q| q.color != color) {
                return Err(SetupError::new(format!(
                    "{color}'s Defender on {d} is not a {} piece",
                    color.name().to_lowercase()
                )));
            }
            if p.haver[idx(color)] == Some(d) {
                return Err(SetupError::new(format!(
                    "{color}'s Defender on {d} is also its Ball-haver"
                )));
            }
        } else if color != p.turn {
            return Err(SetupError::new(format!(
                "{color} is not to move and has no Defender"
            )));
        }
        let wicket = Loc::wicket_of(color);
        if let Some(piece) = p.piece_at(wicket) {
            // Ruling 14: an opposing piece that entered as Ball-haver may stay after it
            // threw; an own piece there is always the Defender.
            let allowed = piece.color != color || p.defender[idx(color)] == Some(wicket);
            if !allowed || piece.role == Role::Pawn {
                return Err(SetupError::new(format!(
                    "the {} in {wicket} may not stand there (only its own Defender or an \
                     opposing piece, never a pawn)",
                    piece.role.name()
                )));
            }
        }
        let army = || p.locs_of(color).filter_map(|l| p.piece_at(l));
        crate::games::chess::check_army(
            color,
            army().filter(|q| q.role == Role::Pawn).count() as u32,
            army().count() as u32,
        )?;
        let rank = if color == Color::White { 0 } else { 7 };
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if p.castling.has(color, side)
                && (p.board.piece_at(Square::from_coords(4, rank))
                    != Some(Piece {
                        color,
                        role: Role::King,
                    })
                    || p.board
                        .piece_at(Square::from_coords(side.rook_file(), rank))
                        != Some(Piece {
                            color,
                            role: Role::Rook,
                        }))
            {
                return Err(SetupError::new(format!(
                    "{color} may not castle {}: king or rook is not at home",
                    side.name()
                )));
            }
        }
    }
    if (p.board.by_role(Role::Pawn)
        & (crate::games::chess::bitboard::Bitboard::rank(0)
            | crate::games::chess::bitboard::Bitboard::rank(7)))
    .any()
    {
        return Err(SetupError::new("a pawn stands on the first or last rank"));
    }
    if let Some(ep) = p.ep_square {
        let expected_rank = if p.turn == Color::White { 5 } else { 2 };
        if ep.rank() != expected_rank || !p.is_empty(Loc::square(ep)) {
            return Err(SetupError::new(format!(
                "{ep} cannot be an en passant square here"
            )));
        }
    }
    if p.wicket_end().is_none() && p.in_check(p.turn.other()) {
        return Err(SetupError::new(format!(
            "the side not to move is in check ({})",
            p.turn.other()
        )));
    }
    Ok(())
}

/// The rest of a mode field after `/?`: a Dice attempt awaiting its roll, with the place
/// of the piece named for a second roll in Dice II (`dice/?`, `dice2/?a2`).
fn read_awaited_roll(mode: DecisionMode, rest: &str) -> Result<AwaitedRoll, SetupError> {
    if !mode.is_dice() {
        return Err(bad(8, "an awaited roll (/?) needs a Dice mode"));
    }
    if rest.is_empty() {
        return Ok(AwaitedRoll { sacrifice: None });
    }
    if mode != DecisionMode::DiceII {
        return Err(bad(8, "a sacrifice for a second roll needs Dice II"));
    }
    let loc = Loc::from_name(rest)
        .ok_or_else(|| bad(8, format!("\"{rest}\" is not a place (after /?)")))?;
    Ok(AwaitedRoll {
        sacrifice: Some(loc),
    })
}
