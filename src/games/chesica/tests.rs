//! Unit tests of the pieces the scenario table (`tests/data/chesica/scenarios.txt`) does
//! not reach: the token's own spelling, the repetition key and the diagram.

use super::*;

#[test]
fn tokens_read_and_write_back_in_one_spelling() {
    let cases = [
        ("Bd4", "Bd4"),
        ("Bcd4", "Bcd4"),
        ("B3d4", "B3d4"),
        ("Bc3-d4", "Bc3d4"),
        ("Bc3xd4", "Bc3xd4"),
        ("c3d4", "c3-d4"),
        ("c3-d4", "c3-d4"),
        ("c3:e5", "c3xe5"),
        ("c3xe5-g7", "c3xe5xg7"),
        ("c6xe8+", "c6xe8+"),
        ("Rb8+", "Rb8+"),
    ];
    for (token, written) in cases {
        let notation = Chesica::parse_turn(token).unwrap_or_else(|e| panic!("{token}: {e}"));
        assert_eq!(notation.to_string(), written, "{token}");
        assert_eq!(Chesica::parse_turn(written), Ok(notation), "{written}");
    }
    let jump = Chesica::parse_turn("a1xc3xe5xg3").unwrap();
    assert_eq!(jump.origin(), Square::from_name("a1"));
    assert_eq!(jump.landings().len(), 3);
    assert!(jump.capture && !jump.promotion && jump.role.is_none());
}

#[test]
fn syntax_errors_point_into_the_token() {
    let error = Chesica::parse_turn("c3xe5xz9").unwrap_err();
    assert_eq!(error.offset, 6);
    assert_eq!(error.message, "unexpected character 'z'");
    assert_eq!(Chesica::parse_turn("").unwrap_err().message, "empty turn");
}

#[test]
fn the_repetition_key_is_the_placement_and_the_side_to_move() {
    let white = Chesica::from_position_string("7+q/8/8/8/8/8/8/+Q7 w 1").unwrap();
    let later = Chesica::from_position_string("7+q/8/8/8/8/8/8/+Q7 w 30").unwrap();
    let black = Chesica::from_position_string("7+q/8/8/8/8/8/8/+Q7 b 1").unwrap();
    let unpromoted = Chesica::from_position_string("7+q/8/8/8/8/8/8/Q7 w 1").unwrap();
    assert_eq!(white.repetition_key(), later.repetition_key());
    assert_ne!(white.repetition_key(), black.repetition_key());
    assert_ne!(white.repetition_key(), unpromoted.repetition_key());
}

#[test]
fn the_diagram_marks_promoted_pieces() {
    let p = Chesica::from_position_string("7+q/8/8/8/8/8/1R6/+Q7 w 1").unwrap();
    let expected = "\
8 . . . . . . .+q
7 . . . . . . . .
6 . . . . . . . .
5 . . . . . . . .
4 . . . . . . . .
3 . . . . . . . .
2 . R . . . . . .
1+Q . . . . . . .
  a b c d e f g h
";
    assert_eq!(p.diagram(), expected);
}

#[test]
fn the_start_is_the_page_setup() {
    let start = Chesica::start();
    assert_eq!(
        start.position_string(),
        "1q1q1q1q/r1r1r1r1/1b1b1b1b/8/8/B1B1B1B1/1R1R1R1R/Q1Q1Q1Q1 w 1"
    );
    assert_eq!(start.piece_count(Color::White), 12);
    assert_eq!(start.piece_count(Color::Black), 12);
    assert!(!start.must_jump());
    assert!(start.has_legal_turn());
}
