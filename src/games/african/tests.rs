//! Unit tests of the pieces the scenario table (`tests/data/african/scenarios.txt`) does
//! not reach: the token's own spelling, the repetition key and the diagram.

use super::*;

#[test]
fn tokens_read_and_write_back_in_one_spelling() {
    let cases = [
        ("e2-e3", "e2-e3"),
        ("e2e3", "e2-e3"),
        ("e2xe3", "e2xe3"),
        ("Te1-e2", "Te1-e2"),
        ("Te1xe2+", "Te1xe2+"),
        ("d2N", "d2N"),
        ("d2NE", "d2NE"),
        ("e1N=e3", "e1N=e3"),
        ("e1NW=d2xd2xc3#", "e1NW=d2xd2xc3#"),
    ];
    for (token, written) in cases {
        let notation = African::parse_turn(token).unwrap_or_else(|e| panic!("{token}: {e}"));
        assert_eq!(notation.to_string(), written, "{token}");
        assert_eq!(African::parse_turn(written), Ok(notation), "{written}");
    }
}

#[test]
fn syntax_errors_point_into_the_token() {
    let error = African::parse_turn("e2-z9").unwrap_err();
    assert_eq!(error.offset, 3);
    assert_eq!(error.message, "unexpected character 'z'");
    assert_eq!(African::parse_turn("").unwrap_err().message, "empty turn");
    assert_eq!(African::parse_turn("d2Q").unwrap_err().offset, 2);
    assert_eq!(African::parse_turn("d2N+x").unwrap_err().offset, 4);
}

#[test]
fn the_repetition_key_is_the_placement_and_the_side_to_move() {
    let white = African::from_position_string("4t3/8/8/8/8/8/8/(TP)7 w 1").unwrap();
    let later = African::from_position_string("4t3/8/8/8/8/8/8/(TP)7 w 30").unwrap();
    let black = African::from_position_string("4t3/8/8/8/8/8/8/(TP)7 b 1").unwrap();
    let moved = African::from_position_string("4t3/8/8/8/8/8/P7/T7 w 1").unwrap();
    assert_eq!(white.repetition_key(), later.repetition_key());
    assert_ne!(white.repetition_key(), black.repetition_key());
    assert_ne!(white.repetition_key(), moved.repetition_key());
}

#[test]
fn the_diagram_writes_every_stone() {
    let p = African::from_position_string("4t3/8/8/8/3(PPpp)4/8/8/(TP)7 w 1").unwrap();
    let expected = "\
8 .    .    .    .    t    .    .    .
7 .    .    .    .    .    .    .    .
6 .    .    .    .    .    .    .    .
5 .    .    .    .    .    .    .    .
4 .    .    .    PPpp .    .    .    .
3 .    .    .    .    .    .    .    .
2 .    .    .    .    .    .    .    .
1 TP   .    .    .    .    .    .    .
  a    b    c    d    e    f    g    h
";
    assert_eq!(p.diagram(), expected);
}

#[test]
fn the_start_is_the_page_setup() {
    let start = African::start();
    assert_eq!(
        start.position_string(),
        "pppptppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPTPPP w 1"
    );
    assert_eq!(start.stone_count(Color::White), 16);
    assert_eq!(start.stone_count(Color::Black), 16);
    assert!(!start.is_guarded());
    assert!(start.has_legal_turn());
}

/// The legal turns by the plain definition: every turn made on a copy of the board, kept
/// when it neither takes the enemy touchstone nor leaves the mover's guarded (each
/// touchstone place of a sowing once, by its first order), for [`African::generate`] to
/// agree with.
fn plain_legal_turns(position: &African) -> Vec<Turn> {
    let color = position.turn;
    let mut out = Vec::new();
    for index in 0..64u8 {
        let from = Square::new(index);
        let mut candidates = Vec::new();
        for direction in Direction::ALL {
            for touchstone in [false, true] {
                if let Some(to) = direction.walk(from, 1) {
                    candidates.push(Turn::step(from, to, touchstone));
                }
            }
        }
        for direction in Direction::ALL {
            let mut seen = Vec::new();
            for order in 0..position.board[from.index()].stones(color).max(1) {
                let turn = Turn::sow(from, direction, order);
                if let Ok(applied) = apply(&position.board, color, &turn)
                    && !seen.contains(&applied.touchstone)
                {
                    seen.push(applied.touchstone);
                    candidates.push(turn);
                }
            }
        }
        for turn in candidates {
            let Ok(applied) = apply(&position.board, color, &turn) else {
                continue;
            };
            if applied.takes_touchstone || is_guarded(&applied.board, color) {
                continue;
            }
            out.push(turn.landing_touchstone(applied.touchstone));
        }
    }
    out
}

/// Generation (a single stone's step judged without making it, the guard worked out
/// again only when the turn can change it) and perft's count of the last level agree
/// with the plain definition along seeded random games.
#[test]
fn generation_agrees_with_the_plain_definition_along_random_games() {
    let starts = [
        "pppptppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPTPPP w 1",
        "4t3/8/2(pp)(PP)(pp)3/2(Pp)(TPpp)(pp)3/2(PPp)(pP)(PPP)3/8/8/8 w 1",
        "(pppp)1(ppp)1(tpp)1(pp)1/pppp4/8/8/8/8/4PPPP/1(PP)1(TPP)1(PPP)1(PPPP) w 1",
        "8/8/8/3(tpp)4/3P4/8/8/T7 b 1",
    ];
    let mut state = 17u64;
    let mut positions = 0;
    for start in starts {
        for _game in 0..12 {
            let mut position = African::from_position_string(start).unwrap();
            for _ply in 0..120 {
                let mut turns = Vec::new();
                position.generate(None, &mut turns);
                let expected = plain_legal_turns(&position);
                assert_eq!(turns, expected, "{}", position.position_string());
                assert_eq!(position.perft(1), turns.len() as u64);
                positions += 1;
                if turns.is_empty() {
                    break;
                }
                state = splitmix(state);
                let turn = turns[(state % turns.len() as u64) as usize];
                position.play(&turn);
            }
        }
    }
    assert!(positions > 1000, "{positions} positions");
}

/// A side whose stone could step onto the enemy touchstone cannot arise in play (the
/// enemy's last turn would have left it guarded) nor be set up, but generation still
/// agrees with the plain definition there: the step is not a turn.
#[test]
fn a_step_onto_the_enemy_touchstone_is_not_a_turn_even_where_it_cannot_arise() {
    let d5 = Square::from_name("d5").unwrap();
    for placement in ["8/8/8/3t4/3P4/8/8/T7", "8/8/8/3(tp)4/4P3/8/8/T7"] {
        let position = African {
            board: board::read_placement(placement).unwrap(),
            turn: Color::White,
            fullmove_number: 1,
        };
        let mut turns = Vec::new();
        position.generate(None, &mut turns);
        assert_eq!(turns, plain_legal_turns(&position), "{placement}");
        assert_eq!(turns.len(), 10, "{placement}");
        assert!(
            turns
                .iter()
                .all(|turn| !matches!(turn.kind(), TurnKind::Step { to, .. } if to == d5)),
            "{placement}"
        );
    }
}

/// A stray `)` after a full rank (found by the `validate` fuzz target) is an error, not a
/// panic.
#[test]
fn a_stray_parenthesis_after_a_full_rank_is_refused() {
    for placement in ["8)/8/8/8/8/8/8/8", "8/8/8/8/8/8/8/7w)"] {
        assert!(
            super::board::read_placement(placement).is_err(),
            "{placement}"
        );
    }
}
