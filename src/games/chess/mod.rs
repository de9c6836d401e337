//! Orthodox chess under the FIDE Laws.
//!
//! The position is a set of bitboards ([`Board`]) plus the side to move, the castling
//! rights, the en passant square and the two move counters. A FEN reads into a [`Setup`],
//! which [`Chess::from_setup`] validates. Moves ([`Move`]) are generated legal, into a
//! [`MoveList`] on the stack. Turn tokens read into [`San`] without a board and resolve
//! against a position into a [`Move`], or into an [`IllegalTurn`] that says why not.
//!
//! # How it is built
//!
//! Orthodox chess under the FIDE Laws. `types` (squares, roles, pieces), `bitboard`,
//! `attacks` (leaper tables computed at compile time; magic bitboards for sliders from
//! constant magic factors, and between/line tables, all filled at build time: `build.rs`
//! includes `magics` by path, checks the factors for collisions and writes the tables as
//! Rust source into `OUT_DIR`, so a process starts with them ready), `setup` (`Board`, `CastlingRights`, `Setup`: a FEN read
//! but not yet validated; `Setup::validate` or `Chess::from_setup` checks it into a
//! position with a precise reason), `movegen` (`Move`, `MoveList<N>`: a fixed-capacity list
//! on the stack; legal generation from checkers and pins, restricted by origin and target
//! masks so that resolving a token generates only the moves to its square), `san` (`San`:
//! the board-free token; `resolve` with the reasons in words; the canonical writer),
//! `zobrist` (constant keys; the board keeps its placement hash up to date move by move).
//!
//! Invariants: a `Chess` value is always a legal position; `MoveList` never allocates; the
//! en passant square counts for repetition only when the capture is legal. Null moves
//! (`--`, `Z0`) resolve (not in check) but are never generated.

pub(crate) mod attacks;
pub(crate) mod bitboard;
mod magics;
mod movegen;
mod san;
mod setup;
pub(crate) use self::setup::check_army;
pub(crate) mod types;
mod zobrist;

use std::fmt::Write as _;

pub(crate) use movegen::pinned;
pub use movegen::{Move, MoveKind, MoveList};
pub use san::{CheckMarker, San, SanMove};
pub use setup::{Board, CastlingRights, Setup};
pub use types::{CastlingSide, Piece, Role, Square};

use self::bitboard::Bitboard;
use crate::games::snapshot::square_names;
use crate::games::{
    Color, DrawReason, Game, IllegalTurn, Man, Outcome, PieceKind, RepetitionRule, SetupError,
    Snapshot, Stacking, TurnSyntaxError, Variant, WinReason,
};

/// A legal position of orthodox chess: exactly one king a side, the side not to move not
/// in check, no pawn on a back rank, castling rights only with king and rook at home and
/// an en passant square only behind a pawn that may just have moved two squares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chess {
    board: Board,
    turn: Color,
    castling: CastlingRights,
    ep_square: Option<Square>,
    halfmove_clock: u32,
    fullmove_number: u32,
}

/// The orthodox pieces as the converters name them, in the order of [`Role`].
pub(crate) const CHESS_KINDS: [PieceKind; 6] = [
    PieceKind {
        name: "Pawn",
        label: "P",
    },
    PieceKind {
        name: "Knight",
        label: "N",
    },
    PieceKind {
        name: "Bishop",
        label: "B",
    },
    PieceKind {
        name: "Rook",
        label: "R",
    },
    PieceKind {
        name: "Queen",
        label: "Q",
    },
    PieceKind {
        name: "King",
        label: "K",
    },
];

/// The chess pieces followed by a game's own, as one table of the converters' names
/// (`N` is checked to be six more than `M` when the table is built).
pub(crate) const fn chess_kinds_and<const M: usize, const N: usize>(
    own: [PieceKind; M],
) -> [PieceKind; N] {
    assert!(
        N == CHESS_KINDS.len() + M,
        "the table holds the chess pieces and its own"
    );
    let mut kinds = [CHESS_KINDS[0]; N];
    let mut at = 0;
    while at < N {
        kinds[at] = if at < CHESS_KINDS.len() {
            CHESS_KINDS[at]
        } else {
            own[at - CHESS_KINDS.len()]
        };
        at += 1;
    }
    kinds
}

/// An orthodox piece as the converters name it.
pub(crate) fn chess_man(piece: Piece) -> Man {
    Man {
        color: piece.color,
        kind: CHESS_KINDS[piece.role.index()],
    }
}

impl Chess {
    /// Validates a setup into a position, or says what makes it unplayable.
    pub fn from_setup(setup: Setup) -> Result<Chess, SetupError> {
        setup.check()?;
        let position = Chess {
            board: setup.board,
            turn: setup.turn,
            castling: setup.castling,
            ep_square: setup.ep_square,
            halfmove_clock: setup.halfmove_clock,
            fullmove_number: setup.fullmove_number,
        };
        let them = position.turn.other();
        let their_king = position
            .board
            .king_of(them)
            .expect("checked: one king a side");
        if position
            .attackers_to(their_king, position.turn, position.board.occupied())
            .any()
        {
            return Err(SetupError::in_field(
                1,
                format!(
                    "the side not to move is in check (the {} king on {their_king})",
                    them.name().to_ascii_lowercase()
                ),
            ));
        }
        Ok(position)
    }

    /// The position as an unvalidated setup (for editing, or writing a FEN).
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            turn: self.turn,
            castling: self.castling,
            ep_square: self.ep_square,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
        }
    }

    /// The pieces.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The castling rights still held.
    #[must_use]
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The square a pawn skipped on the last move, as FEN records it (whether or not a
    /// capture en passant is possible).
    #[must_use]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// The en passant square only when a capture en passant is legal: what makes two
    /// positions differ for repetition under the FIDE Laws.
    #[must_use]
    #[inline]
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let capturers =
            attacks::pawn(self.turn.other(), ep) & self.board.by_piece(self.turn, Role::Pawn);
        if capturers.is_empty() {
            return None;
        }
        self.ep_capture_is_legal(ep, capturers).then_some(ep)
    }

    /// Whether one of `capturers` may legally take en passant on `ep` (it may be pinned,
    /// or the capture may open a line to its king).
    #[inline(never)]
    fn ep_capture_is_legal(&self, ep: Square, capturers: Bitboard) -> bool {
        let mut moves = movegen::TargetList::new();
        self.generate(capturers, Bitboard::from_square(ep), &mut moves);
        moves.iter().any(|m| m.kind == MoveKind::EnPassant)
    }

    /// Half-moves since the last capture or pawn move.
    #[must_use]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// Whether the side to move is in check.
    #[must_use]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Every legal move, in a list on the stack.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        self.generate_all(&mut moves);
        moves
    }

    /// Whether the side to move has no legal move at all.
    #[must_use]
    pub fn has_no_legal_move(&self) -> bool {
        // The king's moves first: they are few, and usually there is one.
        let mut king_moves = movegen::TargetList::new();
        self.generate(
            Bitboard::from_square(self.our_king()),
            Bitboard::ALL,
            &mut king_moves,
        );
        king_moves.is_empty() && self.legal_moves().is_empty()
    }

    /// Whether the side to move is checkmated.
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && self.has_no_legal_move()
    }

    /// Whether the side to move is stalemated.
    #[must_use]
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && self.has_no_legal_move()
    }

    /// Whether neither side can ever checkmate, by the cases that are cheap to see: only
    /// kings, a single minor piece, or bishops that all stand on squares of one colour
    /// (of either side). Other dead positions (blocked pawn walls) are not detected.
    #[must_use]
    pub fn is_insufficient_material(&self) -> bool {
        let b = &self.board;
        if (b.by_role(Role::Pawn) | b.rooks_and_queens()).any() {
            return false;
        }
        let knights = b.by_role(Role::Knight);
        let bishops = b.by_role(Role::Bishop);
        if (knights | bishops).count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::DARK_SQUARES).is_empty()
                || (bishops & !Bitboard::DARK_SQUARES).is_empty())
    }

    /// What [`Game::annotation_mismatch`] says about a marker that is not a plain `+` in
    /// check: a `+` without check, or a `#` without check or with a legal move.
    #[cold]
    #[inline(never)]
    fn marker_mismatch(&self, marker: CheckMarker) -> Option<String> {
        let side = self.turn.name();
        match marker {
            CheckMarker::None => None,
            CheckMarker::Check if !self.is_check() => {
                Some(format!("claims check but {side} is not in check"))
            }
            CheckMarker::Check => None,
            CheckMarker::Mate if !self.is_check() => {
                Some(format!("claims mate but {side} is not in check"))
            }
            CheckMarker::Mate => {
                let moves = self.legal_moves();
                let example = moves.first()?;
                Some(format!(
                    "claims mate but {side} has legal moves, e.g. {}",
                    self.write_turn(example)
                ))
            }
        }
    }

    /// Leaf count `depth` moves deep, with the last level counted from the size of the
    /// move list instead of played out.
    fn perft_from(&self, depth: u32) -> u64 {
        let mut moves = MoveList::new();
        self.generate_all(&mut moves);
        if depth <= 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|m| {
                let mut next = self.clone();
                next.play_move(m);
                next.perft_from(depth - 1)
            })
            .sum()
    }
}

impl Game for Chess {
    type Turn = Move;
    type Syntax = San;

    const PIECE_KINDS: &'static [PieceKind] = &CHESS_KINDS;
    // A move is its origin, its destination and its promotion, all seen on the board.
    const BOARD_TELLS_TURN: bool = true;

    const VARIANT: Variant = Variant::Chess;
    const REPETITION: RepetitionRule = RepetitionRule::Draw {
        claim: 3,
        automatic: Some(5),
    };
    const FIFTY_MOVE_CLAIM: bool = true;

    fn start() -> Chess {
        // Checked once: a replay of many games starts each from here.
        static START: std::sync::OnceLock<Chess> = std::sync::OnceLock::new();
        START
            .get_or_init(|| {
                Chess::from_setup(Setup::default()).expect("the standard start is valid")
            })
            .clone()
    }

    fn from_position_string(text: &str) -> Result<Chess, SetupError> {
        Setup::from_fen(text)?.validate()
    }

    fn position_string(&self) -> String {
        self.to_setup().fen()
    }

    fn diagram(&self) -> String {
        let mut out = String::with_capacity(200);
        for rank in (0..8).rev() {
            let _ = write!(out, "{} ", rank + 1);
            for file in 0..8 {
                let square = Square::from_coords(file, rank);
                out.push(self.board.piece_at(square).map_or('.', Piece::char));
                out.push(if file < 7 { ' ' } else { '\n' });
            }
        }
        out.push_str("  a b c d e f g h\n");
        out
    }

    fn side_to_move(&self) -> Color {
        self.turn
    }

    fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    fn snapshot(&self) -> Option<Snapshot> {
        let mut snapshot = Snapshot::new(Stacking::Single, square_names());
        for (square, piece) in self.board.pieces() {
            snapshot.places[square.index()]
                .pieces
                .push(chess_man(piece));
        }
        Some(snapshot)
    }

    fn legal_turns(&self, out: &mut Vec<Move>) {
        out.extend_from_slice(&self.legal_moves());
    }

    fn parse_turn(token: &str) -> Result<San, TurnSyntaxError> {
        San::parse(token)
    }

    fn resolve(&self, syntax: &San) -> Result<Move, IllegalTurn> {
        san::resolve(self, syntax)
    }

    fn write_turn(&self, turn: &Move) -> String {
        san::write(self, turn)
    }

    fn play(&mut self, turn: &Move) {
        self.play_move(turn);
    }

    /// Checkmate and stalemate first (a mate on the 150th half-move still wins), then the
    /// seventy-five-move rule, then insufficient material.
    fn outcome(&self) -> Option<Outcome> {
        if self.has_no_legal_move() {
            return Some(if self.is_check() {
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
        if self.halfmove_clock >= 150 {
            return Some(Outcome::Draw {
                reason: DrawReason::SeventyFiveMoves,
            });
        }
        if self.is_insufficient_material() {
            return Some(Outcome::Draw {
                reason: DrawReason::InsufficientMaterial,
            });
        }
        None
    }

    /// With a legal move on the board only the move-count rule and a dead position can
    /// have ended the game (mate on the 150th half-move is excluded: there is a move).
    fn outcome_with_legal_turn(&self) -> Option<Outcome> {
        if self.halfmove_clock >= 150 {
            return Some(Outcome::Draw {
                reason: DrawReason::SeventyFiveMoves,
            });
        }
        self.is_insufficient_material().then_some(Outcome::Draw {
            reason: DrawReason::InsufficientMaterial,
        })
    }

    fn claimable_draw(&self) -> Option<DrawReason> {
        (self.halfmove_clock >= 100).then_some(DrawReason::FiftyMoves)
    }

    #[inline]
    fn repetition_key(&self) -> u64 {
        zobrist::hash(self)
    }

    /// The common cases (no marker, a true `+`) inline; the rest, which may write a
    /// message or look for a legal move, apart.
    #[inline]
    fn annotation_mismatch(&self, syntax: &San) -> Option<String> {
        match syntax.marker {
            CheckMarker::None => None,
            CheckMarker::Check if self.is_check() => None,
            marker => self.marker_mismatch(marker),
        }
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.perft_from(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Chess {
        Chess::from_position_string(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    #[test]
    fn perft_of_the_classic_positions() {
        let cases: [(&str, &[u64]); 3] = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &[20, 400, 8902, 197_281],
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                &[48, 2039, 97_862],
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                &[14, 191, 2812, 43_238],
            ),
        ];
        for (fen, counts) in cases {
            let p = position(fen);
            for (depth, &expected) in (1..).zip(counts) {
                assert_eq!(p.perft(depth), expected, "{fen} depth {depth}");
            }
        }
    }

    #[test]
    fn fen_round_trips() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 12 40",
            "8/8/8/8/8/8/8/K6k b - - 99 120",
        ] {
            assert_eq!(position(fen).position_string(), fen);
        }
    }

    #[test]
    fn fen_reading_is_lenient_about_counters_and_spaces() {
        let p = position("  4k3/8/8/8/8/8/8/4K3   b  -  - ");
        assert_eq!(p.position_string(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
        let p = position("4k3/8/8/8/8/8/8/4K3 w - - 7");
        assert_eq!(p.position_string(), "4k3/8/8/8/8/8/8/4K3 w - - 7 1");
        assert_eq!(p.fullmove_number(), 1);
    }

    #[test]
    fn setup_errors_are_precise() {
        let cases = [
            ("", "empty position string"),
            ("8/8/8/8/8/8/8/8 w", "missing field 3 (castling)"),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
                "unexpected text after field 6: 'extra'",
            ),
            (
                "4k3/8/8/8/8/8/4K3 w - - 0 1",
                "bad field 1 (piece placement): expected 8 ranks, found 7",
            ),
            (
                "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
                "bad field 1 (piece placement): rank 1 has 9 squares instead of 8",
            ),
            (
                "4k3/8/8/8/8/8/8/4X3 w - - 0 1",
                "bad field 1 (piece placement): unknown piece letter 'X'",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
                "bad field 2 (side to move): expected 'w' or 'b', found 'x'",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w KX - 0 1",
                "bad field 3 (castling): unexpected 'X' (expected KQkq or -)",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - e9 0 1",
                "bad field 4 (en passant): 'e9' is not a square",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - x 1",
                "bad field 5 (halfmove clock): 'x' is not a number",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 -1",
                "bad field 6 (fullmove number): '-1' is not a number",
            ),
            ("8/8/8/8/8/8/8/4K3 w - - 0 1", "missing black king"),
            ("4k3/8/8/8/8/8/8/4KK2 w - - 0 1", "two white kings"),
            (
                "4k3/8/8/8/8/8/8/3PK3 w - - 0 1",
                "pawn on the back rank at d1",
            ),
            (
                "4k3/8/8/8/8/8/8/4K2r b - - 0 1",
                "the side not to move is in check (the white king on e1)",
            ),
            (
                "4k3/8/8/8/8/8/8/3K3R w K - 0 1",
                "castling right 'K' without the white king on e1",
            ),
            (
                "4k2r/8/8/8/8/8/8/4K3 w q - 0 1",
                "castling right 'q' without a black rook on a8",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
                "impossible en passant square e3: with white to move it must be on rank 6",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
                "impossible en passant square e6: no black pawn on e5",
            ),
            (
                "4k3/4n3/8/4p3/8/8/8/4K3 w - e6 0 1",
                "impossible en passant square e6: e6 and e7 must be empty",
            ),
        ];
        for (fen, message) in cases {
            assert_eq!(
                Chess::from_position_string(fen).map_err(|error| error.message),
                Err(message.to_owned()),
                "{fen}"
            );
        }
    }

    /// Tag pairs for `from_tags` (the slice impl of `Tags` is unsized, so it cannot be
    /// passed as `&dyn Tags` directly).
    struct TagList(Vec<(&'static str, &'static str)>);

    impl crate::games::Tags for TagList {
        fn tag(&self, name: &str) -> Option<&str> {
            self.0.as_slice().tag(name)
        }
    }

    #[test]
    fn tags_choose_the_start() {
        let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
        let from = |tags: Vec<(&'static str, &'static str)>| Chess::from_tags(&TagList(tags));
        assert_eq!(
            from(vec![("SetUp", "1"), ("FEN", fen)])
                .unwrap()
                .position_string(),
            fen
        );
        assert_eq!(from(vec![("FEN", fen)]).unwrap().position_string(), fen);
        assert_eq!(
            from(vec![("SetUp", "1")]),
            Err(SetupError::new(
                "the setup tag is \"1\" but there is no fen tag"
            ))
        );
        assert_eq!(from(vec![("Event", "x")]).unwrap(), Chess::start());
        assert_eq!(
            from(vec![("FEN", "8/8/8/8/8/8/8/8 w - - 0 1")]),
            Err(SetupError::in_field(1, "missing white king"))
        );
    }

    fn play_tokens(position: &mut Chess, tokens: &str) {
        for token in tokens.split_whitespace() {
            let san = Chess::parse_turn(token).unwrap();
            let m = position
                .resolve(&san)
                .unwrap_or_else(|e| panic!("{token}: {e}"));
            position.play(&m);
        }
    }

    #[test]
    fn play_keeps_rights_clocks_and_en_passant() {
        let mut p = Chess::start();
        play_tokens(&mut p, "e4 Nf6 e5 d5");
        assert_eq!(
            p.position_string(),
            "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
        );
        play_tokens(&mut p, "exd6 Nc6 Nf3 Bg4 Be2 Qd7 O-O O-O-O");
        assert_eq!(
            p.position_string(),
            "2kr1b1r/pppqpppp/2nP1n2/8/6b1/5N2/PPPPBPPP/RNBQ1RK1 w - - 7 7"
        );
        // Capturing a rook on its home square takes the right with it.
        let mut p = position("r3k2r/8/8/8/8/8/6B1/R3K2R w KQkq - 0 1");
        play_tokens(&mut p, "Bxa8");
        assert_eq!(p.position_string(), "B3k2r/8/8/8/8/8/8/R3K2R b KQk - 0 1");
        play_tokens(&mut p, "Rh2");
        assert_eq!(p.castling_rights(), {
            let mut rights = CastlingRights::NONE;
            rights.set(Color::White, CastlingSide::KingSide, true);
            rights.set(Color::White, CastlingSide::QueenSide, true);
            rights
        });
        let mut p = position("4k3/1P6/8/8/8/8/8/4K3 w - - 5 1");
        play_tokens(&mut p, "b8=N");
        assert_eq!(p.position_string(), "1N2k3/8/8/8/8/8/8/4K3 b - - 0 1");
    }

    #[test]
    fn en_passant_discovered_along_the_rank_is_not_generated() {
        // align-ep-pinned from the tricky perft set: exd6 would expose the king.
        let p = position("1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1");
        assert!(
            p.legal_moves()
                .iter()
                .all(|m| m.kind != MoveKind::EnPassant)
        );
        assert_eq!(p.legal_ep_square(), None);
    }

    #[test]
    fn repetition_key_counts_en_passant_only_when_legal() {
        // After 1.e4 no black pawn can take en passant: the key equals the one of the
        // same placement without the square.
        let mut p = Chess::start();
        play_tokens(&mut p, "e4");
        let without = position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(p.ep_square(), Square::from_name("e3"));
        assert_eq!(p.repetition_key(), without.repetition_key());
        // Here exd6 is legal, so the square matters.
        let with = position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        let plain = position("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2");
        assert_ne!(with.repetition_key(), plain.repetition_key());
        // Counters do not; side to move and castling rights do.
        let later = position("4k3/8/8/3pP3/8/8/8/4K3 w - - 30 40");
        assert_eq!(plain.repetition_key(), later.repetition_key());
        let black = position("4k3/8/8/3pP3/8/8/8/4K3 b - - 0 2");
        assert_ne!(plain.repetition_key(), black.repetition_key());
        let rights = position("r3k3/8/8/8/8/8/8/4K3 w q - 0 1");
        let no_rights = position("r3k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_ne!(rights.repetition_key(), no_rights.repetition_key());
    }

    #[test]
    fn knight_shuffle_repeats_the_start_key() {
        let mut p = Chess::start();
        let start_key = p.repetition_key();
        play_tokens(&mut p, "Nf3 Nf6 Ng1 Ng8");
        assert_eq!(p.repetition_key(), start_key);
        assert_ne!(p, Chess::start(), "the counters differ");
    }

    #[test]
    fn outcomes() {
        let mate = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert_eq!(
            mate.outcome(),
            Some(Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Checkmate
            })
        );
        assert!(mate.is_checkmate());
        let stalemate = position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(
            stalemate.outcome(),
            Some(Outcome::Draw {
                reason: DrawReason::Stalemate
            })
        );
        let seventy_five = position("4k3/8/8/8/8/8/8/R3K3 w - - 150 100");
        assert_eq!(
            seventy_five.outcome(),
            Some(Outcome::Draw {
                reason: DrawReason::SeventyFiveMoves
            })
        );
        let mate_at_150 = position("R3k3/8/4K3/8/8/8/8/8 b - - 150 100");
        assert_eq!(
            mate_at_150.outcome(),
            Some(Outcome::Win {
                winner: Color::White,
                reason: WinReason::Checkmate
            })
        );
        let fifty = position("4k3/8/8/8/8/8/8/R3K3 w - - 100 100");
        assert_eq!(fifty.outcome(), None);
        assert_eq!(fifty.claimable_draw(), Some(DrawReason::FiftyMoves));
        assert_eq!(
            position("4k3/8/8/8/8/8/8/R3K3 w - - 99 100").claimable_draw(),
            None
        );
    }

    #[test]
    fn insufficient_material() {
        let dead = [
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/4KN2 w - - 0 1",
            "4kb2/8/8/8/8/8/8/4K3 w - - 0 1",
            // Bishops on light squares only (f1, c8, h3), of both sides.
            "2b1k3/8/8/8/8/7B/8/4KB2 w - - 0 1",
        ];
        let alive = [
            "4k3/8/8/8/8/8/8/4KNN1 w - - 0 1",
            "4kn2/8/8/8/8/8/8/4KN2 w - - 0 1",
            "4kb2/8/8/8/8/8/8/4KB2 w - - 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
            "4kn2/8/8/8/8/8/8/4KB2 w - - 0 1",
        ];
        for fen in dead {
            assert!(position(fen).is_insufficient_material(), "{fen}");
            assert_eq!(
                position(fen).outcome(),
                Some(Outcome::Draw {
                    reason: DrawReason::InsufficientMaterial
                })
            );
        }
        for fen in alive {
            assert!(!position(fen).is_insufficient_material(), "{fen}");
        }
    }

    #[test]
    fn annotation_mismatches() {
        let mut p = Chess::start();
        play_tokens(&mut p, "e4");
        let claim = |token: &str| Chess::parse_turn(token).unwrap();
        assert_eq!(p.annotation_mismatch(&claim("e4")), None);
        assert_eq!(
            p.annotation_mismatch(&claim("e4+")),
            Some("claims check but Black is not in check".to_owned())
        );
        assert_eq!(
            p.annotation_mismatch(&claim("e4#")),
            Some("claims mate but Black is not in check".to_owned())
        );
        let check = position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        let m = check.resolve(&claim("Ra8#")).unwrap();
        let mut after = check.clone();
        after.play(&m);
        assert_eq!(after.annotation_mismatch(&claim("Ra8+")), None);
        assert_eq!(
            after.annotation_mismatch(&claim("Ra8#")),
            Some("claims mate but Black has legal moves, e.g. Kd7".to_owned())
        );
        let mated = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert_eq!(mated.annotation_mismatch(&claim("Qh4#")), None);
        assert_eq!(mated.annotation_mismatch(&claim("Qh4")), None);
    }

    #[test]
    fn diagram_shows_ranks_and_files() {
        let expected = "\
8 r n b q k b n r
7 p p p p p p p p
6 . . . . . . . .
5 . . . . . . . .
4 . . . . . . . .
3 . . . . . . . .
2 P P P P P P P P
1 R N B Q K B N R
  a b c d e f g h
";
        assert_eq!(Chess::start().diagram(), expected);
    }

    #[test]
    fn legal_turns_appends_to_the_callers_vector() {
        let mut out = vec![];
        Chess::start().legal_turns(&mut out);
        assert_eq!(out.len(), 20);
        let ucis: Vec<String> = out.iter().map(Move::uci).collect();
        assert!(ucis.contains(&"g1f3".to_owned()));
        assert!(ucis.contains(&"e2e4".to_owned()));
    }
}
