use super::board::{Sq, sowing_squares};
use super::*;

#[test]
fn the_circuits_run_up_the_right_file_and_down_the_left() {
    let mut at = Sq::new(1, 0);
    let mut seen = Vec::new();
    for _ in 0..16 {
        seen.push(at.to_string());
        at = at.successor();
    }
    assert_eq!(
        seen.join(" "),
        "b1 b2 b3 b4 b5 b6 b7 b8 a8 a7 a6 a5 a4 a3 a2 a1"
    );
    assert_eq!(at, Sq::new(1, 0));
    assert_eq!(Sq::new(4, 0).successor(), Sq::new(5, 0));
    assert_eq!(Sq::new(3, 7).successor(), Sq::new(2, 7));
}

#[test]
fn every_setup_reads_and_is_written_back() {
    for setup in Setup::ALL {
        let position = Chesscala::setup(setup);
        assert_eq!(position.position_string(), setup.position_string());
        assert_eq!(Setup::from_name(setup.name()), Some(setup));
    }
}

#[test]
fn sowing_skips_full_squares_including_those_it_fills() {
    let position =
        Chesscala::from_position_string("k5/6/6/6/6/1(PPPP)4/(PPPP)(PPP)4/4K1 w - - 0/0 - 1")
            .unwrap();
    // From b2 the circuit goes b3 (full), b4, b5, b6.
    let mut board = position.board;
    board[Sq::new(1, 1).index()].lift();
    let squares = sowing_squares(&board, Sq::new(1, 1), 3);
    let names: Vec<String> = squares[..3].iter().map(ToString::to_string).collect();
    assert_eq!(names.join(" "), "b4 b5 b6");
}

/// The mate test, which tries the turns one origin at a time and stops at the first that
/// escapes, answers as trying every turn; the marker test, which looks for a mate only
/// when a token claims one (`#`), answers as the plain definition (the marker earned, worked out in full) for every marker on
/// every turn of seeded random games.
#[test]
fn markers_are_judged_as_the_plain_definition_along_random_games() {
    let mut state = 0xC4E5_5CA1u64;
    let mut turns = Vec::new();
    let (mut checks, mut complaints) = (0, 0);
    for _ in 0..8 {
        let mut position = Chesscala::start();
        for _ in 0..80 {
            turns.clear();
            position.legal_turns(&mut turns);
            if turns.is_empty() || position.outcome.is_some() {
                break;
            }
            state = crate::games::splitmix(state);
            let turn = turns[(state % turns.len() as u64) as usize];
            let mut syntax = Chesscala::parse_turn(&position.write_turn(&turn)).unwrap();
            position.play(&turn);
            checks += usize::from(position.in_check(position.turn));
            for side in [Color::White, Color::Black] {
                assert_eq!(
                    position.is_mated(side),
                    position.is_mated_plainly(side),
                    "{}",
                    position.position_string()
                );
            }
            for marker in [
                notation::Marker::None,
                notation::Marker::Check,
                notation::Marker::Mate,
            ] {
                syntax.marker = marker;
                let plain = notation::annotation_mismatch_plainly(&position, &syntax);
                assert_eq!(
                    position.annotation_mismatch(&syntax),
                    plain,
                    "{}",
                    position.position_string()
                );
                complaints += usize::from(plain.is_some());
            }
        }
    }
    // Enough checks and complaints to mean something.
    assert!(checks > 20 && complaints > 100, "{checks} {complaints}");
}
