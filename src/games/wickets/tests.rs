//! Unit tests of the places and the start.

use super::board::LocSet;
use super::*;

#[test]
fn the_start_has_the_orthodox_twenty_turns_and_the_defender_entering_its_wicket() {
    let mut turns = Vec::new();
    Wickets::start().legal_turns(&mut turns);
    assert_eq!(turns.len(), 21);
}

#[test]
fn wickets_join_the_board_as_e0_and_e9() {
    assert_eq!(Loc::W0.step((-1, 1)), Loc::from_name("d1"));
    assert_eq!(Loc::W0.step((0, 1)), Loc::from_name("e1"));
    assert_eq!(Loc::W9.step((1, -1)), Loc::from_name("f8"));
    assert_eq!(Loc::W0.step((1, 0)), None);
    assert_eq!(
        Loc::from_name("c1").and_then(|l| l.step((2, -1))),
        Some(Loc::W0)
    );
    assert_eq!(Loc::W0.rank_char(), '0');
    assert_eq!(Loc::W9.rank_char(), '9');
}

/// The next number of a small seeded generator (splitmix64), for random games.
fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The start in every decision mode and positions of the scenario table (pins, a king in
/// a wicket, loose Balls, castling, no Defender, a Ball-haver to take).
fn random_game_starts() -> Vec<Wickets> {
    let mut starts: Vec<Wickets> = DecisionMode::ALL.map(Wickets::start_with).to_vec();
    for text in [
        "2q1k3/8/8/R7/1p6/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "8/8/8/4r3/8/8/Q7/7k w - - -,K w9,h1 a2,e5 det 0 1",
        "7k/8/8/1K1n1r2/8/8/4R3/8 w - - -,- e2,h8 b5,d5 dice 0 1",
        "7k/8/4N3/2B5/4r3/8/PPP5/K7 w - - -,- c5,h8 a1,e4 dice2 0 1",
        "7k/8/8/8/1o6/8/5O2/5NK1 w - - -,- -,- g1,h8 det 0 1",
        "k7/R7/8/8/8/8/8/6K1 b - - -,- g1,a8 a7,- det 0 1",
        "k2n4/p7/8/8/8/8/7P/3R2K1 w - - -,- g1,d8 h2,a7 det 0 1",
        "r3k3/8/8/8/8/8/8/R2QK2R w KQ - -,- e1,e8 d1,a8 det 0 1",
        "rn3b1r/2k1o1p1/2ppp2N/p7/2b1P3/1P3KPB/2PP1n1P/R1BQ3R b - - -,q -,c4 d1,w9 cards 0 19",
        "3qk3/8/2n5/8/B7/8/8/3QK3 w - - -,- e1,c6 d1,d8 det 0 1",
    ] {
        starts.push(Wickets::from_position_string(text).unwrap());
    }
    starts
}

/// Calls `check` on every position of ten seeded random games of up to 100 turns from
/// each of [`random_game_starts`], with the position's legal turns; returns how many
/// positions it saw.
fn along_random_games(mut check: impl FnMut(&Wickets, &[Turn])) -> usize {
    let mut state = 29u64;
    let mut positions = 0;
    for start in &random_game_starts() {
        for _game in 0..10 {
            let mut position = start.clone();
            for _ply in 0..100 {
                let mut turns = Vec::new();
                position.legal_turns(&mut turns);
                check(&position, &turns);
                positions += 1;
                if turns.is_empty() || position.outcome().is_some() {
                    break;
                }
                state = splitmix(state);
                let turn = &turns[(state % turns.len() as u64) as usize];
                position.play(turn);
            }
        }
    }
    positions
}

/// The shortcut of generation (a move that cannot expose the king is kept without
/// playing it) gives the very turns, in the very order, that trying every move on the
/// board gives, along seeded random games.
#[test]
fn generation_agrees_with_the_plain_definition_along_random_games() {
    let positions = along_random_games(|position, turns| {
        let mut expected = Vec::new();
        position.generate_with(true, false, &mut expected);
        assert_eq!(turns, expected, "{}", position.position_string());
    });
    assert!(positions > 5000, "{positions} positions");
}

/// The moves before king safety as their plain definition: every place a piece reaches
/// ([`Wickets::reaches_wicket`] asked from every square), each given to `move_kind`.
fn pseudo_moves_plainly(position: &Wickets, strict: bool) -> Vec<Move> {
    let mut out = Vec::new();
    let mut push = |m: Move| out.push(m);
    let occ = position.occupied();
    let us = position.side_to_move();
    let mine: Vec<Loc> = position.locs_of(us).collect();
    for from in mine {
        let piece = position.piece_at(from).unwrap();
        let mut targets = LocSet::default();
        match from.as_square() {
            Some(square) => {
                targets.insert_squares(movegen::board_targets(square, piece, occ));
                for wicket in [Loc::W0, Loc::W9] {
                    if position.reaches_wicket(square, piece, wicket) {
                        targets.insert(wicket);
                    }
                }
            }
            None => position.targets_into(from, piece, occ, &mut targets),
        }
        if piece.role == Role::Pawn {
            position.pawn_moves(from, targets, &mut push);
            continue;
        }
        for to in targets {
            if let Some(kind) = position.move_kind(from, to, strict) {
                push(Move {
                    from,
                    to,
                    role: piece.role,
                    promotion: None,
                    kind,
                });
            }
        }
    }
    position.castling_moves(&mut push);
    out
}

/// The move generator (which asks about the wickets only from squares whose geometry
/// allows a piece there to reach one, and classes empty board squares without asking)
/// and the attack test on the wickets give what their plain definitions give, and
/// counting the last level of perft gives the number of legal turns, along seeded random
/// games.
#[test]
fn moves_attacks_and_counts_agree_with_the_plain_definitions_along_random_games() {
    let mut wicket_moves = 0;
    let mut wicket_attacks = 0;
    let positions = along_random_games(|position, turns| {
        let text = position.position_string();
        for strict in [true, false] {
            let mut moves = Vec::new();
            position.pseudo_moves(strict, &mut moves);
            assert_eq!(moves, pseudo_moves_plainly(position, strict), "{text}");
            wicket_moves += moves.iter().filter(|m| m.to.is_wicket()).count();
        }
        for wicket in [Loc::W0, Loc::W9] {
            for by in [Color::White, Color::Black] {
                let mut pieces = position.board.by_color(by);
                let plain = Iterator::any(&mut pieces, |square| {
                    let piece = position.piece_at(Loc::square(square)).unwrap();
                    position.reaches_wicket(square, piece, wicket)
                });
                assert_eq!(position.attacked(wicket, by), plain, "{text} {wicket}");
                wicket_attacks += usize::from(plain);
            }
        }
        assert_eq!(position.perft(1), turns.len() as u64, "{text}");
    });
    assert!(positions > 5000, "{positions} positions");
    assert!(
        wicket_moves > 1000 && wicket_attacks > 1000,
        "{wicket_moves} {wicket_attacks}"
    );
}

/// No piece reaches a wicket from outside [`board::WICKET_REACH`], even on a board where
/// nothing stands in the way.
#[test]
fn no_piece_reaches_a_wicket_from_outside_its_reach() {
    let mut empty = Wickets::start();
    empty.board = Board::empty();
    let mut reached = 0;
    for wicket in [Loc::W0, Loc::W9] {
        for index in 0..64 {
            let square = Square::new(index);
            for color in [Color::White, Color::Black] {
                for role in Role::ALL {
                    let piece = Piece { color, role };
                    if empty.reaches_wicket(square, piece, wicket) {
                        reached += 1;
                        assert!(
                            board::may_reach_wicket(square, piece, wicket),
                            "{piece:?} on {square} reaches {wicket}"
                        );
                    }
                }
            }
        }
    }
    assert!(reached > 40, "{reached}");
}

/// A run of digits in a rank longer than the board is refused, not counted past the
/// largest file number (a fuzz finding: it overflowed).
#[test]
fn a_long_run_of_digits_in_a_rank_is_refused() {
    let start = Wickets::start().position_string();
    let (placement, rest) = start.split_once('/').unwrap();
    assert!(!placement.is_empty());
    let text = format!("{}/{rest}", "9".repeat(40));
    let error = Wickets::from_position_string(&text).unwrap_err();
    assert!(error.to_string().contains("rank 8"), "{error}");
}
