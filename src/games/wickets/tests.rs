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
