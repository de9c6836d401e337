use super::read::parse_plain;
use super::resolve::{choose, resolve_unique};
use super::*;
use crate::games::Game;
use crate::games::{IllegalKind, IllegalTurn, TurnSyntaxError};

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
    let mut fast = 0;
    for fen in fens {
        let mut position =
            Chess::from_position_string(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for ply in 0..12usize {
            for role in Role::ALL {
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
                    let quick = resolve_unique(&position, role, from_mask, capture, to, promotion);
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
