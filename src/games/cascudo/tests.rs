//! Unit tests of what the scenario table (`tests/data/cascudo/scenarios.txt`) does not
//! reach: the token's own spelling, syntax error offsets, the repetition key, the check
//! markers, the diagram, and check by cascade against playing out every chain.

use super::*;

#[test]
fn tokens_read_and_write_back_in_one_spelling() {
    let cases = [
        ("Ke1-d2-c4", "Ke1-d2-c4"),
        ("e1-d2-c4", "e1-d2-c4"),
        ("Ke1-d2:d2-c4", "Ke1-d2:d2-c4"),
        ("Ke1-d2:Bd2xc4", "Ke1-d2:Bd2xc4"),
        ("d7-d8=Q-d7+", "d7-d8=Q-d7+"),
        ("Rd8-d7-d8=N#", "Rd8-d7-d8=N#"),
        ("Pa2-a3xb4", "Pa2-a3xb4"),
    ];
    for (token, written) in cases {
        let notation = Cascudo::parse_turn(token).unwrap_or_else(|e| panic!("{token}: {e}"));
        assert_eq!(notation.to_string(), written, "{token}");
        assert_eq!(Cascudo::parse_turn(written), Ok(notation), "{written}");
    }
    let long = Cascudo::parse_turn("Ke1-d2:Bd2-c4").unwrap();
    let short = Cascudo::parse_turn("Ke1-d2-c4").unwrap();
    assert_eq!(long.cells(), short.cells());
    assert_eq!(long.cells().len(), 3);
    let promotion = Cascudo::parse_turn("d7-d8=Q-d7").unwrap();
    assert_eq!(promotion.promotions(), [Some(Role::Queen), None]);
}

#[test]
fn syntax_errors_point_into_the_token() {
    let cases = [
        ("", 0, "empty turn"),
        ("Ke1", 3, "expected '-' or 'x' and a cell after the origin"),
        ("Ke1-d9", 4, "d9 is not a cell of the board"),
        ("Ke1-d2=K", 7, "a pawn cannot promote to a king"),
        ("Ke1-d2=", 7, "expected Q, R, B or N after '='"),
        (
            "Ke1-d2:c3-c4",
            7,
            "a link starts where the previous one ended, on d2, not on c3",
        ),
        ("Ke1xd2-c3", 6, "only the last move of a cascade captures"),
        ("Ke1-d2-c3#+", 10, "unexpected '+' after the check marker"),
        ("Ke1*d2", 3, "unexpected character '*'"),
        ("Ke1-", 4, "expected a cell at the end"),
    ];
    for (token, offset, message) in cases {
        let error = Cascudo::parse_turn(token).unwrap_err();
        assert_eq!(error.offset, offset, "{token}: {error}");
        assert!(error.message.contains(message), "{token}: {error}");
    }
}

#[test]
fn the_repetition_key_is_the_placement_and_the_side_to_move() {
    let key = |text: &str| {
        Cascudo::from_position_string(text)
            .unwrap()
            .repetition_key()
    };
    let white = key("1/2k/r4/7/1r5/3R3/7/K2R3 w 0 1");
    assert_eq!(white, key("1/2k/r4/7/1r5/3R3/7/K2R3 w 17 30"));
    assert_ne!(white, key("1/2k/r4/7/1r5/3R3/7/K2R3 b 0 1"));
    assert_ne!(white, key("1/2k/r4/7/1r5/3Q3/7/K2R3 w 0 1"));
}

#[test]
fn markers_are_checked_against_the_position_after_the_turn() {
    let position = Cascudo::from_position_string("r/3/5/k6/7/7/7/2RK3 w 0 1").unwrap();
    let claim = |token: &str| Cascudo::parse_turn(token).unwrap();
    let turn = position.resolve(&claim("Kd1-c1-c5")).unwrap();
    assert_eq!(position.write_turn(&turn), "Kd1-c1-c5+");
    let mut after = position.clone();
    after.play(&turn);
    assert!(after.is_check());
    assert_eq!(after.annotation_mismatch(&claim("Kd1-c1-c5+")), None);
    assert_eq!(after.annotation_mismatch(&claim("Kd1-c1-c5")), None);
    let mate = after.annotation_mismatch(&claim("Kd1-c1-c5#")).unwrap();
    assert!(
        mate.starts_with("claims mate but Black has cascades, e.g. "),
        "{mate}"
    );
    let quiet = position.resolve(&claim("Rc1-d1-e1")).unwrap();
    let mut after = position.clone();
    after.play(&quiet);
    assert_eq!(
        after.annotation_mismatch(&claim("Rc1-d1-e1+")),
        Some("claims check but Black is not in check".to_owned())
    );
}

#[test]
fn the_diagram_draws_the_hex_board_beside_its_cell_names() {
    // A raw string, so the leading spaces of the first row stay.
    let expected = &r"
         b                       d8
      q     k                 c7    e7
   n     b     n           b6    d7    f6
r     p     p     r     a5    c6    e6    g5
   p     b     p           b5    d6    f5
p     .     .     p     a4    c5    e5    g4
   .     .     .           b4    d5    f4
.     .     .     .     a3    c4    e4    g3
   .     .     .           b3    d4    f3
P     .     .     P     a2    c3    e3    g2
   P     B     P           b2    d3    f2
R     P     P     R     a1    c2    e2    g1
   N     B     N           b1    d2    f1
      Q     K                 c1    e1
         B                       d1
a  b  c  d  e  f  g     a  b  c  d  e  f  g
"[1..];
    assert_eq!(Cascudo::start().diagram(), expected);
}

#[test]
fn the_start_is_the_reconstruction_of_the_rulings() {
    let start = Cascudo::start();
    let at = |name: &str| {
        start
            .piece_at(Cell::from_name(name).unwrap())
            .map(Piece::char)
    };
    let white = [
        ("a1", 'R'),
        ("g1", 'R'),
        ("b1", 'N'),
        ("f1", 'N'),
        ("c1", 'Q'),
        ("e1", 'K'),
        ("d1", 'B'),
        ("d2", 'B'),
        ("d3", 'B'),
        ("a2", 'P'),
        ("b2", 'P'),
        ("c2", 'P'),
        ("e2", 'P'),
        ("f2", 'P'),
        ("g2", 'P'),
    ];
    let black = [
        ("a5", 'r'),
        ("g5", 'r'),
        ("b6", 'n'),
        ("f6", 'n'),
        ("c7", 'q'),
        ("e7", 'k'),
        ("d8", 'b'),
        ("d7", 'b'),
        ("d6", 'b'),
        ("a4", 'p'),
        ("b5", 'p'),
        ("c6", 'p'),
        ("e6", 'p'),
        ("f5", 'p'),
        ("g4", 'p'),
    ];
    for (name, letter) in white.into_iter().chain(black) {
        assert_eq!(at(name), Some(letter), "{name}");
    }
    assert_eq!(
        Cell::all().filter(|&c| start.piece_at(c).is_some()).count(),
        30
    );
    // The three bishops of each side stand on the three colours.
    let colours = |cells: [&str; 3]| cells.map(|name| Cell::from_name(name).unwrap().colour());
    let white_bishops = colours(["d1", "d2", "d3"]);
    assert!(white_bishops[0] != white_bishops[1] && white_bishops[1] != white_bishops[2]);
    assert!(white_bishops[0] != white_bishops[2]);
    let mut black_bishops = colours(["d8", "d7", "d6"]);
    black_bishops.sort_by_key(|c| *c as u8);
    let mut sorted = white_bishops;
    sorted.sort_by_key(|c| *c as u8);
    assert_eq!(black_bishops, sorted);
}

#[test]
fn a_generated_cascade_equals_the_same_chain_built_afresh() {
    // The search reuses one chain, pushing and popping links: what it leaves behind past
    // the last link must not make equal chains differ.
    let mut turns = Vec::new();
    for text in [
        "b/qbk/npbpn/rp3pr/p5p/3B3/PPPBPPP/RNQBKNR w 0 1",
        "R/1P1/5/7/7/7/5p1/K4k1 w 0 1",
    ] {
        Cascudo::from_position_string(text)
            .unwrap()
            .legal_turns(&mut turns);
    }
    assert_eq!(turns.len(), 996 + 80);
    for turn in &turns {
        let mut fresh = Turn::empty(turn.origin());
        for (&to, &promotion) in turn.cells()[1..].iter().zip(turn.promotions()) {
            fresh.push(to, promotion);
        }
        assert_eq!(&fresh, turn);
    }
}

/// Ruling 7 by brute force: every chain of `by`'s moves onto its own unmoved tokens is
/// played out on a copy of the board, and the token in hand (from the second move on) is
/// asked whether it could move onto `king`. Promotions change no cell's occupancy, so a
/// pawn keeps its kind here.
fn a_cascade_lands_on(board: &Board, king: Cell, by: Color) -> bool {
    fn chain(
        board: &mut Board,
        from: Cell,
        hand: Piece,
        moved: u64,
        first: bool,
        king: Cell,
    ) -> bool {
        let mut targets = Vec::new();
        movegen::for_each_target(board, from, hand, |to| {
            targets.push(to);
            false
        });
        for to in targets {
            if to == king && !first {
                return true;
            }
            let Some(occupant) = board[to.index()] else {
                continue;
            };
            if occupant.color != hand.color || moved & (1 << to.index()) != 0 {
                continue;
            }
            board[to.index()] = Some(hand);
            let found = chain(board, to, occupant, moved | 1 << to.index(), false, king);
            board[to.index()] = Some(occupant);
            if found {
                return true;
            }
        }
        false
    }
    Cell::all().any(|origin| {
        board[origin.index()].is_some_and(|piece| {
            let mut scratch = *board;
            scratch[origin.index()] = None;
            piece.color == by && chain(&mut scratch, origin, piece, 0, true, king)
        })
    })
}

/// The fast check by cascade agrees with the brute force for both Kings of every position
/// of seeded random games, from the start and from a position with pawns near promotion.
/// Walks `games` seeded random games of up to 60 turns, from the start and from a
/// position with pawns near promotion by turns, calling `at` with each position and its
/// legal turns.
fn along_random_games(seed: u64, games: usize, mut at: impl FnMut(&Cascudo, &[Turn])) {
    let mut state = seed;
    let mut turns = Vec::new();
    for game in 0..games {
        let start = if game % 2 == 0 {
            START
        } else {
            "1/B2/1P1P1/5nk/7/1N5/2p1p2/K1n4 w 0 1"
        };
        let mut position = Cascudo::from_position_string(start).unwrap();
        for _ in 0..60 {
            turns.clear();
            position.legal_turns(&mut turns);
            at(&position, &turns);
            if turns.is_empty() {
                break;
            }
            state = splitmix(state);
            position.play(&turns[(state % turns.len() as u64) as usize]);
        }
    }
}

#[test]
fn check_by_cascade_agrees_with_playing_out_every_chain() {
    let mut checks = 0;
    along_random_games(0x5EED, 40, |position, _| {
        for color in [Color::White, Color::Black] {
            let king = movegen::king_cell(&position.board, color).unwrap();
            let fast = movegen::in_check(&position.board, king, color.other());
            let slow = a_cascade_lands_on(&position.board, king, color.other());
            assert_eq!(fast, slow, "{} {color:?}", position.position_string());
            checks += usize::from(fast);
        }
    });
    // Enough positions in check to mean something.
    assert!(checks > 100, "{checks}");
}

/// Generation, which answers most leaves' check from the first mover's board (what a
/// chain's last cell and the King's cell can change) and remembers the rest by those two
/// cells, gives the very turns, in the very order, of testing every leaf on its board,
/// along seeded random games from the start and from a position with pawns near
/// promotion; the count of perft's last level (a walk over the cells, not the chains)
/// and whether there is a legal turn agree too.
#[test]
fn generation_agrees_with_testing_every_leaf_along_random_games() {
    let mut positions = 0;
    along_random_games(0xCA5C, 24, |position, turns| {
        let mut plain = Vec::new();
        position.generate_plainly(&mut plain);
        assert_eq!(turns, plain, "{}", position.position_string());
        assert_eq!(position.count_turns(), turns.len() as u64);
        assert_eq!(position.has_legal_turn(), !turns.is_empty());
        positions += 1;
    });
    assert!(positions > 500, "{positions}");
}
