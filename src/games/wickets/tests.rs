//! Unit tests of the places and the start.

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

/// The shortcut of generation (a move that cannot expose the king is kept without
/// playing it) gives the very turns, in the very order, that trying every move on the
/// board gives, along seeded random games from the start in every decision mode and from
/// positions of the scenario table (pins, a king in a wicket, loose Balls, castling, no
/// Defender, a Ball-haver to take).
#[test]
fn generation_agrees_with_the_plain_definition_along_random_games() {
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
    let mut state = 29u64;
    let mut positions = 0;
    for start in &starts {
        for _game in 0..10 {
            let mut position = start.clone();
            for _ply in 0..100 {
                let mut turns = Vec::new();
                position.generate_with(true, true, &mut turns);
                let mut expected = Vec::new();
                position.generate_with(true, false, &mut expected);
                assert_eq!(turns, expected, "{}", position.position_string());
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
    assert!(positions > 5000, "{positions} positions");
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
