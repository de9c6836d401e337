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
