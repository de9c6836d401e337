//! Chess with wickets: a scenario table (position, token, verdict or resulting position)
//! for every numbered rule of the page and every ruling, perft, and random playouts whose
//! every turn writes and re-reads to itself.

use pbem::games::wickets::{Card, Decision, Turn};
use pbem::games::{Color, Game, Outcome, Wickets, WinReason};
use proptest::prelude::*;

fn position(text: &str) -> Wickets {
    Wickets::from_position_string(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// What a scenario expects: the position after the turn, or an error containing a text.
enum Expect {
    After(&'static str),
    Illegal(&'static str),
}
use Expect::{After, Illegal};

/// (what it shows, position, token, expectation)
const SCENARIOS: &[(&str, &str, &str, Expect)] = &[
    // Rule 1, 3: the Defender enters its own wicket; nobody else of its side may.
    (
        "defender enters own wicket",
        "3qk3/8/8/8/8/8/8/3QK3 w - - -,- e1,e8 d1,d8 det 0 1",
        "Qw0",
        After("3qk3/8/8/8/8/8/8/4K3 b - - Q,- e1,e8 w0,d8 det 1 1"),
    ),
    (
        "knight may not enter its own wicket",
        "3qk3/8/8/8/8/8/8/2NQK3 w - - -,- e1,e8 d1,d8 det 0 1",
        "Nw0",
        Illegal("may be entered only"),
    ),
    (
        "opposing ball-haver enters the wicket",
        "5K2/r7/4k3/8/8/8/8/3Q4 w - - -,- f8,e6 d1,a7 det 0 1",
        "Kw9",
        After("8/r7/4k3/8/8/8/8/3Q4 b - - -,K w9,e6 d1,a7 det 1 1"),
    ),
    (
        "a non-haver may not enter the opposing wicket",
        "4k3/3N4/8/8/8/r7/8/3QK3 w - - -,- e1,e8 d1,a3 det 0 1",
        "Nw9",
        Illegal("may be entered only"),
    ),
    // Rule 14: a piece may enter the opposing wicket to capture its own Ball there.
    (
        "capturing the own ball in the opposing wicket",
        "7k/3N4/8/8/8/r7/8/3QK3 w - - -,o -,h8 d1,a3 det 0 1",
        "Nxw9",
        After("7k/8/8/8/8/r7/8/3QK3 b - - -,N w9,h8 d1,a3 det 0 1"),
    ),
    // Rules 4, 5: a pass to an own piece, a throw to an empty square, no throw.
    (
        "pass to an own piece",
        "2q1k3/8/8/R7/8/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "Kd2:a5",
        After("2q1k3/8/8/R7/8/8/3K4/3Q4 b - - -,- a5,e8 d1,c8 det 1 1"),
    ),
    (
        "throw to an empty square",
        "2q1k3/8/8/R7/8/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "Kd2:c3",
        After("2q1k3/8/8/R7/8/2o5/3K4/3Q4 b - - -,- -,e8 d1,c8 det 1 1"),
    ),
    (
        "the throw is optional",
        "2q1k3/8/8/R7/8/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "Kd2",
        After("2q1k3/8/8/R7/8/8/3K4/3Q4 b - - -,- d2,e8 d1,c8 det 1 1"),
    ),
    (
        "throwing through a piece",
        "2q1k3/8/8/R7/1p6/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "Kd2:a5",
        Illegal("blocked"),
    ),
    (
        "throwing to the defender",
        "2q1k3/8/8/R7/8/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "Kd2:d1",
        Illegal("Defender"),
    ),
    (
        "only the ball-haver that moved throws",
        "2q1k3/8/8/R7/8/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "Ra6:a1",
        Illegal("only the Ball-haver"),
    ),
    (
        "a throw off a queen line",
        "2q1k3/8/8/R7/8/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "Kd2:b3",
        Illegal("not on a queen line"),
    ),
    (
        "never into the own wicket",
        "2q1k3/8/8/R7/8/8/8/3QK3 w - - -,- e1,e8 d1,c8 det 0 1",
        "Kf1:w0",
        Illegal("own side's wicket"),
    ),
    // Rule 10, 15, ruling 3: capturing the own loose ball, then no throw that turn.
    (
        "capturing the own loose ball",
        "3qk3/8/8/8/8/2o5/8/1N1QK3 w - - -,- -,e8 d1,d8 det 0 1",
        "Nxc3",
        After("3qk3/8/8/8/8/2N5/8/3QK3 b - - -,- c3,e8 d1,d8 det 0 1"),
    ),
    (
        "no throw right after picking up a ball",
        "3qk3/8/8/8/8/2o5/8/1N1QK3 w - - -,- -,e8 d1,d8 det 0 1",
        "Nxc3:c4",
        Illegal("cannot throw on the same turn"),
    ),
    // Rule 9: a Defender never captures a Ball.
    (
        "a defender capturing a ball",
        "3qk3/8/8/8/8/3o4/8/3QK3 w - - -,- -,e8 d1,d8 det 0 1",
        "Qxd3",
        Illegal("Defender cannot capture a Ball"),
    ),
    (
        "the opponent's ball is not capturable",
        "3qk3/8/2O5/8/B7/8/8/3QK3 w - - -,- e1,- d1,d8 det 0 1",
        "Bxc6",
        Illegal("no white piece"),
    ),
    // Rule 8, ruling 6: capturing a Ball-haver drops its ball next to the capture.
    (
        "capturing a ball-haver drops its ball",
        "3qk3/8/2n5/8/B7/8/8/3QK3 w - - -,- e1,c6 d1,d8 det 0 1",
        "Bxc6_Ob7",
        After("3qk3/1O6/2B5/8/8/8/8/3QK3 b - - -,- e1,- d1,d8 det 0 1"),
    ),
    (
        "the drop square must be said",
        "3qk3/8/2n5/8/B7/8/8/3QK3 w - - -,- e1,c6 d1,d8 det 0 1",
        "Bxc6",
        Illegal("needs a square"),
    ),
    (
        "the drop square must be adjacent",
        "3qk3/8/2n5/8/B7/8/8/3QK3 w - - -,- e1,c6 d1,d8 det 0 1",
        "Bxc6_Oa1",
        Illegal("cannot be dropped"),
    ),
    (
        "a ball-haver capture with no square for the ball",
        "3qk3/1ppp4/1pnp4/Nppp4/8/8/8/3QK3 w - - -,- e1,c6 d1,d8 det 0 1",
        "Nxc6",
        Illegal("there is none"),
    ),
    // Rule 12: a captured Defender is replaced by its owner, first thing on its turn.
    (
        "capturing a defender",
        "3qk3/7p/8/8/8/8/8/3RK2Q w - - -,- e1,e8 h1,d8 det 0 1",
        "Rxd8+",
        After("3Rk3/7p/8/8/8/8/8/4K2Q b - - -,- e1,e8 h1,- det 0 1"),
    ),
    (
        "the new defender is named first",
        "3Rk3/7p/8/8/8/8/8/4K2Q b - - -,- e1,e8 h1,- det 0 1",
        "Dh7:Kxd8",
        After("3k4/7p/8/8/8/8/8/4K2Q w - - -,- e1,d8 h1,h7 det 0 2"),
    ),
    (
        "a side without defender must name one",
        "3Rk3/7p/8/8/8/8/8/4K2Q b - - -,- e1,e8 h1,- det 0 1",
        "Kxd8",
        Illegal("must name one first"),
    ),
    (
        "the ball-haver cannot be named",
        "3Rk3/7p/8/8/8/8/8/4K2Q b - - -,- e1,e8 h1,- det 0 1",
        "De8:Kxd8",
        Illegal("cannot also be the Defender"),
    ),
    (
        "only a side without defender names",
        "3qk3/8/8/8/8/8/8/3QK3 w - - -,- e1,e8 d1,d8 det 0 1",
        "Dd1:Kf1",
        Illegal("already has a Defender"),
    ),
    // Rule 13, ruling 5, 7: scoring in the deterministic modes.
    (
        "unseen wicket: the attempt succeeds",
        "7k/8/8/8/8/r7/8/3QK3 w - - -,- e1,h8 d1,a3 det 0 1",
        "Ke2:w9",
        After("7k/8/8/8/8/8/4K3/3Q4 b - - -,o -,h8 d1,- det 1 1"),
    ),
    (
        "seen wicket: three sacrifices",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 det 0 1",
        "Ke2:w9_sa2_sb2_sc2",
        After("7k/8/8/8/8/8/4K3/3Q4 b - - -,o -,h8 d1,- det 1 1"),
    ),
    (
        "seen wicket, no sacrifice: the attempt fails",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 det 0 1",
        "Ke2:w9",
        After("5b1k/8/8/8/8/8/PPP1K3/3Q4 b - - -,o -,h8 d1,f8 det 1 1"),
    ),
    (
        "seen wicket: one sacrifice is not enough",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 det 0 1",
        "Ke2:w9_sa2",
        Illegal("exactly 3 sacrifices"),
    ),
    (
        "the defender is never sacrificed",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 det 0 1",
        "Ke2:w9_sa2_sb2_sd1",
        Illegal("exactly 3 sacrifices"),
    ),
    (
        "an unneeded sacrifice",
        "7k/8/8/8/8/r7/P7/3QK3 w - - -,- e1,h8 d1,a3 det 0 1",
        "Ke2:w9_sa2",
        Illegal("no sacrifice is needed"),
    ),
    (
        "deterministic II: two sacrifices",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 det2 0 1",
        "Ke2:w9_sa2_sc2",
        After("7k/8/8/8/8/8/1P2K3/3Q4 b - - -,o -,h8 d1,- det2 1 1"),
    ),
    // Cards modes (ruling 9): the page's Cards and Cards II, the discards in the position.
    (
        "cards: S7 beats S5 without the bonus, both discarded",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1",
        "Ke2:w9_cS7_cS5",
        After("7k/8/8/8/8/8/PPP1K3/3Q4 b - - -,o -,h8 d1,- cards/S5S7 1 1"),
    ),
    (
        "cards: the defender sees, S5 plus 2.5 beats S7",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 cards 0 1",
        "Ke2:w9_cS7_cS5",
        After("5b1k/8/8/8/8/8/PPP1K3/3Q4 b - - -,o -,h8 d1,f8 cards/S5S7 1 1"),
    ),
    (
        "cards: the defender sees, S8 beats S5 plus 2.5",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 cards/C1 0 1",
        "Ke2:w9_cS8_cS5",
        After("7k/8/8/8/8/8/PPP1K3/3Q4 b - - -,o -,h8 d1,- cards/C1S5S8 1 1"),
    ),
    (
        "cards: a tie is replayed",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1",
        "Ke2:w9_cS5_cH5_cC2_cC9",
        After("7k/8/8/8/8/8/PPP1K3/3Q3b b - - -,o -,h8 d1,h1 cards/C2C9H5S5 1 1"),
    ),
    (
        "cards: a tie with no replay yet awaits the thrower's card",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1",
        "Ke2:w9_cS5_cH5",
        After("7k/8/8/8/8/8/PPP1K3/3Q3b b - - -,o -,h8 d1,h1 cards/H5S5/S5H5 1 1"),
    ),
    (
        "cards: the opponent's reply awaited",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1",
        "Ke2:w9_cD10",
        After("7k/8/8/8/8/8/PPP1K3/3Q3b b - - -,o -,h8 d1,h1 cards/D10/D10 1 1"),
    ),
    (
        "cards: a card played twice between reshuffles",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards/S7 0 1",
        "Ke2:w9_cS7_cS5",
        Illegal("already played since the last reshuffle"),
    ),
    (
        "cards: the twenty-first discard empties the deck: the pile, S5 too, is reshuffled",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards/C1C2C3C4C5C6C7C8C9C10D1D2D3D4D5D6D7D8D9 0 1",
        "Ke2:w9_cS7_cS5",
        After("7k/8/8/8/8/8/PPP1K3/3Q4 b - - -,o -,h8 d1,- cards 1 1"),
    ),
    (
        "cards: no card after the attempt is decided",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1",
        "Ke2:w9_cS7_cS5_cH2",
        Illegal("no more cards are played"),
    ),
    (
        "cards: no rolls in a cards mode",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1",
        "Ke2:w9_r6",
        Illegal("decided by cards"),
    ),
    (
        "cards II: a second pair after a failure",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards2 0 1",
        "Ke2:w9_cS2_cS9_cH7_cH1",
        After("7k/8/8/8/8/8/PPP1K3/3Q4 b - - -,o -,h8 d1,- cards2/H1H7S2S9 1 1"),
    ),
    (
        "cards II: no third pair",
        "7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards2 0 1",
        "Ke2:w9_cS2_cS9_cH1_cH7_cC1_cC2",
        Illegal("one second try only"),
    ),
    (
        "cards: a turn while a card is awaited",
        "7k/8/8/8/8/8/PPP1K3/3Q3b b - - -,o -,h8 d1,h1 cards/D10/D10 1 1",
        "Kg8",
        Illegal("awaits Black's card in reply to White's D10"),
    ),
    // Dice modes.
    (
        "dice: 4 fails when the defender sees",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 dice 0 1",
        "Ke2:w9_r4",
        After("5b1k/8/8/8/8/8/PPP1K3/3Q4 b - - -,o -,h8 d1,f8 dice 1 1"),
    ),
    (
        "dice: 5 succeeds when the defender sees",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 dice 0 1",
        "Ke2:w9_r5",
        After("7k/8/8/8/8/8/PPP1K3/3Q4 b - - -,o -,h8 d1,- dice 1 1"),
    ),
    (
        "dice: 3 succeeds when it does not",
        "7k/8/8/8/8/r7/8/3QK3 w - - -,- e1,h8 d1,a3 dice 0 1",
        "Ke2:w9_r3",
        After("7k/8/8/8/8/8/4K3/3Q4 b - - -,o -,h8 d1,- dice 1 1"),
    ),
    (
        "dice: a roll of 7",
        "7k/8/8/8/8/r7/8/3QK3 w - - -,- e1,h8 d1,a3 dice 0 1",
        "Ke2:w9_r7",
        Illegal("1 to 6"),
    ),
    (
        "dice: the roll is part of the record",
        "7k/8/8/8/8/r7/8/3QK3 w - - -,- e1,h8 d1,a3 dice 0 1",
        "Ke2:w9",
        Illegal("one roll"),
    ),
    (
        "dice: no second roll in plain Dice",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 dice 0 1",
        "Ke2:w9_r2_sa2_r6",
        Illegal("one roll"),
    ),
    (
        "dice II: sacrifice and roll again",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 dice2 0 1",
        "Ke2:w9_r2_sa2_r6",
        After("7k/8/8/8/8/8/1PP1K3/3Q4 b - - -,o -,h8 d1,- dice2 1 1"),
    ),
    (
        "dice II: no second roll after a success",
        "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 dice2 0 1",
        "Ke2:w9_r6_sa2_r6",
        Illegal("after a failure"),
    ),
    // Rule 13: a King Defender taken loses the game at once.
    (
        "taking a king defender's wicket",
        "O6k/8/8/8/8/8/8/3QK3 w - - -,- e1,- d1,h8 det 0 1",
        "Ke2:w9",
        After("O7/8/8/8/8/8/4K3/3Q4 b - - -,o -,- d1,- det 1 1"),
    ),
    // Rule 7: castling with a Ball-haver, either piece throws.
    (
        "castling: the rook throws",
        "r3k3/8/8/8/8/8/8/R2QK2R w KQ - -,- e1,e8 d1,a8 det 0 1",
        "O-O:f5",
        After("r3k3/8/8/5o2/8/8/8/R2Q1RK1 b - - -,- -,e8 d1,a8 det 1 1"),
    ),
    (
        "castling: the king passes to the rook",
        "r3k3/8/8/8/8/8/8/R2QK2R w KQ - -,- e1,e8 d1,a8 det 0 1",
        "O-O:f1",
        After("r3k3/8/8/8/8/8/8/R2Q1RK1 b - - -,- f1,e8 d1,a8 det 1 1"),
    ),
    (
        "castling: the king throws",
        "r3k3/8/8/8/8/8/8/R2QK2R w KQ - -,- e1,e8 d1,a8 det 0 1",
        "O-O:h2",
        After("r3k3/8/8/8/8/8/7o/R2Q1RK1 b - - -,- -,e8 d1,a8 det 1 1"),
    ),
    // Rule 6: promotion keeps the role.
    (
        "a promoted ball-haver keeps the ball",
        "4k3/P7/8/7r/8/8/8/3QK3 w - - -,- a7,e8 d1,h5 det 0 1",
        "a8=Q+",
        After("Q3k3/8/8/7r/8/8/8/3QK3 b - - -,- a8,e8 d1,h5 det 0 1"),
    ),
    (
        "a promoted ball-haver may throw",
        "4k3/P7/8/7r/8/8/8/3QK3 w - - -,- a7,e8 d1,h5 det 0 1",
        "a8=Q:d8",
        After("Q2ok3/8/8/7r/8/8/8/3QK3 b - - -,- -,e8 d1,h5 det 0 1"),
    ),
    // Rule 11, 16, ruling 8: pieces in wickets give no check; a king in one can be checked.
    (
        "the king may stand next to a queen in a wicket",
        "3rk3/8/8/8/8/8/8/Q3K3 w - - q,- e1,w0 a1,d8 det 0 1",
        "Kf1",
        After("3rk3/8/8/8/8/8/8/Q4K2 b - - q,- f1,w0 a1,d8 det 1 1"),
    ),
    (
        "the king in a wicket is still in check",
        "8/8/8/4r3/8/8/Q7/7k w - - -,K w9,h1 a2,e5 det 0 1",
        "Qb2",
        Illegal("check"),
    ),
];

#[test]
fn scenario_table() {
    let mut failures = Vec::new();
    for (what, fen, token, expect) in SCENARIOS {
        let start = position(fen);
        let result = Wickets::parse_turn(token)
            .map_err(|e| e.to_string())
            .and_then(|syntax| start.resolve(&syntax).map_err(|e| e.message));
        match (expect, result) {
            (After(after), Ok(turn)) => {
                let mut next = start.clone();
                next.play(&turn);
                if next.position_string() != *after {
                    failures.push(format!("{what}: {token} gave {}", next.position_string()));
                }
                if start.write_turn(&turn).trim_end_matches(['+', '#'])
                    != token.trim_end_matches(['+', '#'])
                {
                    failures.push(format!(
                        "{what}: {token} is written {}",
                        start.write_turn(&turn)
                    ));
                }
            }
            (After(_), Err(e)) => failures.push(format!("{what}: {token} refused: {e}")),
            (Illegal(text), Err(e)) if e.contains(text) => {}
            (Illegal(text), Err(e)) => {
                failures.push(format!("{what}: {token}: \"{e}\" lacks \"{text}\""))
            }
            (Illegal(_), Ok(turn)) => {
                failures.push(format!("{what}: {token} accepted as {turn:?}"))
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_ends_of_the_wicket_rules() {
    // Rule 12: a side that must name a Defender and has only its Ball-haver loses.
    let p = position("7k/8/8/8/8/8/4K3/3Q4 b - - -,o -,h8 d1,- det 1 1");
    assert_eq!(
        p.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::NoDefender
        })
    );
    // Rule 13: the King Defender's wicket taken.
    let p = position("O7/8/8/8/8/8/4K3/3Q4 b - - -,o -,- d1,- det 1 1");
    assert_eq!(
        p.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::KingDefenderTaken
        })
    );
    assert!(
        position("3Rk3/7p/8/8/8/8/8/4K2Q b - - -,- e1,e8 h1,- det 0 1")
            .outcome()
            .is_none()
    );
}

#[test]
fn a_check_given_from_a_wicket_is_no_check() {
    // Black's Ball-haver queen enters White's wicket next to the white king: no check.
    let p = position("3rk3/8/8/8/q7/8/8/Q3K3 b - - -,- e1,a4 a1,d8 det 0 1");
    let syntax = Wickets::parse_turn("Qw0+").unwrap();
    let turn = p.resolve(&syntax).unwrap();
    let mut next = p.clone();
    next.play(&turn);
    assert!(!next.in_check(Color::White));
    let complaint = next
        .annotation_mismatch(&syntax)
        .expect("a false check claim");
    assert!(complaint.contains("wicket"), "{complaint}");
    assert_eq!(p.write_turn(&turn), "Qw0");
}

#[test]
fn perft_counts() {
    // Hand-counted: pawns g2-g3, g2-g4, h2-h3, h2-h4 (the h2 pawn is the Defender); Kg1
    // alone, or throwing along the first rank (a1-f1, h1: 7), to the g2 pawn (a pass), or
    // along the diagonal f2-b6 (5, stopped by the a7 pawn): 4 + 1 + 7 + 1 + 5 = 18.
    let p = position("k7/p7/8/8/8/8/6PP/7K w - - -,- h1,a8 h2,a7 det 0 1");
    assert_eq!(p.perft(1), 18);
    let start = Wickets::start();
    // The orthodox 20 and Qw0: the Queen Defender may step into its own wicket at once.
    assert_eq!(start.perft(1), 21);
    assert_eq!(start.perft(2), 441);
    assert_eq!(start.perft(3), 11_908);
    let rich: [(&str, [u64; 2]); 3] = [
        // Castling with the King Ball-haver, both pieces throwing.
        (
            "r3k3/8/8/8/8/8/8/R2QK2R w KQ - -,- e1,e8 d1,a8 det 0 1",
            [152, 12_819],
        ),
        // A seen wicket: a failed attempt or three sacrifices out of three pawns.
        (
            "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 det 0 1",
            [103, 6_195],
        ),
        // The same in Dice II: six rolls, then a sacrifice and six more after a failure.
        (
            "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 dice2 0 1",
            [179, 9_488],
        ),
    ];
    for (fen, counts) in rich {
        let p = position(fen);
        for (depth, expected) in (1..).zip(counts) {
            assert_eq!(p.perft(depth), expected, "{fen} depth {depth}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_playouts_write_and_reread_every_turn(choices in prop::collection::vec(any::<u32>(), 1..60), mode in 0usize..4) {
        let modes = ["det", "det2", "dice", "dice2"];
        let fen = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -,- e1,e8 d1,d8 {} 0 1", modes[mode]);
        let mut p = position(&fen);
        let mut turns = Vec::new();
        for choice in choices {
            turns.clear();
            p.legal_turns(&mut turns);
            if turns.is_empty() || p.outcome().is_some() {
                break;
            }
            let turn = turns[choice as usize % turns.len()].clone();
            let token = p.write_turn(&turn);
            let syntax = Wickets::parse_turn(&token).map_err(|e| TestCaseError::fail(format!("{token}: {e}")))?;
            let again = p.resolve(&syntax).map_err(|e| TestCaseError::fail(format!("{token}: {}", e.message)))?;
            prop_assert_eq!(&again, &turn, "{}", token);
            prop_assert_eq!(syntax.to_string(), token.clone());
            p.play(&turn);
            let text = p.position_string();
            let back = Wickets::from_position_string(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert_eq!(back.position_string(), text);
        }
    }
}

/// Completes a Cards-mode scoring attempt listed without its cards: `count` cards not in
/// the discards, shortened two at a time until the validator takes them (a prefix of one
/// or two cards always is: the reply is awaited, or the pair decides or ties).
fn with_cards(p: &Wickets, turn: &Turn, count: usize, seed: u32) -> Turn {
    let discarded: Vec<Card> = p.discards().collect();
    let mut free: Vec<Card> = ['C', 'D', 'H', 'S']
        .into_iter()
        .flat_map(|suit| (1..=10).filter_map(move |value| Card::new(suit, value)))
        .filter(|card| !discarded.contains(card))
        .collect();
    let mut state = seed;
    let mut chosen = Vec::new();
    while chosen.len() < count && !free.is_empty() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
        chosen.push(free.swap_remove((state >> 8) as usize % free.len()));
    }
    loop {
        let candidate = Turn {
            decision: chosen.iter().map(|&c| Decision::Card(c)).collect(),
            ..turn.clone()
        };
        let token = p.write_turn(&candidate);
        if Wickets::parse_turn(&token).is_ok_and(|s| p.resolve(&s).is_ok()) || chosen.len() <= 1 {
            return candidate;
        }
        chosen.truncate(chosen.len().saturating_sub(2).max(1));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn random_playouts_in_the_cards_modes_write_and_reread_every_turn(choices in prop::collection::vec(any::<u32>(), 1..60), second in any::<bool>(), rich in any::<bool>()) {
        let mode = if second { "cards2" } else { "cards" };
        let fen = if rich {
            format!("2r3k1/1p4p1/8/8/8/8/1P4P1/2RQK3 w - - -,- e1,g8 d1,c8 {mode} 0 1")
        } else {
            format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -,- e1,e8 d1,d8 {mode} 0 1")
        };
        let mut p = position(&fen);
        let mut turns = Vec::new();
        for choice in choices {
            turns.clear();
            p.legal_turns(&mut turns);
            if turns.is_empty() || p.outcome().is_some() {
                break;
            }
            let wicket = if p.side_to_move() == Color::White { "w9" } else { "w0" };
            let attempts: Vec<&Turn> = turns.iter().filter(|t| t.throw.is_some_and(|w| w.to_string() == wicket)).collect();
            let mut turn = if choice % 3 == 0 && !attempts.is_empty() {
                attempts[choice as usize / 3 % attempts.len()].clone()
            } else {
                turns[choice as usize % turns.len()].clone()
            };
            if turn.throw.is_some_and(|w| w.to_string() == wicket) && choice % 7 != 0 {
                turn = with_cards(&p, &turn, 1 + choice as usize % 6, choice);
            }
            let token = p.write_turn(&turn);
            let syntax = Wickets::parse_turn(&token).map_err(|e| TestCaseError::fail(format!("{token}: {e}")))?;
            let again = p.resolve(&syntax).map_err(|e| TestCaseError::fail(format!("{token}: {}", e.message)))?;
            prop_assert_eq!(&again, &turn, "{}", token);
            prop_assert_eq!(syntax.to_string(), token.clone());
            p.play(&turn);
            let text = p.position_string();
            let back = Wickets::from_position_string(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert_eq!(back.position_string(), text.clone());
            prop_assert_eq!(back.awaiting(), p.awaiting(), "{}", text);
        }
    }
}

#[test]
fn the_example_games_are_valid_without_warnings() {
    for name in [
        "wickets-deterministic.pgn",
        "wickets-dice.pgn",
        "wickets-cards.pgn",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let record = pbem::notation::parse_record(&text).unwrap();
        let report = pbem::replay::replay(&record);
        assert!(report.is_valid(), "{name}: {:?}", report.findings);
        assert!(report.findings.is_empty(), "{name}: {:?}", report.findings);
    }
}

#[test]
fn show_says_which_card_a_record_awaits() {
    let path = std::env::temp_dir().join(format!("pbem-wickets-awaits-{}.pgn", std::process::id()));
    std::fs::write(
        &path,
        "[Variant \"wickets\"]\n[Decision \"Cards\"]\n[SetUp \"1\"]\n\
         [FEN \"7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1\"]\n[Result \"*\"]\n\n\
         1. Ke2:w9_cD10 *\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
        .arg("show")
        .arg(&path)
        .output()
        .expect("pbem runs");
    std::fs::remove_file(&path).unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("cards/D10/D10 1 1\nafter ply 1: the scoring attempt awaits Black's card in reply to White's D10"),
        "{out}"
    );
}

#[test]
fn scenario_table_file() {
    crate::scenarios::run_table::<Wickets>("tests/data/wickets/scenarios.txt", 20);
}
